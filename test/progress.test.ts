/**
 * The live progress comment, with real Think turns on the scripted model
 * against a GitHub MSW plays (judged by GitHub's REST description): created
 * once when the repository's settings are read, edited as the plan and the
 * steps change (throttled: changes within the window make one edit), turned
 * into a pointer to the closing comment when the run ends and never edited
 * after; none with `progress: false`; one progress and one closing comment
 * across an eviction; a hostile plan step neutralized. Also 🚀 on a pull
 * request review comment, through GitHub's pulls/comments reactions.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionName } from "../src/shared/session-name";
import type { ThinkAgent } from "../src/agent";
import type { OutboxEntry } from "../src/report/outbox";
import { agentFor, evict, HANG_MS, uniqueRepo, until, waitForStatus, type TestAgent } from "./helpers";
import { containerFor, type RecordingContainer } from "./support/containers";
import { FakeGitHub, serveGitHub, type GitHubCall } from "./support/github";

const github = new FakeGitHub();
// Every test is also judged by GitHub's description: none passes on a request it would refuse.
serveGitHub(github, [], { onUnhandledRequest: "bypass" });

const TOKEN = "ghs_PROGRESStestTOKEN0000000000000000";
const COMMENT_ID = 515151;
/** The throttle these tests run with: short, so a run outlasts a few windows. */
const INTERVAL_MS = 1_500;

type ReportingAgent = TestAgent & DurableObjectStub & { notices(): Promise<OutboxEntry[]> };

