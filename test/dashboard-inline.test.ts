/**
 * `/` through the real Worker (src/index.ts) with the dashboard's assets
 * stood in for: the snapshot it carries is what GET /api/command-center
 * answers the same caller, a hostile issue title stays inert JSON, and a
 * request the gate refuses gets the refusal and no data (the assets and the
 * command center never asked).
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../src/index";
import { INLINE_SNAPSHOT_ID, INLINE_SNAPSHOT_PATH } from "../src/http/inline-snapshot";
import type { Snapshot } from "../src/shared/command-center";
import { agentFor, uniqueRepo, waitForStatus, waitForThread } from "./helpers";

const BASE = "http://127.0.0.1:8787";
const INDEX = '<!doctype html><html><head><script type="module" src="/assets/index-test.js"></script></head><body><div id="root"></div></body></html>';
const HOSTILE = "</script><script>alert(1)</script><!-- \u2028\u2029 & --> </SCRIPT";

function withAssets(vars: Partial<Env> = {}) {
  const asked: string[] = [];
  const assets = {
    fetch: async (request: Request) => {
      asked.push(new URL(request.url).pathname);
      return new Response(INDEX, { headers: { "content-type": "text/html" } });
    }
  };
  return { asked, env: { ...env, ...vars, ASSETS: assets } as unknown as Env };
}

const fetchWith = (workerEnv: Env, path: string, init?: RequestInit) =>
  worker.fetch(new Request(`${path.startsWith("http") ? "" : BASE}${path}`, init) as Parameters<typeof worker.fetch>[0], workerEnv);

function inline(html: string): unknown {
  const open = `<script type="application/json" id="${INLINE_SNAPSHOT_ID}">`;
  const start = html.indexOf(open);
  if (start < 0) return undefined;
  const rest = html.slice(start + open.length);
  return JSON.parse(rest.slice(0, rest.search(/<\/script/i)));
}

const withoutClock = (snapshot: Snapshot) => ({ ...snapshot, generatedAt: 0 });

describe("the dashboard's / with its snapshot inline", () => {
  it("carries what GET /api/command-center answers the same caller, a hostile title as data", async () => {
    const { session, submissionId } = await exports.AgentThink.dispatch({
      repo: uniqueRepo(),
      issueNumber: 7,
      instruction: "TEST: reply ok",
      installationToken: "",
      issueTitle: HOSTILE
    });
    await waitForStatus(await agentFor(session), submissionId);
    await waitForThread(session);
    const { env: workerEnv, asked } = withAssets();

    // Other files' runs may still move the list between the two reads: one of three back-to-back pairs must agree.
    let pair: { page: Snapshot; api: Snapshot } | undefined;
    for (let attempt = 0; attempt < 3; attempt++) {
      const response = await fetchWith(workerEnv, "/");
      expect(response.status).toBe(200);
      expect(response.headers.get("cache-control")).toBe("no-store");
      const html = await response.text();
      expect(html.match(/<\/script/gi)).toHaveLength(2);
      expect(html).not.toContain("<!--");
      const page = inline(html) as Snapshot;
      const api = (await (await exports.default.fetch(`${BASE}${INLINE_SNAPSHOT_PATH}`)).json()) as Snapshot;
      pair = { page, api };
      if (JSON.stringify(withoutClock(page)) === JSON.stringify(withoutClock(api))) break;
    }
    expect(withoutClock(pair!.page)).toEqual(withoutClock(pair!.api));
    expect(pair!.page.threads.find((thread) => thread.session === session)?.issueTitle).toBe(HOSTILE);
    expect(asked.every((path) => path === "/")).toBe(true);
  });

  it("gives a request the gate refuses its refusal, and no data", async () => {
    const cases: Array<{ vars: Partial<Env>; url: string; status: number }> = [
      // Deployed behind Access, no Access token.
      { vars: { LOCAL_DEV: "", CF_ACCESS_TEAM_DOMAIN: "team.cloudflareaccess.com", CF_ACCESS_AUD: "aud-test" }, url: "https://agent-think.test/", status: 403 },
      // Deployed with no Access at all: fails closed.
      { vars: { LOCAL_DEV: "", CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "" }, url: "https://agent-think.test/", status: 503 },
      // Local dev asked by a name that is not loopback.
      { vars: {}, url: "http://evil.example/", status: 403 }
    ];
    for (const { vars, url, status } of cases) {
      const { env: workerEnv, asked } = withAssets(vars);
      const response = await fetchWith(workerEnv, url);
      expect(response.status, url).toBe(status);
      const body = await response.text();
      expect(body).not.toContain(INLINE_SNAPSHOT_ID);
      expect(body).not.toContain("threads");
      expect(asked, url).toEqual([]);
    }
  });

  it("serves a deploy with ACCESS=off the page with its snapshot, as it serves that deploy the API", async () => {
    const { env: workerEnv } = withAssets({ LOCAL_DEV: "", CF_ACCESS_TEAM_DOMAIN: "", CF_ACCESS_AUD: "", ACCESS: "off" });
    const html = await (await fetchWith(workerEnv, "https://agent-think.test/")).text();
    const page = inline(html) as Snapshot;
    expect(page.threads.length).toBeGreaterThan(0);
    expect(typeof page.generatedAt).toBe("number");
  });
});
