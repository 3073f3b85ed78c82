import { describe, expect, it } from "vitest";
import { BROKER_PROBE_REPO, tokenBrokerHealth, type TokenBrokerProbe } from "../../src/health/token-broker";
import { parseRepo } from "../../src/shared/repo";

/** A broker that records what it was asked and answers with `answer`. */
function broker(answer: () => Promise<unknown>) {
  const asked: string[] = [];
  const probe: TokenBrokerProbe = {
    mintInstallationToken: (repo) => {
      asked.push(repo);
      return answer();
    }
  };
  return { probe, asked };
}

/** What the webhook app's broker throws for a malformed repo, as it arrives over RPC (the message only). */
const refusal = () => Promise.reject(new Error('agent-think-ingress token broker: repo must be "owner/name" (not a valid repository)'));

describe("tokenBrokerHealth", () => {
  it("probes with a repository name the broker refuses before it touches GitHub", () => {
    expect(parseRepo(BROKER_PROBE_REPO).ok).toBe(false);
  });

  it("is ok when the broker refuses the probe: the binding reaches it", async () => {
    const { probe, asked } = broker(refusal);
    const check = await tokenBrokerHealth(probe, { localDev: false });
    expect(check).toMatchObject({ id: "token-broker", status: "ok", detail: expect.stringContaining("refused a malformed probe") });
    expect(asked).toEqual([BROKER_PROBE_REPO]);
  });

  it("is ok when a broker answers, and drops the token unread", async () => {
    const { probe } = broker(async () => ({ token: "ghs_aVeryRealLookingInstallationToken1", expiresAt: "2030-01-01T00:00:00Z" }));
    const check = await tokenBrokerHealth(probe, { localDev: false });
    expect(check.status).toBe("ok");
    expect(JSON.stringify(check)).not.toContain("ghs_");
  });

  it.each([
    ["an unresolved binding", () => Promise.reject(new Error('Couldn\'t find a local dev session for the "AgentThinkTokenBroker" entrypoint of service "agent-think-ingress" to proxy to'))],
    ["no such method", () => Promise.reject(new TypeError("The RPC receiver does not implement the method \"mintInstallationToken\"."))],
    ["a synchronous throw", () => { throw new Error("binding is not a service"); }]
  ])("blocks %s in production and warns in local dev", async (_, answer) => {
    const production = await tokenBrokerHealth(broker(answer).probe, { localDev: false });
    expect(production).toMatchObject({ status: "block", detail: expect.stringContaining("does not reach the token broker"), fix: expect.stringContaining("AgentThinkTokenBroker") });
    const local = await tokenBrokerHealth(broker(answer).probe, { localDev: true });
    expect(local).toMatchObject({ status: "warn", fix: expect.stringContaining("npm run dev:ingress") });
  });

  it("treats a broker that does not answer in time as unreachable", async () => {
    const check = await tokenBrokerHealth(broker(() => new Promise(() => {})).probe, { localDev: false, timeoutMs: 20 });
    expect(check).toMatchObject({ status: "block", detail: expect.stringContaining("did not answer within 20 ms") });
  });

  it("treats a missing binding as unreachable", async () => {
    expect(await tokenBrokerHealth(undefined, { localDev: false })).toMatchObject({ status: "block", detail: expect.stringContaining("GITHUB_AUTH is not bound") });
  });

  it("redacts secrets from the error it quotes", async () => {
    const check = await tokenBrokerHealth(broker(() => Promise.reject(new Error("boom aig-canary-0000 ghs_abcdefghijklmnopqrstu"))).probe, {
      localDev: false,
      secrets: ["aig-canary-0000"]
    });
    expect(check.detail).toContain("boom [redacted] [redacted]");
  });
});