/** A run on a new issue; with `container`, its container commands go to a recording container the test may hold. */
async function start(
  instruction: string,
  options: { config?: string; intervalMs?: number; pullRequest?: Record<string, unknown>; container?: (container: RecordingContainer, repo: string) => void } = {}
) {
  const repo = uniqueRepo();
  if (options.config !== undefined) github.addFile(repo, ".github/agent-think.yml", options.config);
  const session = sessionName(repo, 7);
  if (options.container) options.container((await containerFor(session)).container, repo);
  const agent = (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent;
  await runInDurableObject(agent as unknown as DurableObjectStub<ThinkAgent>, (instance) => {
    instance.progressEditIntervalMs = options.intervalMs ?? INTERVAL_MS;
  });
  const { submissionId } = await agent.startRun({
    session,
    repo,
    issueNumber: 7,
    instruction,
    installationToken: TOKEN,
    ...(options.pullRequest ? { pullRequest: options.pullRequest as never } : { commentId: COMMENT_ID }),
    requestedBy: { login: "maintainer" }
  });
  return { agent, repo, session, submissionId };
}

/** Wait until the outbox holds a settled closing comment and, when the run has one, the progress comment's settled end. */
async function ended(agent: ReportingAgent, progress = true, timeoutMs = HANG_MS): Promise<OutboxEntry[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const entries = await agent.notices();
    const done = (kind: string) => entries.some((entry) => entry.kind === kind && entry.state !== "pending");
    if (done("closing") && (!progress || done("progress-final")) && entries.every((entry) => entry.state !== "pending")) return entries;
    if (Date.now() > deadline) throw new Error(`the outbox did not settle: ${JSON.stringify(entries.map((e) => [e.kind, e.state, e.lastError]))}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const isProgress = (body: string) => body.includes(":progress -->");
const progressComments = (repo: string) => github.comments(repo, 7).filter((comment) => isProgress(comment.body));
const closingComments = (repo: string) => github.comments(repo, 7).filter((comment) => comment.body.includes(":closing -->"));
const edits = (repo: string) => github.callsFor(repo).filter((call) => call.method === "PATCH" && call.path.includes("/issues/comments/"));
const editBody = (call: GitHubCall) => String(call.body?.body);

const plan = (...steps: Array<[string, "pending" | "in_progress" | "done"]>) =>
  `TEST: plan ${JSON.stringify({ steps: steps.map(([text, status]) => ({ text, status })) })}`;

describe("the progress comment", () => {
  it("is created once at the start, edited as the plan goes, throttled, and ends as a pointer to the closing comment", async () => {
    const { agent, repo, session, submissionId } = await start(
      [
        plan(["Reproduce the bug", "in_progress"], ["Write the fix", "pending"]),
        "TEST: container echo one",
        plan(["Reproduce the bug", "done"], ["Write the fix", "in_progress"]),
        "TEST: run echo two",
        plan(["Reproduce the bug", "done"], ["Write the fix", "done"]),
        "TEST: container echo three",
        "TEST: result reproduced It breaks.",
        "TEST: reply done"
      ].join("\n"),
      {
        // The run waits on the comment where it must: `one` until the first edit is out, so the changes after it make
        // at least one more; `three` until an edit shows the finished plan, so the run's end cannot drop that one.
        container: (container, repo) => {
          container.during(/echo one/, async () => void (await until(() => edits(repo).length > 0, "the first edit")));
          container.during(/echo three/, async () => void (await until(() => edits(repo).some((call) => editBody(call).includes("- [x] Write the fix")), "an edit with the finished plan")));
        }
      }
    );
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
    await ended(agent);

    // One progress comment, one closing comment, the closing one after it (below it on the issue).
    const [progress] = progressComments(repo);
    expect(progressComments(repo)).toHaveLength(1);
    expect(closingComments(repo)).toHaveLength(1);
    const closing = closingComments(repo)[0]!;
    expect(closing.id).toBeGreaterThan(progress!.id);

    // Created as the run started: the first POST of the run, before any edit.
    const posts = github.callsFor(repo).filter((call) => call.method === "POST" && call.path.endsWith("/7/comments"));
    expect(posts.map((call) => isProgress(editBody(call)))).toEqual([true, false]);
    expect(editBody(posts[0]!)).toContain(`https://agent-think.test/thread/${session}`);

    // Seven changes (three plans, three commands, the result; update_plan itself is no step), most of them moments
    // apart: fewer edits, a window apart.
    const all = edits(repo);
    expect(all.every((call) => call.path === `/repos/${repo}/issues/comments/${progress!.id}`)).toBe(true);
    const running = all.slice(0, -1);
    expect(running.length).toBeGreaterThanOrEqual(2);
    expect(running.length).toBeLessThan(6);
    const times = running.map((call) => github.arrivedAt.get(call)!);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(INTERVAL_MS - 50);

    // The plan as a task list, ticked as it went; the current step in words.
    const bodies = running.map(editBody);
    expect(bodies.some((body) => body.includes("- [ ] **Write the fix** _(in progress)_") || body.includes("- [ ] Write the fix"))).toBe(true);
    expect(bodies.at(-1)).toContain("- [x] Reproduce the bug");
    expect(bodies.at(-1)).toContain("- [x] Write the fix");
    expect(bodies.some((body) => /\*\*Now:\*\* Running `echo (two|three)` in the (shell|container)\./.test(body))).toBe(true);
    expect(bodies.at(-1)).toMatch(/cost so far \$0\.00 \(scripted demonstration: no model ran\)/);

    // The last edit is the pointer to the closing comment, and it came after the closing comment was posted.
    const last = all.at(-1)!;
    expect(editBody(last)).toContain(`See the result below: [the result comment](${closing.html_url})`);
    expect(github.arrivedAt.get(last)!).toBeGreaterThanOrEqual(github.arrivedAt.get(posts[1]!)!);
    expect(progress!.body).toBe(editBody(last));
    // The progress comment mentions no one: the closing comment is the run's one notification.
    expect(progress!.body).not.toContain("@maintainer");
    expect(closing.body.split("\n")[1]).toBe("@maintainer");

    // Every write with the run's own token, and the token revoked only after the pointer went out.
    expect(all.every((call) => call.auth === `token ${TOKEN}`)).toBe(true);
    await until(() => github.revoked.includes(TOKEN), "the run's token to be revoked");
    const revocation = github.calls.find((call) => call.method === "DELETE" && call.auth === `token ${TOKEN}`)!;
    expect(revocation).toBeDefined();
    expect(github.arrivedAt.get(revocation)!).toBeGreaterThanOrEqual(github.arrivedAt.get(last)!);

    // Never edited after the end: an edit still waiting for the throttle would have gone within the window.
    const count = edits(repo).length;
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_MS));
    expect(edits(repo)).toHaveLength(count);
  });

  it("drops an edit still waiting for the throttle when the run ends: the pointer is the last edit", async () => {
    const { agent, repo, submissionId } = await start(
      [plan(["Look", "in_progress"]), "TEST: run echo one", plan(["Look", "done"]), "TEST: result reproduced Quick.", "TEST: reply done"].join("\n"),
      { intervalMs: 60_000 }
    );
    await waitForStatus(agent, submissionId);
    const entries = await ended(agent);
    expect(entries.find((entry) => entry.kind === "progress-edit")?.state).toMatch(/^(dropped|sent)$/);
    const all = edits(repo);
    expect(all.at(-1) && editBody(all.at(-1)!)).toContain("See the result below");
    // At most the immediate first edit, then the pointer.
    expect(all.length).toBeLessThanOrEqual(2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(edits(repo)).toHaveLength(all.length);
  });

  it("posts none with progress: false", async () => {
    const { agent, repo, submissionId } = await start([plan(["Look", "in_progress"]), "TEST: run echo one", "TEST: result reproduced Quiet.", "TEST: reply done"].join("\n"), {
      config: "version: 1\nprogress: false\n"
    });
    await waitForStatus(agent, submissionId);
    const entries = await ended(agent, false);
    // The result's outcome label is no progress entry: it is there as for every result on an issue.
    expect(entries.map((entry) => entry.kind).sort()).toEqual(["closing", "label", "rocket"]);
    expect(progressComments(repo)).toEqual([]);
    expect(edits(repo)).toEqual([]);
    expect(closingComments(repo)).toHaveLength(1);
  });

  it("neutralizes a hostile plan step: no mention, no link to another site", async () => {
    const { agent, repo, submissionId } = await start(
      [plan(["Ask @alice about https://evil.example/steal and [this](https://evil.example/x)", "in_progress"]), "TEST: container echo waiting", "TEST: result reproduced Done.", "TEST: reply done"].join("\n"),
      // The run goes on once the plan's edit is out, so its end cannot drop it.
      { container: (container, repo) => container.during(/echo waiting/, async () => void (await until(() => edits(repo).some((call) => editBody(call).includes("Ask ")), "the plan's edit"))) }
    );
    await waitForStatus(agent, submissionId);
    await ended(agent);
    const withPlan = edits(repo).map(editBody).find((body) => body.includes("Ask "));
    expect(withPlan).toBeDefined();
    expect(withPlan).toContain("`@alice`");
    expect(withPlan).not.toMatch(/(^|[^`])@alice/);
    expect(withPlan).not.toContain("](https://evil.example");
    expect(withPlan).toContain("`https://evil.example/steal`");
  });

  it("still makes one progress comment and one closing comment across an eviction mid-run", async () => {
    const { agent, repo, session, submissionId } = await start(
      [plan(["Wait", "in_progress"]), "TEST: run sleep 1 && echo slept", plan(["Wait", "done"]), "TEST: result not-reproduced Works on main.", "TEST: reply done"].join("\n")
    );
    await waitForStatus(agent, submissionId, ["running"]);
    // Until the progress comment is posted: the eviction cuts the run after it.
    await until(() => progressComments(repo).length > 0, "the progress comment");
    await evict(agent);
    const revived = (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent;
    expect((await waitForStatus(revived, submissionId)).status).toBe("completed");
    await ended(revived);
    expect(progressComments(repo)).toHaveLength(1);
    expect(closingComments(repo)).toHaveLength(1);
    expect(progressComments(repo)[0]!.body).toContain("See the result below");
  });

  it("puts 🚀 on a pull request review comment through GitHub's pulls/comments reactions", async () => {
    const { agent, repo, submissionId } = await start("TEST: result reproduced Seen.\nTEST: reply done", {
      config: "version: 1\nprogress: false\n",
      pullRequest: { number: 7, reviewComment: { id: 777001, path: "src/app.ts", line: 3, diffHunk: "@@ -1,3 +1,3 @@" } }
    });
    await waitForStatus(agent, submissionId);
    await ended(agent, false);
    const reactions = github.callsFor(repo).filter((call) => call.path.endsWith("/reactions"));
    expect(reactions).toEqual([
      { method: "POST", path: `/repos/${repo}/pulls/comments/777001/reactions`, auth: `token ${TOKEN}`, body: { content: "rocket" } }
    ]);
  });
});
