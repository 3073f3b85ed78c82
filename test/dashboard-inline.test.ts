/**
 * `/` through the real Worker (src/index.ts) with the dashboard's assets
 * stood in for: the snapshot it carries is what GET /api/command-center
 * answers the same caller, a hostile issue title stays inert JSON, the first
 * view the Worker draws from it (where index.html marks #root's placeholder)
 * holds that title as text, and a request the gate refuses gets the refusal
 * and no data (the assets and the command center never asked).
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import worker from "../src/index";
import { FIRST_VIEW_ATTRIBUTE, INLINE_SNAPSHOT_ID, INLINE_SNAPSHOT_PATH } from "../src/http/inline-snapshot";
import { FIRST_VIEW_OUTLET } from "../src/http/spa";
import type { Snapshot } from "../src/shared/command-center";
import { agentFor, uniqueRepo, waitForStatus, waitForThread } from "./helpers";

const BASE = "http://127.0.0.1:8787";
const INDEX = '<!doctype html><html><head><script type="module" src="/assets/index-test.js"></script></head><body><div id="root"></div></body></html>';
const HOSTILE = "</script><script>alert(1)</script><!-- \u2028\u2029 & --> </SCRIPT";

/** index.html as Vite builds it, #root's placeholder marked for the first view. */
const MARKED_INDEX = INDEX.replace('<div id="root"></div>', `<div id="root">${FIRST_VIEW_OUTLET.open}<p>drawn before the JS</p>${FIRST_VIEW_OUTLET.close}</div>`);

function withAssets(vars: Partial<Env> = {}, page = INDEX) {
  const asked: string[] = [];
  const assets = {
    fetch: async (request: Request) => {
      asked.push(new URL(request.url).pathname);
      return new Response(page, { headers: { "content-type": "text/html" } });
    }
  };
  return { asked, env: { ...env, ...vars, ASSETS: assets } as unknown as Env };
}

const fetchWith = (workerEnv: Env, path: string, init?: RequestInit) =>
  worker.fetch(new Request(`${path.startsWith("http") ? "" : BASE}${path}`, init) as Parameters<typeof worker.fetch>[0], workerEnv);

function inline(html: string): unknown {
  const open = new RegExp(`<script type="application/json" id="${INLINE_SNAPSHOT_ID}"(?: ${FIRST_VIEW_ATTRIBUTE})?>`).exec(html);
  if (!open) return undefined;
  const rest = html.slice(open.index + open[0].length);
  return JSON.parse(rest.slice(0, rest.search(/<\/script/i)));
}

const withoutClock = (snapshot: Snapshot) => ({ ...snapshot, generatedAt: 0 });

/** A run on a fresh repo's issue, finished and listed by the command center; its session. */
async function finishedThreadTitled(issueTitle: string, issueNumber: number): Promise<string> {
  const { session, submissionId } = await exports.AgentThink.dispatch({
    repo: uniqueRepo(),
    issueNumber,
    instruction: "TEST: reply ok",
    installationToken: "",
    issueTitle
  });
  await waitForStatus(await agentFor(session), submissionId);
  await waitForThread(session);
  return session;
}

describe("the dashboard's / with its snapshot inline", () => {
  it("carries what GET /api/command-center answers the same caller, a hostile title as data", async () => {
    const session = await finishedThreadTitled(HOSTILE, 7);
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

  it("draws the first view into #root from the same snapshot, a hostile title as text", async () => {
    const session = await finishedThreadTitled(HOSTILE, 8);
    const { env: workerEnv } = withAssets({}, MARKED_INDEX);
    const html = await (await fetchWith(workerEnv, "/")).text();
    const root = html.slice(html.indexOf('<div id="root">'), html.indexOf(`<script type="application/json"`));
    expect(root).toContain('data-testid="metric-tiles"');
    expect(root).not.toContain("drawn before the JS");
    const page = inline(html) as Snapshot;
    // Whatever else the list holds (other files' runs), this page's view shows this page's threads.
    for (const thread of page.threads.slice(0, 5)) expect(root).toContain(`data-session="${thread.session}"`);
    expect(root).toContain(`data-session="${session}"`);
    expect(root).toContain("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    expect(root.replace(/<!--\/?\$-->|<!-- -->/g, "")).not.toContain("<!--");
    expect(html).toContain(`id="${INLINE_SNAPSHOT_ID}" ${FIRST_VIEW_ATTRIBUTE}>`);
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
