import { describe, expect, it } from "vitest";
import { BROKER_PROBE_REPO, tokenBrokerHealth, type TokenBrokerProbe } from "../../src/health/token-broker";
import type { AppStatus } from "../../src/shared/app-status";
import { parseRepo } from "../../src/shared/repo";

const CHECKED_AT = "2026-12-01T00:00:00.000Z";

/**
 * The webhook app's `appStatus()` answers, as ingress/src/app-check.ts
 * builds them from GitHub's recorded answers to `GET /app` (ingress/test/app-check.test.ts
 * plays those against the real code): the App, a 401, a 404, a 500, an unusable key.
 */
const OK: Extract<AppStatus, { ok: true }> = { ok: true, slug: "their-app", name: "Their App", mentionHandle: "@their-app", handleSet: false, checkedAt: CHECKED_AT };
const APP: Record<string, AppStatus> = {
  ok: OK,
  unauthorized: {
    ok: false,
    code: "app_auth",
    error: "GitHub refused the App's JWT for GET /app: check GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY (the key must be this App's)",
    mentionHandle: "",
    handleSet: false,
    checkedAt: CHECKED_AT
  },
  notFound: {
    ok: false,
    code: "not_found",
    error: "GitHub answered 404 to GET /app: check GITHUB_API_URL (GitHub Enterprise Server: https://<host>/api/v3) and GITHUB_APP_ID",
    mentionHandle: "@agent-think",
    handleSet: true,
    checkedAt: CHECKED_AT
  },
  down: { ok: false, code: "github", error: "GitHub answered 500 to GET /app: check GITHUB_API_URL and GitHub's status, then retry", mentionHandle: "", handleSet: false, checkedAt: CHECKED_AT },
  badKey: { ok: false, code: "config", error: "GITHUB_APP_PRIVATE_KEY is not a PEM private key", mentionHandle: "", handleSet: false, checkedAt: CHECKED_AT }
};

/** A broker that records what it was asked: `appStatus` answers with `status` (left out when undefined), the mint with `mint`. */
function broker(status: (() => Promise<unknown>) | undefined, mint: () => Promise<unknown> = refusal) {
  const asked: string[] = [];
  const probe: TokenBrokerProbe = {
    mintInstallationToken: (repo) => {
      asked.push(`mint ${repo}`);
      return mint();
    },
    ...(status ? { appStatus: () => (asked.push("appStatus"), status()) } : {})
  };
  return { probe, asked };
}

/** What the webhook app's broker throws for a malformed repo, as it arrives over RPC (the message only). */
const refusal = () => Promise.reject(new Error('agent-think-ingress token broker: repo must be "owner/name" (not a valid repository)'));
const answers = (status: AppStatus) => () => Promise.resolve(status);
const notImplemented = () => Promise.reject(new TypeError('The RPC receiver does not implement the method "appStatus".'));

