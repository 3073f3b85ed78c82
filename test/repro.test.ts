/**
 * A reproduction page from a real turn to a real response: the scripted
 * model writes a built page into the issue's workspace and publishes it
 * with publish_reproduction; the Worker then serves it at the unguessable
 * URL the tool returned (to anyone for a public repository, through a grant
 * after Access, when configured, for any other): the address answers a
 * wrapper whose header names the run's repository and issue, over a frame
 * sandboxed to scripts that alone gets the model's document. The thread on
 * the command center links the latest page. A reporter-tier run on a
 * repository not known to be public publishes nothing.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { REPORTER_PRIVATE_REFUSAL } from "../src/repro/publisher";
import { sessionName } from "../src/shared/session-name";
import type { RepoVisibility } from "../src/shared/dispatch";
import { agentFor, toolParts, uniqueRepo, waitForStatus, waitForThread } from "./helpers";

// The test Worker runs with LOCAL_DEV=1, which answers only loopback hosts.
const BASE = "http://127.0.0.1:8787";
const fetchPath = (url: string, init?: RequestInit) => exports.default.fetch(`${BASE}${new URL(url).pathname}`, { redirect: "manual", ...init });
/** What a browser sends for the wrapper's frame. */
const FRAME = { headers: { "sec-fetch-dest": "iframe", "sec-fetch-mode": "navigate", "sec-fetch-site": "same-origin" } };

/** The wrapper's header and frame for the page at `path`, as served. */
async function expectWrapper(response: Response, path: string, repo: string, issueNumber: number): Promise<void> {
  expect(response.status).toBe(200);
  const policy = response.headers.get("content-security-policy") ?? "";
  expect(policy).toMatch(/^default-src 'none'; script-src 'none'; /);
  expect(policy).toContain(`; frame-src ${BASE}${path}; frame-ancestors 'none'; `);
  const html = await response.text();
  expect(html).not.toContain("Trigger bug");
  expect(html).toContain(
    `<strong>A reproduction written by an agent-think run</strong> for <a href="https://github.com/${repo}/issues/${issueNumber}" rel="noreferrer">${repo}#${issueNumber}</a>, not by the repository's maintainers.`
  );
  expect(html).toContain('<iframe src="index.html" sandbox="allow-scripts" ');
}

const PAGE = [
  "TEST: write /workspace/repro/dist/index.html <!doctype html><button id=trigger>Trigger bug</button><script type=module crossorigin src=./assets/app.js></script>",
  "TEST: write /workspace/repro/dist/assets/app.js document.getElementById('trigger').onclick = () => (document.body.dataset.clicked = 'yes');",
  "TEST: publish /workspace/repro/dist"
];

async function publish(options: { repoVisibility?: RepoVisibility; extra?: string[]; issueNumber?: number; repo?: string; reporter?: boolean } = {}) {
  const repo = options.repo ?? uniqueRepo();
  const issueNumber = options.issueNumber ?? 5;
  const session = options.reporter ? sessionName(repo, issueNumber, "reporter") : sessionName(repo, issueNumber);
  const agent = await agentFor(session);
  const instruction = [...PAGE, ...(options.extra ?? []), "TEST: reply published"].join("\n");
  const { submissionId } = await agent.startRun({
    session,
    repo,
    issueNumber,
    instruction,
    installationToken: "",
    commentId: Math.floor(Math.random() * 1e9),
    ...(options.repoVisibility ? { repoVisibility: options.repoVisibility } : {}),
    ...(options.reporter ? { tier: "reporter" as const } : {})
  });
  expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
  const outputs = toolParts(await agent.transcript())
    .filter((part) => part.type === "tool-publish_reproduction")
    .map((part) => part.output as { published: boolean; url: string; error?: string });
  return { repo, issueNumber, session, agent, url: outputs.at(-1)!.url, outputs };
}

