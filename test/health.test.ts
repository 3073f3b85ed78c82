/**
 * The health report through the real Worker: `GET /api/health` answers
 * every check as the test Worker is configured (local dev, the scripted
 * model, the TestTokenBroker on GITHUB_AUTH, real local R2), a broker
 * binding that throws is unreachable (a warning in local dev, a block in a
 * deploy), the App installations line asking it per repository, a skills
 * bucket without the skills blocks, a gateway's answer to the model line's
 * one real request (MSW plays the gateway), the
 * PUBLIC_BASE_URL line, and no secret value the Worker holds appears in the
 * report.
 */
import { env, exports } from "cloudflare:workers";
import { delay, http, HttpResponse } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import openPr from "../skills/open-pr/SKILL.md?raw";
import reproduce from "../skills/reproduce/SKILL.md?raw";
import addressReview from "../skills/address-review/SKILL.md?raw";
import worker from "../src/index";
import { workerHealth } from "../src/health/worker-health";
import { HEALTH_CHECK_IDS, type HealthCheck, type HealthReport } from "../src/shared/health";
import { OPENAI_RESPONSES_URL, openaiText } from "./support/providers";
import { TEST_GATEWAY_ENV } from "./worker";

const server = setupServer();
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

/** Gateway answers recorded as the gateway gives them; every request's cf-aig-authorization lands in `sent`. */
function gatewayAnswers(reply: () => Response): string[] {
  const sent: string[] = [];
  server.use(http.post(OPENAI_RESPONSES_URL, ({ request }) => (sent.push(request.headers.get("cf-aig-authorization") ?? ""), reply())));
  return sent;
}
/** A gateway configuration of its own: the probe's answers are cached per configuration in the isolate. */
const gatewayEnv = () => ({
  ...env,
  ...TEST_GATEWAY_ENV,
  // Models the price table knows, so the line's only verdict is the gateway's.
  OPENAI_MODEL: "gpt-5.5",
  ANTHROPIC_MODEL: "claude-opus-4-5",
  CLOUDFLARE_AIG_TOKEN: `aig-${crypto.randomUUID()}`
});

// The test Worker runs with LOCAL_DEV=1, which answers only loopback hosts.
const BASE = "http://127.0.0.1:8787";

const lineOf = (report: HealthReport, id: HealthCheck["id"]) => report.checks.find((check) => check.id === id)!;

/** A GITHUB_AUTH whose calls fail as an unresolved service binding's do. */
const unresolvedBroker = {
  mintInstallationToken() {
    throw new Error('Couldn\'t find a local dev session for the "AgentThinkTokenBroker" entrypoint of service "agent-think-ingress" to proxy to');
  }
} as unknown as Env["GITHUB_AUTH"];

beforeAll(async () => {
  // What `npm run seed:r2` puts there.
  await env.SKILLS_BUCKET.put("skills/reproduce/SKILL.md", reproduce);
  await env.SKILLS_BUCKET.put("skills/open-pr/SKILL.md", openPr);
  await env.SKILLS_BUCKET.put("skills/address-review/SKILL.md", addressReview);
});