describe("tokenBrokerHealth: the App check", () => {
  it("is ok when the broker's App check answers the App, naming it and the handle; it mints nothing", async () => {
    const { probe, asked } = broker(answers(APP.ok!));
    const check = await tokenBrokerHealth(probe, { localDev: false });
    expect(check).toEqual({
      id: "token-broker",
      label: expect.any(String),
      status: "ok",
      detail: "GITHUB_AUTH reaches the webhook app, whose GitHub App Their App (their-app) answers GET /app; runs start on mentions of @their-app"
    });
    expect(asked).toEqual(["appStatus"]);
  });

  it.each([
    ["a JWT GitHub refuses (401: wrong App id or key)", APP.unauthorized!, /GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY/],
    ["no App there (404: wrong GITHUB_API_URL or App id)", APP.notFound!, /GITHUB_API_URL/],
    ["a key that is not a PEM", APP.badKey!, /GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY/]
  ])("blocks %s in a deploy, with the fix, and warns in local dev", async (_name, status, fix) => {
    const deployed = await tokenBrokerHealth(broker(answers(status)).probe, { localDev: false });
    expect(deployed).toMatchObject({ status: "block", detail: `the webhook app's GitHub App does not work: ${status.ok ? "" : status.error}`, fix: expect.stringMatching(fix) });
    expect(deployed.fix).toContain("docs/app-setup.md");
    expect((await tokenBrokerHealth(broker(answers(status)).probe, { localDev: true })).status).toBe("warn");
  });

  it("warns, not blocks, when GitHub itself failed: it is asked again after a minute", async () => {
    expect(await tokenBrokerHealth(broker(answers(APP.down!)).probe, { localDev: false })).toMatchObject({
      status: "warn",
      detail: expect.stringContaining("GitHub answered 500 to GET /app"),
      fix: expect.stringContaining("GitHub's status")
    });
  });

  it("warns when MENTION_HANDLE is set to another name than the App's slug, and not when it is the slug in any case", async () => {
    const mismatch = await tokenBrokerHealth(broker(answers({ ...OK, mentionHandle: "@agent-think", handleSet: true })).probe, { localDev: false });
    expect(mismatch).toMatchObject({
      status: "warn",
      detail: "the GitHub App Their App (their-app) works, but MENTION_HANDLE is @agent-think: mentions of @their-app are ignored, and @agent-think may notify another GitHub account",
      fix: expect.stringContaining("unset MENTION_HANDLE")
    });
    const same = await tokenBrokerHealth(broker(answers({ ...OK, slug: "Their-App", mentionHandle: "@their-app", handleSet: true })).probe, { localDev: false });
    expect(same.status).toBe("ok");
  });

  it("blocks an answer it cannot read, and never shows a token one might carry", async () => {
    const { probe } = broker(() => Promise.resolve({ ok: true, token: "ghs_aVeryRealLookingInstallationToken1" }));
    const check = await tokenBrokerHealth(probe, { localDev: false });
    expect(check).toMatchObject({ status: "block", fix: "deploy both Workers from the same checkout" });
    expect(JSON.stringify(check)).not.toContain("ghs_");
  });
});

describe("tokenBrokerHealth: reaching the broker", () => {
  it("probes an older broker with a repository name it refuses before it touches GitHub", () => {
    expect(parseRepo(BROKER_PROBE_REPO).ok).toBe(false);
  });

  it.each([
    ["a webhook app deployed before appStatus", notImplemented],
    ["a stand-in without it", undefined]
  ])("warns about %s that the old probe reaches, naming the redeploy", async (_name, status) => {
    const { probe, asked } = broker(status);
    const check = await tokenBrokerHealth(probe, { localDev: false });
    expect(check).toMatchObject({ status: "warn", detail: expect.stringContaining("cannot check the GitHub App"), fix: expect.stringContaining("redeploy the webhook app") });
    expect(asked).toContain(`mint ${BROKER_PROBE_REPO}`);
  });

  it("drops unread a token a stand-in mints for the old probe", async () => {
    const check = await tokenBrokerHealth(broker(undefined, async () => ({ token: "ghs_aVeryRealLookingInstallationToken1" })).probe, { localDev: false });
    expect(check.status).toBe("warn");
    expect(JSON.stringify(check)).not.toContain("ghs_");
  });

  it.each([
    ["an unresolved binding", () => Promise.reject(new Error('Couldn\'t find a local dev session for the "AgentThinkTokenBroker" entrypoint of service "agent-think-ingress" to proxy to'))],
    ["a synchronous throw", () => { throw new Error("binding is not a service"); }]
  ])("blocks %s in production and warns in local dev", async (_, answer) => {
    const production = await tokenBrokerHealth(broker(answer).probe, { localDev: false });
    expect(production).toMatchObject({ status: "block", detail: expect.stringContaining("does not reach the token broker"), fix: expect.stringContaining("AgentThinkTokenBroker") });
    const local = await tokenBrokerHealth(broker(answer).probe, { localDev: true });
    expect(local).toMatchObject({ status: "warn", fix: expect.stringContaining("npm run dev:ingress") });
  });

  it("blocks an older broker whose old probe does not reach it either", async () => {
    const check = await tokenBrokerHealth(broker(notImplemented, () => Promise.reject(new Error("no such entrypoint"))).probe, { localDev: false });
    expect(check).toMatchObject({ status: "block", detail: expect.stringContaining("does not reach the token broker (no such entrypoint)") });
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