describe("publish_reproduction", () => {
  it("publishes a public repository's page at an unguessable URL the Worker serves to anyone", async () => {
    const { repo, issueNumber, session, url, outputs } = await publish({ repoVisibility: "public" });
    expect(outputs.at(-1)).toEqual({ published: true, url: expect.stringMatching(/^https:\/\/agent-think\.test\/repro\/[0-9a-f]{32}\/$/), files: 2, bytes: expect.any(Number), removed: 0 });
    expect(url).not.toContain(session);
    const path = new URL(url).pathname;

    // The address answers the wrapper, to a browser's top-level visit and to a client that says nothing.
    await expectWrapper(await fetchPath(url), path, repo, issueNumber);
    await expectWrapper(await fetchPath(url, { headers: { "sec-fetch-dest": "document" } }), path, repo, issueNumber);
    // The model's document goes to the frame only, sandboxed to scripts; a top-level visit to it lands on the wrapper.
    const page = await fetchPath(`${url}index.html`, FRAME);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toMatch(new RegExp(`^sandbox allow-scripts; .*; frame-ancestors ${BASE}$`));
    expect(await page.text()).toContain("Trigger bug");
    for (const init of [{}, { headers: { "sec-fetch-dest": "document" } }]) {
      const top = await fetchPath(`${url}index.html`, init);
      expect([top.status, top.headers.get("location")]).toEqual([302, `${BASE}${path}`]);
    }
    const script = await fetchPath(`${url}assets/app.js`);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await script.text()).toContain("clicked");
    // The old guessable address serves nothing.
    expect((await fetchPath(`https://x/repro/${session}/`)).status).toBe(404);
    // The thread links the page.
    expect(await waitForThread(session, (thread) => thread.reproductionUrl !== undefined)).toMatchObject({ reproductionUrl: url });
  });

  it("replaces the issue's page on each publication: the old URL stops working", async () => {
    const { session, outputs } = await publish({ repoVisibility: "public", extra: PAGE.slice(2) });
    const [first, second] = outputs;
    expect(first!.url).not.toBe(second!.url);
    expect(second).toMatchObject({ published: true, removed: 2 });
    expect((await fetchPath(first!.url)).status).toBe(404);
    expect((await fetchPath(`${first!.url}index.html`, FRAME)).status).toBe(404);
    expect((await fetchPath(second!.url)).status).toBe(200);
    expect(await waitForThread(session, (thread) => thread.reproductionUrl === second!.url)).toBeDefined();
  });

  it.each([undefined, "private", "internal"] as const)(
    "keeps a page of a repository that is not known to be public (%s) behind Access, served through a grant",
    async (repoVisibility) => {
      const { repo, issueNumber, url } = await publish(repoVisibility ? { repoVisibility } : {});
      expect(url).toMatch(/^https:\/\/agent-think\.test\/repro\/private\/[0-9a-f]{32}\/$/);
      const id = new URL(url).pathname.split("/")[3]!;
      expect((await fetchPath(`https://x/repro/${id}/`)).status).toBe(404);

      const granted = await fetchPath(url);
      expect(granted.status).toBe(302);
      const location = new URL(granted.headers.get("location")!);
      expect(location.pathname).toMatch(new RegExp(`^/repro/private/${id}\\.\\d+\\.[A-Za-z0-9_-]{43}/$`));
      await expectWrapper(await exports.default.fetch(`${BASE}${location.pathname}`), location.pathname, repo, issueNumber);
      const page = await exports.default.fetch(`${BASE}${location.pathname}index.html`, FRAME);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-security-policy")).toMatch(/^sandbox allow-scripts; /);
      expect(await page.text()).toContain("Trigger bug");
      expect((await exports.default.fetch(`${BASE}${location.pathname}assets/app.js`)).status).toBe(200);
    }
  );

  it.each([undefined, "private", "internal"] as const)(
    "publishes no page from a reporter-tier run on a repository not known to be public (%s), and tells the model what to report instead",
    async (repoVisibility) => {
      const { repo, outputs } = await publish({ reporter: true, ...(repoVisibility ? { repoVisibility } : {}) });
      expect(outputs).toEqual([{ published: false, error: REPORTER_PRIVATE_REFUSAL }]);
      const stored = await env.REPROS.list({ prefix: "repros/" });
      const written = await Promise.all(stored.objects.map(async (object) => (await env.REPROS.head(object.key))?.customMetadata?.["agent-think-repo"]));
      expect(written).not.toContain(repo);
    }
  );

  it("publishes a reporter-tier run's page on a public repository, under the same header", async () => {
    const { repo, issueNumber, url, outputs } = await publish({ reporter: true, repoVisibility: "public" });
    expect(outputs.at(-1)).toMatchObject({ published: true, url: expect.stringMatching(/\/repro\/[0-9a-f]{32}\/$/) });
    await expectWrapper(await fetchPath(url), new URL(url).pathname, repo, issueNumber);
  });

  it("answers the model with what is wrong when there is no built page", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, 5);
    const agent = await agentFor(session);
    const { submissionId } = await agent.startRun({
      session,
      repo,
      issueNumber: 5,
      instruction: "TEST: publish /workspace/nothing-here\nTEST: reply ok",
      installationToken: ""
    });
    await waitForStatus(agent, submissionId);
    const publish = toolParts(await agent.transcript()).find((part) => part.type === "tool-publish_reproduction");
    expect(publish?.output).toEqual({ published: false, error: "/workspace/nothing-here does not exist: build the page first" });
    expect((await fetchPath(`https://x/repro/${session}/`)).status).toBe(404);
  });
});
