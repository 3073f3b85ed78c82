/**
 * `npm run doctor -- --url`: a running Worker's health report read over
 * HTTP (scripts/lib/doctor/remote.ts) from a small local server, with the
 * Access service token sent in the headers Cloudflare Access reads and
 * never in a line; every way the report can fail to arrive is one block
 * line that says what to do. The CLI around it is doctor-cli.test.ts.
 */
import { createServer, type IncomingHttpHeaders, type OutgoingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { accessTokenFromEnv, healthUrl, workerHealth } from "../../scripts/lib/doctor/remote";
import { badAccessSetting, HALF_CONFIGURED, NOT_CONFIGURED } from "../../src/http/access";
import { healthReport, type HealthCheck } from "../../src/shared/health";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
});

type Answer = { status: number; body: string; headers?: OutgoingHttpHeaders };

/** A Worker that answers GET /api/health with `answer`; the request headers it saw. */
async function worker(answer: Answer): Promise<{ url: string; seen: IncomingHttpHeaders[] }> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((request, response) => {
    seen.push(request.headers);
    if (request.url !== "/api/health") {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    response.end(answer.body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/health`, seen };
}

/** A port nothing listens on: a server's, closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const OK: HealthCheck = { id: "github", label: "GitHub API", status: "ok", detail: "posts to github.com" };
const BLOCKED: HealthCheck = { id: "skills", label: "Skills bucket", status: "block", detail: "SKILLS_BUCKET holds no skills", fix: "npm run seed:r2" };
const TOKEN = { clientId: "0123abcd.access", clientSecret: "access-secret-canary-0123456789" };

describe("the Worker's health report", () => {
  it("is read with the Access service token in CF-Access-Client-Id and CF-Access-Client-Secret", async () => {
    const { url, seen } = await worker({ status: 200, body: JSON.stringify(healthReport([OK, BLOCKED], Date.parse("2026-10-20T12:00:00Z"))) });
    const health = await workerHealth(url, { token: TOKEN });
    expect(health).toEqual({ url, generatedAt: "2026-10-20T12:00:00.000Z", checks: [OK, BLOCKED] });
    expect(seen[0]).toMatchObject({ "cf-access-client-id": TOKEN.clientId, "cf-access-client-secret": TOKEN.clientSecret, accept: "application/json" });
  });

  it("is asked without Access headers when no token is set", async () => {
    const { url, seen } = await worker({ status: 200, body: JSON.stringify(healthReport([OK], 0)) });
    expect((await workerHealth(url, { token: null })).checks).toEqual([OK]);
    expect(seen[0]).not.toHaveProperty("cf-access-client-id");
    expect(seen[0]).not.toHaveProperty("cf-access-client-secret");
  });

  it("keeps a line's unsafe mark (ACCESS=off, EGRESS=open)", async () => {
    const open = { id: "access", label: "Cloudflare Access", status: "warn", unsafe: true, detail: "ACCESS=off: open", fix: "set both" };
    const { url } = await worker({ status: 200, body: JSON.stringify({ status: "warn", checks: [open], generatedAt: "2026-10-20T12:00:00.000Z" }) });
    expect((await workerHealth(url, { token: null })).checks).toEqual([open]);
  });

  it("keeps a check the doctor does not know, and hides the token should the Worker echo it", async () => {
    const echo = { id: "future-check", label: "Future", status: "warn", detail: `saw ${TOKEN.clientSecret} from ${TOKEN.clientId}`, fix: "nothing" };
    const { url } = await worker({ status: 200, body: JSON.stringify({ status: "warn", checks: [echo], generatedAt: "2026-10-20T12:00:00.000Z" }) });
    const [check] = (await workerHealth(url, { token: TOKEN })).checks;
    expect(check).toMatchObject({ id: "future-check", status: "warn", detail: "saw [redacted] from [redacted]" });
  });
});

describe("a report that does not arrive is one block line saying what to do", () => {
  it.each<[string, Answer, RegExp, RegExp]>([
    ["Access refuses (403) without a token", { status: 403, body: "forbidden" }, /answered 403: it is behind Cloudflare Access/, /set CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET/],
    [
      "Access redirects to its login",
      { status: 302, body: "", headers: { location: "https://acme.cloudflareaccess.com/cdn-cgi/access/login/agent-think.acme.dev" } },
      /redirected to the Cloudflare Access login/,
      /Service Auth rule/
    ],
    ["another redirect", { status: 301, body: "", headers: { location: "https://agent-think.acme.dev/api/health" } }, /a redirect to https:\/\/agent-think\.acme\.dev\/api\/health/, /--url/],
    ["Access is half configured on the Worker", { status: 500, body: HALF_CONFIGURED, headers: { "content-type": "text/plain" } }, /half configured/, /CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD/],
    [
      "Access is not configured on the Worker (a deploy without it answers 503)",
      { status: 503, body: NOT_CONFIGURED, headers: { "content-type": "text/plain" } },
      /Cloudflare Access is not configured on the Worker, which answers 503/,
      /set CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD on the agent Worker \(or ACCESS to "off", unsafe\)/
    ],
    [
      "the Worker's ACCESS is no setting",
      { status: 500, body: badAccessSetting("on"), headers: { "content-type": "text/plain" } },
      /the Worker's ACCESS="on" is not a setting, so it answers 500/,
      /set ACCESS on the agent Worker to "" or "off"/
    ],
    ["no such route", { status: 404, body: "" }, /answered 404/, /agent Worker's/],
    ["not JSON", { status: 200, body: "<html>hello</html>", headers: { "content-type": "text/html" } }, /with text\/html, not a health report/, /agent Worker's/],
    ["JSON that is no report", { status: 200, body: '{"checks":"none"}' }, /JSON that is not a health report/, /agent Worker's/],
    [
      "the Worker's gate refuses (403 with its reason)",
      { status: 403, body: '{"error":"forbidden: local dev answers only requests to 127.0.0.1, localhost or [::1]"}' },
      /answered 403: forbidden: local dev answers only/,
      /LOCAL_DEV=1/
    ],
    ["a server error", { status: 502, body: '{"error":"bad gateway"}' }, /answered 502 \(bad gateway\)/, /wrangler tail/]
  ])("%s", async (_case, answer, detail, fix) => {
    const { url } = await worker(answer);
    const { checks } = await workerHealth(url, { token: null });
    expect(checks).toEqual([{ id: "endpoint", label: "Health endpoint", status: "block", detail: expect.stringMatching(detail), fix: expect.stringMatching(fix) }]);
  });

  it("says the service token was refused when one was sent, and never shows it", async () => {
    const { url } = await worker({ status: 403, body: "forbidden", headers: { "content-type": "text/plain" } });
    const { checks } = await workerHealth(url, { token: TOKEN });
    expect(checks[0]).toMatchObject({ status: "block", detail: expect.stringContaining("Access refused the service token"), fix: expect.stringContaining("has not expired") });
    expect(JSON.stringify(checks)).not.toMatch(/access-secret-canary|0123abcd/);
  });

  it("blocks when nothing answers", async () => {
    const url = `http://127.0.0.1:${await closedPort()}/api/health`;
    const { checks } = await workerHealth(url, { token: null });
    expect(checks[0]).toMatchObject({ status: "block", detail: `${url} could not be reached: ECONNREFUSED`, fix: expect.stringContaining("check the URL") });
  });

  it("blocks when the answer does not come in time", async () => {
    const never: typeof fetch = (_input, init) =>
      new Promise((_resolve, reject) => init?.signal?.addEventListener("abort", () => reject(init.signal!.reason as Error)));
    const { checks } = await workerHealth("https://agent-think.acme.dev/api/health", { token: null, fetch: never, timeoutMs: 20 });
    expect(checks[0]).toMatchObject({ status: "block", detail: expect.stringContaining("could not be reached: no answer in time") });
  });
});

