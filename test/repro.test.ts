/**
 * A reproduction page from a real turn to a real response: the scripted
 * model writes a built page into the issue's workspace and publishes it
 * with publish_reproduction; the Worker then serves it, sandboxed, at the
 * unguessable URL the tool returned: to anyone for a public repository,
 * through a grant (after Access, when configured) for any other. The thread
 * on the command center links the latest page.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sessionName } from "../src/run/session-name";
import type { RepoVisibility } from "../src/shared/dispatch";
import { agentFor, toolParts, uniqueRepo, waitForStatus, waitForThread } from "./helpers";

// The test Worker runs with LOCAL_DEV=1, which answers only loopback hosts.
const BASE = "http://127.0.0.1:8787";
const fetchPath = (url: string, init?: RequestInit) => exports.default.fetch(`${BASE}${new URL(url).pathname}`, { redirect: "manual", ...init });

const PAGE = [
  "TEST: write /workspace/repro/dist/index.html <!doctype html><button id=trigger>Trigger bug</button><script type=module crossorigin src=./assets/app.js></script>",
  "TEST: write /workspace/repro/dist/assets/app.js document.getElementById('trigger').onclick = () => (document.body.dataset.clicked = 'yes');",
  "TEST: publish /workspace/repro/dist"
];

async function publish(options: { repoVisibility?: RepoVisibility; extra?: string[]; issueNumber?: number; repo?: string } = {}) {
  const repo = options.repo ?? uniqueRepo();
  const issueNumber = options.issueNumber ?? 5;
  const session = sessionName(repo, issueNumber);
  const agent = await agentFor(session);
  const instruction = [...PAGE, ...(options.extra ?? []), "TEST: reply published"].join("\n");
  const { submissionId } = await agent.startRun({
    session,
    repo,
    issueNumber,
    instruction,
    installationToken: "",
    commentId: Math.floor(Math.random() * 1e9),
    ...(options.repoVisibility ? { repoVisibility: options.repoVisibility } : {})
  });
  expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
  const outputs = toolParts(await agent.transcript())
    .filter((part) => part.type === "tool-publish_reproduction")
    .map((part) => part.output as { published: boolean; url: string });
  return { repo, session, agent, url: outputs.at(-1)!.url, outputs };
}

describe("publish_reproduction", () => {
  it("publishes a public repository's page at an unguessable URL the Worker serves to anyone", async () => {
    const { session, url, outputs } = await publish({ repoVisibility: "public" });
    expect(outputs.at(-1)).toEqual({ published: true, url: expect.stringMatching(/^https:\/\/agent-think\.test\/repro\/[0-9a-f]{32}\/$/), files: 2, bytes: expect.any(Number), removed: 0 });
    expect(url).not.toContain(session);

    const page = await fetchPath(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toMatch(/^sandbox allow-scripts/);
    expect(await page.text()).toContain("Trigger bug");
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
    expect((await fetchPath(second!.url)).status).toBe(200);
    expect(await waitForThread(session, (thread) => thread.reproductionUrl === second!.url)).toBeDefined();
  });

  it.each([undefined, "private", "internal"] as const)(
    "keeps a page of a repository that is not known to be public (%s) behind Access, served through a grant",
    async (repoVisibility) => {
      const { url } = await publish(repoVisibility ? { repoVisibility } : {});
      expect(url).toMatch(/^https:\/\/agent-think\.test\/repro\/private\/[0-9a-f]{32}\/$/);
      const id = new URL(url).pathname.split("/")[3]!;
      expect((await fetchPath(`https://x/repro/${id}/`)).status).toBe(404);

      const granted = await fetchPath(url);
      expect(granted.status).toBe(302);
      const location = new URL(granted.headers.get("location")!);
      expect(location.pathname).toMatch(new RegExp(`^/repro/private/${id}\\.\\d+\\.[A-Za-z0-9_-]{43}/$`));
      const page = await exports.default.fetch(`${BASE}${location.pathname}`);
      expect(page.status).toBe(200);
      expect(page.headers.get("content-security-policy")).toMatch(/^sandbox allow-scripts/);
      expect(await page.text()).toContain("Trigger bug");
      expect((await exports.default.fetch(`${BASE}${location.pathname}assets/app.js`)).status).toBe(200);
    }
  );

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