describe("GET /api/health", () => {
  it("answers every check of the test Worker's configuration, uncached", async () => {
    const response = await exports.default.fetch(`${BASE}/api/health`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const report = (await response.json()) as HealthReport;
    expect(report.checks.map((check) => check.id)).toEqual([...HEALTH_CHECK_IDS]);
    expect(Date.parse(report.generatedAt)).toBeGreaterThan(Date.now() - 60_000);
    expect(Object.fromEntries(report.checks.map((check) => [check.id, check.status]))).toEqual({
      model: "warn",
      github: "warn",
      "allowed-repos": "ok",
      "token-broker": "ok",
      installations: "ok",
      skills: "ok",
      repros: "ok",
      containers: "warn",
      costs: "ok",
      egress: "ok",
      access: "ok",
      "public-url": "ok",
      "local-dev": "warn"
    });
    expect(report.status).toBe("warn");
    // The TestTokenBroker answers the App check as a working App does.
    expect(lineOf(report, "token-broker").detail).toContain("GitHub App agent-think (agent-think) answers GET /app");
    // The reporter tier's day is read from the command center, not only its cap named.
    expect(lineOf(report, "costs").detail).toMatch(/reporter runs today \(\d{4}-\d{2}-\d{2} UTC\) against REPORTER_DAILY_BUDGET/);
    for (const check of report.checks) {
      if (check.status !== "ok") expect(check.fix, check.id).toEqual(expect.any(String));
    }
  });

  it("says the token broker is unreachable when its binding throws: a warning in local dev, a block in a deploy", async () => {
    const local = await workerHealth({ ...env, GITHUB_AUTH: unresolvedBroker });
    expect(lineOf(local, "token-broker")).toMatchObject({ status: "warn", detail: expect.stringContaining("does not reach the token broker") });

    const deployed = await workerHealth({ ...env, GITHUB_AUTH: unresolvedBroker, LOCAL_DEV: "" });
    expect(lineOf(deployed, "token-broker")).toMatchObject({ status: "block", fix: expect.stringContaining("AgentThinkTokenBroker") });
    // As deployed, containers off blocks too, and the report says so.
    expect(lineOf(deployed, "containers").status).toBe("block");
    expect(deployed.status).toBe("block");
  });

  it("blocks an empty ALLOWED_REPOS in a deploy, where every run is refused, and one that does not parse anywhere", async () => {
    expect(lineOf(await workerHealth(env), "allowed-repos")).toMatchObject({ status: "ok", detail: expect.stringContaining("any repository") });
    const deployed = await workerHealth({ ...env, LOCAL_DEV: "", ALLOWED_REPOS: "" });
    expect(lineOf(deployed, "allowed-repos")).toMatchObject({
      status: "block",
      detail: "ALLOWED_REPOS is empty: the agent Worker refuses every dispatch and Continue",
      fix: expect.stringContaining("ALLOWED_REPOS")
    });
    expect(lineOf(await workerHealth({ ...env, LOCAL_DEV: "", ALLOWED_REPOS: "Acme/Widgets" }), "allowed-repos")).toMatchObject({ status: "ok", detail: "acme/widgets" });
    expect(lineOf(await workerHealth({ ...env, ALLOWED_REPOS: "acme" }), "allowed-repos")).toMatchObject({ status: "block", detail: expect.stringMatching(/^ALLOWED_REPOS must be /) });
  });

  it("asks the broker for a read-only token per listed repository and reports the App installed, without the token", async () => {
    const report = await workerHealth({ ...env, ALLOWED_REPOS: "acme/widgets,acme/*" });
    // The TestTokenBroker mints for any repository, as an App installed everywhere would.
    expect(lineOf(report, "installations")).toMatchObject({ status: "warn", detail: expect.stringContaining("installed on acme/widgets") });
    expect(lineOf(report, "installations").detail).toContain("acme/* cannot be checked");
    expect(JSON.stringify(report)).not.toContain("ghs_testReadOnly");
    const unreachable = await workerHealth({ ...env, ALLOWED_REPOS: "acme/gadgets", GITHUB_AUTH: unresolvedBroker });
    expect(lineOf(unreachable, "installations")).toMatchObject({ status: "warn", detail: expect.stringContaining("the token broker was not reached") });
  });

  it("blocks a skills bucket that does not hold the skills, naming the seed command", async () => {
    // REPROS holds no skills/ keys: a bucket nobody seeded.
    const report = await workerHealth({ ...env, SKILLS_BUCKET: env.REPROS });
    expect(lineOf(report, "skills")).toMatchObject({ status: "block", detail: "SKILLS_BUCKET holds no skills", fix: expect.stringContaining("npm run seed:r2") });
    const unbound = await workerHealth({ ...env, SKILLS_BUCKET: undefined as unknown as R2Bucket, REPROS: undefined as unknown as R2Bucket });
    expect(lineOf(unbound, "skills")).toMatchObject({ status: "block", detail: "SKILLS_BUCKET is not bound" });
    expect(lineOf(unbound, "repros")).toMatchObject({ status: "block", detail: expect.stringContaining("REPROS is not bound") });
  });

  it("makes one real request through the gateway and reports its answer, cached for the next load", async () => {
    const sent = gatewayAnswers(() => openaiText("pong"));
    const configured = gatewayEnv();
    const first = lineOf(await workerHealth(configured), "model");
    expect(first.status).toBe("ok");
    expect(first.detail).toMatch(/; the gateway answered a 16-token test call to gpt-5\.5: HTTP 200 in \d+ ms \(asked .*, kept 10 min\)$/);
    expect(lineOf(await workerHealth(configured), "model").detail).toBe(first.detail);
    expect(sent).toEqual([`Bearer ${configured.CLOUDFLARE_AIG_TOKEN}`]);
  });

  it("blocks the model line when the gateway refuses its token, and asks nothing for the scripted model", async () => {
    const sent = gatewayAnswers(() => HttpResponse.json({ success: false, result: [], messages: [], error: [{ code: 2009, message: "Unauthorized" }] }, { status: 401 }));
    const refused = lineOf(await workerHealth(gatewayEnv()), "model");
    expect(refused).toMatchObject({ status: "block", fix: expect.stringContaining("CLOUDFLARE_AIG_TOKEN") });
    expect(refused.detail).toContain("refused with HTTP 401 by AI Gateway (2009: Unauthorized)");
    expect(sent).toHaveLength(1);
    expect(lineOf(await workerHealth(env), "model").status).toBe("warn");
    expect(sent).toHaveLength(1);
  });

  it("blocks a 404 naming the gateway settings, and warns when the gateway does not answer within the probe's deadline", async () => {
    gatewayAnswers(() => HttpResponse.json({ error: { message: "The model `gpt-5.5` does not exist", type: "invalid_request_error", code: "model_not_found" } }, { status: 404 }));
    expect(lineOf(await workerHealth(gatewayEnv()), "model")).toMatchObject({ status: "block", fix: expect.stringContaining("AI_GATEWAY_ID and OPENAI_MODEL") });
    server.resetHandlers();
    server.use(http.post(OPENAI_RESPONSES_URL, async () => (await delay("infinite"), openaiText("late"))));
    const slow = lineOf(await workerHealth(gatewayEnv(), { probeTimeoutMs: 50 }), "model");
    expect(slow).toMatchObject({ status: "warn", detail: expect.stringContaining("did not answer a 16-token test call to gpt-5.5 within 50 ms") });
  });

  it("blocks a deploy whose PUBLIC_BASE_URL is a loopback address, where links on issues would lead nowhere", async () => {
    expect(lineOf(await workerHealth({ ...env, PUBLIC_BASE_URL: "http://127.0.0.1:8787" }), "public-url").status).toBe("ok");
    const deployed = await workerHealth({ ...env, LOCAL_DEV: "", PUBLIC_BASE_URL: "http://127.0.0.1:8787" });
    expect(lineOf(deployed, "public-url")).toMatchObject({ status: "block", fix: expect.stringContaining("PUBLIC_BASE_URL") });
    expect(lineOf(await workerHealth({ ...env, LOCAL_DEV: "" }), "public-url")).toMatchObject({ status: "ok", detail: expect.stringContaining("https://agent-think.test/thread/") });
  });

  it("never shows a secret value the Worker holds", async () => {
    const canaries = {
      CLOUDFLARE_AIG_TOKEN: "aig-canary-7f3e1c9b2a",
      OPENAI_API_KEY: "sk-openai-canary-5d8e2f",
      ANTHROPIC_API_KEY: "sk-ant-canary-9a1b7c"
    };
    // Secrets in the model's settings, and echoed back by a failing broker.
    const leakyBroker = {
      mintInstallationToken() {
        throw new Error(`refused ${canaries.CLOUDFLARE_AIG_TOKEN} ${canaries.OPENAI_API_KEY} ghs_canaryInstallationToken0123456789`);
      }
    } as unknown as Env["GITHUB_AUTH"];
    const secretEnv = {
      ...env,
      ...canaries,
      MODEL_PROVIDER: "gateway",
      AI_GATEWAY_ACCOUNT_ID: "test-account",
      AI_GATEWAY_ID: "test-gateway",
      GITHUB_AUTH: leakyBroker
    };
    // The gateway echoes the token it refused.
    gatewayAnswers(() => HttpResponse.json({ success: false, error: [{ code: 2009, message: `Unauthorized ${canaries.CLOUDFLARE_AIG_TOKEN}` }] }, { status: 401 }));
    const response = await worker.fetch(new Request(`${BASE}/api/health`) as Parameters<typeof worker.fetch>[0], secretEnv);
    expect(response.status).toBe(200);
    const text = await response.text();
    for (const canary of Object.values(canaries)) expect(text).not.toContain(canary);
    expect(text).not.toContain("ghs_");
    expect(lineOf(JSON.parse(text) as HealthReport, "token-broker").detail).toContain("[redacted]");
    expect(lineOf(JSON.parse(text) as HealthReport, "model")).toMatchObject({ status: "block", detail: expect.stringContaining("(2009: Unauthorized [redacted])") });

    // Access's AUD tag, half-configured (the gate would answer 500 to the route, so the check is asked directly).
    const aud = "aud-canary-0b4c6d8e";
    const halfAccess = await workerHealth({ ...secretEnv, CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: aud });
    expect(lineOf(halfAccess, "access").status).toBe("block");
    expect(JSON.stringify(halfAccess)).not.toContain(aud);
  });
});