describe("the command line's inputs", () => {
  it("takes the Access service token from both variables or neither", () => {
    expect(accessTokenFromEnv({})).toEqual({ ok: true, token: null });
    expect(accessTokenFromEnv({ CF_ACCESS_CLIENT_ID: "id", CF_ACCESS_CLIENT_SECRET: "secret" })).toEqual({ ok: true, token: { clientId: "id", clientSecret: "secret" } });
    expect(accessTokenFromEnv({ CF_ACCESS_CLIENT_ID: "id" })).toEqual({ ok: false, error: expect.stringMatching(/^CF_ACCESS_CLIENT_SECRET is not set while CF_ACCESS_CLIENT_ID is/) });
  });

  it("asks <base>/api/health of an http(s) base, and nothing else", () => {
    expect(healthUrl("https://agent-think.acme.workers.dev")).toBe("https://agent-think.acme.workers.dev/api/health");
    expect(healthUrl("https://acme.dev/bot/")).toBe("https://acme.dev/bot/api/health");
    expect(healthUrl("http://127.0.0.1:8787/api/health")).toBe("http://127.0.0.1:8787/api/health");
    expect(healthUrl("agent-think.acme.workers.dev")).toBeNull();
    expect(healthUrl("https://user:pass@acme.dev")).toBeNull();
  });
});
