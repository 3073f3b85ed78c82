/**
 * Reporting back on the issue, with real Think turns against a GitHub that
 * MSW plays: 🚀 once when a run's turn starts, and exactly one closing
 * message per run whatever way it ends (a result, a plain finish, an error,
 * exhausted recovery, a cancel, a spent budget), plus one stale notice for a
 * run that goes quiet. Exactly once holds across an eviction, a lost answer
 * from GitHub, retries and an expired token. The command center (`main`, where
 * these agents report) shows what the issue got, or why it got nothing.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sessionName } from "../src/shared/session-name";
import type { ThinkAgent } from "../src/agent";
import type { OutboxEntry } from "../src/report/outbox";
import { agentFor, commandRunning, evict, evictUntilGivenUp, gate, HANG_MS, uniqueRepo, until, waitForStatus, waitForThread, type TestAgent } from "./helpers";
import { containerFor, type RecordingContainer } from "./support/containers";
import { FakeGitHub, serveGitHub, TEST_BOT } from "./support/github";

const github = new FakeGitHub();
// Every test is also judged by GitHub's description: none passes on a request it would refuse.
serveGitHub(github, [], { onUnhandledRequest: "bypass" });

/**
 * A repository whose runs post no progress comment (`progress: false`): the
 * messages here are 🚀, the stale notice and the closing comment; the
 * progress comment has its own tests (test/progress.test.ts).
 */
function quietRepo(): string {
  const repo = uniqueRepo();
  github.addFile(repo, ".github/agent-think.yml", "version: 1\nprogress: false\n");
  return repo;
}

const TOKEN = "ghs_REPORTINGtestTOKEN000000000000000";
const COMMENT_ID = 424242;

type ReportingAgent = TestAgent &
  DurableObjectStub & {
    notices(): Promise<OutboxEntry[]>;
    deliverNotices(): Promise<void>;
  };

async function start(
  instruction: string,
  options: {
    namespace?: Env["ReportingThinkAgent"];
    commentId?: number;
    requestedBy?: string;
    /** Its container commands go to a recording container the test may hold; a hook reaches the agent through `fresh`. */
    container?: (container: RecordingContainer, fresh: () => Promise<ReportingAgent>) => void;
  } = {}
) {
  const repo = quietRepo();
  const session = sessionName(repo, 7);
  const namespace = options.namespace ?? env.ReportingThinkAgent;
  const agent = (await agentFor(session, namespace)) as unknown as ReportingAgent;
  if (options.container) options.container((await containerFor(session)).container, async () => (await agentFor(session, namespace)) as unknown as ReportingAgent);
  const { submissionId } = await agent.startRun({
    session,
    repo,
    issueNumber: 7,
    instruction,
    installationToken: TOKEN,
    commentId: options.commentId ?? COMMENT_ID,
    ...(options.requestedBy ? { requestedBy: { login: options.requestedBy } } : {})
  });
  return { agent, repo, session, submissionId };
}

/**
 * A run on an agent whose seams (budgets, the stale window) `configure` set
 * first; no triggering comment. With `container`, its container commands go
 * to a recording container the test may hold; a hook reaches the agent
 * through `fresh` (a stub is bound to the request that made it).
 */
async function startConfigured(
  configure: (instance: ThinkAgent) => void,
  instruction: string,
  container?: (container: RecordingContainer, fresh: () => Promise<ReportingAgent>) => void
) {
  const repo = quietRepo();
  const session = sessionName(repo, 7);
  const agent = (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent;
  await runInDurableObject(agent as unknown as DurableObjectStub<ThinkAgent>, configure);
  if (container) container((await containerFor(session)).container, async () => (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent);
  const { submissionId } = await agent.startRun({ session, repo, issueNumber: 7, instruction, installationToken: TOKEN });
  return { agent, repo, submissionId };
}

/** Wait until the outbox holds `count` entries and none is pending. */
async function settled(agent: ReportingAgent, count: number, timeoutMs = HANG_MS): Promise<OutboxEntry[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const entries = await agent.notices();
    if (entries.length >= count && entries.every((entry) => entry.state !== "pending")) return entries;
    if (Date.now() > deadline) throw new Error(`outbox did not settle: ${JSON.stringify(entries)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Wait until the closing notice has failed its first attempt and waits for a retry. */
async function firstAttemptFailed(agent: ReportingAgent): Promise<OutboxEntry> {
  const deadline = Date.now() + HANG_MS;
  for (;;) {
    const closing = (await agent.notices()).find((entry) => entry.kind === "closing");
    // The outbox counts an attempt before it is made: until its error is recorded the first post may still be on its way.
    if (closing?.state === "pending" && closing.attempts === 1 && closing.lastError !== undefined) return closing;
    if (Date.now() > deadline) throw new Error(`no failed first attempt: ${JSON.stringify(closing)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const commentBodies = (repo: string) => github.comments(repo, 7).map((comment) => comment.body);
const reactions = (repo: string) => github.callsFor(repo).filter((call) => call.path.endsWith("/reactions"));

/** The one comment on the issue, checked to be the only message of its kind. */
function onlyComment(repo: string): string {
  const bodies = commentBodies(repo);
  expect(bodies).toHaveLength(1);
  return bodies[0]!;
}

describe("reporting back on the issue", () => {
  it("reacts 🚀 when the turn starts and posts the skill's result once, as the App", async () => {
    const { agent, repo, session, submissionId } = await start(
      "TEST: run echo working\nTEST: result reproduced Clicking Save throws a TypeError.\nTEST: reply done"
    );
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
    const entries = await settled(agent, 3);
    // The outcome's label follows the closing comment (test/outcomes.test.ts has each outcome's).
    expect(entries.map((entry) => [entry.kind, entry.state])).toEqual([
      ["rocket", "sent"],
      ["closing", "sent"],
      ["label", "sent"]
    ]);
    expect(github.labels(repo, 7)).toEqual(["agent-think:reproduced"]);
    expect(reactions(repo)).toEqual([
      { method: "POST", path: `/repos/${repo}/issues/comments/${COMMENT_ID}/reactions`, auth: `token ${TOKEN}`, body: { content: "rocket" } }
    ]);
    const body = onlyComment(repo);
    expect(body).toContain(`<!-- agent-think:${submissionId}:closing -->`);
    expect(body).toContain("### ✅ Reproduced");
    expect(body).toContain("Clicking Save throws a TypeError.");
    expect(body).toContain(`https://agent-think.test/thread/${session}`);
    const posts = github.callsFor(repo).filter((call) => call.path.endsWith("/comments"));
    expect(posts.map((call) => call.auth)).toEqual([`token ${TOKEN}`]);
    const url = github.comments(repo, 7)[0]!.html_url;
    const shown = await waitForThread(session, (thread) => thread.issueMessages?.closing !== undefined && thread.issueMessages.rocket !== undefined);
    expect(shown).toMatchObject({ submissionId, status: "done" });
    expect(shown.issueMessages).toEqual({ rocket: { state: "sent" }, closing: { state: "sent", url } });
  });

  it("posts the final answer when the run finished without a structured result", async () => {
    const { agent, repo, submissionId } = await start("TEST: run echo hi\nTEST: reply I looked and found nothing wrong.");
    await waitForStatus(agent, submissionId);
    await settled(agent, 2);
    const body = onlyComment(repo);
    expect(body).toContain("**agent-think finished.**");
    expect(body).toContain("I looked and found nothing wrong.");
  });

  it("posts no 🚀 for a run without a triggering comment, and still closes it", async () => {
    const { agent, repo, submissionId } = await startConfigured(() => {}, "TEST: reply ok");
    await waitForStatus(agent, submissionId);
    expect((await settled(agent, 1)).map((entry) => entry.kind)).toEqual(["closing"]);
    expect(reactions(repo)).toEqual([]);
    expect(commentBodies(repo)).toHaveLength(1);
  });

  it("posts one result and one 🚀 across an eviction in the middle of the run", async () => {
    const { agent, repo, session, submissionId } = await start(
      "TEST: run sleep 1 && echo slept\nTEST: result not-reproduced Works on main.\nTEST: reply done"
    );
    await commandRunning(agent, submissionId, "sleep 1 && echo slept");
    await evict(agent);
    const revived = (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent;
    expect((await waitForStatus(revived, submissionId)).status).toBe("completed");
    await settled(revived, 2);
    expect(reactions(repo)).toHaveLength(1);
    expect(onlyComment(repo)).toContain("Works on main.");
  });

  it("finishes a run whose ending a restart cut off: Think ended it, the hook never ran to the end", async () => {
    const { agent, repo, session, submissionId } = await start("TEST: run echo one\nTEST: result reproduced It breaks.\nTEST: reply done");
    // The process dies after Think wrote the terminal status and before the ending was handled:
    // here the hook never returns for a terminal status, then the object is reset.
    await runInDurableObject(agent as unknown as DurableObjectStub<ThinkAgent>, (instance) => {
      const hook = (instance as unknown as { onSubmissionStatus(s: { status: string }): Promise<void> }).onSubmissionStatus.bind(instance);
      (instance as unknown as { onSubmissionStatus(s: { status: string }): Promise<void> }).onSubmissionStatus = (submission) =>
        submission.status === "running" ? hook(submission) : new Promise(() => {});
    });
    await until(async () => (await agent.submissionStatus(submissionId))?.status === "completed", "the run to complete");
    expect((await agent.notices()).map((entry) => entry.kind)).toEqual(["rocket"]);
    await evict(agent, "killed before the ending");

    // Any wake-up (here a read) starts the object, which finishes the open run.
    const revived = (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent;
    const entries = await settled(revived, 3);
    expect(entries.map((entry) => [entry.kind, entry.state])).toEqual([["rocket", "sent"], ["closing", "sent"], ["label", "sent"]]);
    expect(onlyComment(repo)).toContain("It breaks.");
    expect(await waitForThread(session)).toMatchObject({ submissionId, status: "done" });
  });

  it("posts once when GitHub took the comment but the answer was lost", async () => {
    github.failNext((call) => call.method === "POST" && call.path.endsWith("/7/comments"), "lost");
    const { agent, repo, submissionId } = await start("TEST: result needs-info Which version?\nTEST: reply done", { commentId: 9001 });
    await waitForStatus(agent, submissionId);
    // The first attempt failed as far as the agent knows; the retry finds the marker instead of posting again.
    await firstAttemptFailed(agent);
    await agent.deliverNotices();
    const [, closing] = await settled(agent, 2);
    expect(closing).toMatchObject({ kind: "closing", state: "sent", attempts: 2 });
    expect(onlyComment(repo)).toContain("Which version?");
    const listed = github.callsFor(repo).filter((call) => call.method === "GET" && call.path.endsWith("/comments"));
    expect(listed).toHaveLength(1);
  });

  it("retries a failed post on its schedule and posts once", async () => {
    github.failNext((call) => call.method === "POST" && call.path.endsWith("/7/comments"), 502);
    const { agent, repo, submissionId } = await start("TEST: reply done");
    await waitForStatus(agent, submissionId);
    const [, closing] = await settled(agent, 2, 20_000);
    expect(closing).toMatchObject({ state: "sent", attempts: 2 });
    expect(commentBodies(repo)).toHaveLength(1);
  });

  it("asks the token broker for a fresh token when GitHub says the run's token expired", async () => {
    github.failNext((call) => call.method === "POST" && call.path.endsWith("/7/comments"), 401);
    const { agent, repo, submissionId } = await start("TEST: reply done");
    await waitForStatus(agent, submissionId);
    await settled(agent, 2);
    const posts = github.callsFor(repo).filter((call) => call.method === "POST" && call.path.endsWith("/7/comments"));
    expect(posts.map((call) => call.auth)).toEqual([`token ${TOKEN}`, `token ghs_testMinted_${repo.replace(/\W/g, "_")}`]);
    expect(commentBodies(repo)).toHaveLength(1);
  });

  it("gives up on a post GitHub refuses, and records why", async () => {
    github.failNext((call) => call.method === "POST" && call.path.endsWith("/7/comments"), 404);
    const { agent, repo, session, submissionId } = await start("TEST: reply done");
    await waitForStatus(agent, submissionId);
    const [, closing] = await settled(agent, 2);
    expect(closing).toMatchObject({ state: "failed", attempts: 1, lastError: "GitHub comment: 404 failed by the test" });
    expect(commentBodies(repo)).toEqual([]);
    const shown = await waitForThread(session, (thread) => thread.issueMessages?.closing !== undefined);
    expect(shown).toMatchObject({ submissionId, status: "done" });
    expect(shown.issueMessages?.closing).toEqual({ state: "failed", error: "GitHub comment: 404 failed by the test" });
  });

  it("posts one failure notice with the last error and the thread link when the run errors", async () => {
    const { agent, repo, session, submissionId } = await start("TEST: run echo before\nTEST: fail the model is down");
    expect((await waitForStatus(agent, submissionId)).status).toBe("error");
    await settled(agent, 2);
    const body = onlyComment(repo);
    expect(body).toContain("❌ **agent-think could not finish this run.**");
    expect(body).toContain("the model is down");
    expect(body).toContain(`https://agent-think.test/thread/${session}`);
  });

  it("posts one interrupted notice when recovery is exhausted", async () => {
    // Evicted while the model is thinking: a recovery that makes no progress.
    // (Mid-tool, each recovery makes some: the re-issued command is answered
    // at once, src/run/command-replay.ts.)
    const { session, repo, submissionId } = await start("TEST: sleep 5000\nTEST: run echo one\nTEST: sleep 2000\nTEST: run echo two\nTEST: reply done", {
      namespace: env.FragileThinkAgent
    });
    const fresh = async () => (await agentFor(session, env.FragileThinkAgent)) as unknown as ReportingAgent;
    // Evict it, and each turn its recovery starts, until it gives up.
    await evictUntilGivenUp(fresh, submissionId);
    const agent = await fresh();
    const status = await waitForStatus(agent, submissionId);
    expect(status.status).toBe("error");
    await settled(agent, 2);
    const body = onlyComment(repo);
    expect(body).toContain("❌ **agent-think was interrupted and could not recover this run.**");
  });

  it("posts one notice when the run is cancelled, saying who stopped it without pinging them", async () => {
    // The run's command goes on once the run is aborted: it is cancelled while the command runs (the cancel's own end waits for it).
    let held: RecordingContainer | undefined;
    let cancelling = "";
    const { agent, repo, submissionId } = await start("TEST: container echo slow\nTEST: reply done", {
      container: (container, fresh) => {
        held = container;
        container.during(/echo slow/, async () => {
          await until(async () => (await (await fresh()).submissionStatus(cancelling))?.status === "aborted", "the cancel");
        });
      }
    });
    cancelling = submissionId;
    await until(() => held?.commands().includes("slow"), "the run's command");
    expect((await agent.cancelRun("stopped by @alice")).submissionIds).toEqual([submissionId]);
    expect((await waitForStatus(agent, submissionId)).status).toBe("aborted");
    await settled(agent, 2);
    expect(onlyComment(repo)).toContain("⏹️ **agent-think stopped this run (stopped by `@alice`).**");
  });

  it("ends a run that spends its token budget as budget exhausted, and says so once", async () => {
    const { agent, repo, submissionId } = await startConfigured((instance) => {
      instance.tokenBudget = 50;
    }, "TEST: tools 5");
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
    await settled(agent, 1);
    const body = onlyComment(repo);
    expect(body).toMatch(/⏸️ \*\*agent-think stopped this run: it used its token budget \([\d,]+ of 50 tokens\) before finishing\.\*\*/);
    const tools = (await agent.transcript()).flatMap((message) => message.parts).filter((part) => String(part.type).startsWith("tool-"));
    expect(tools).toHaveLength(1);
  });

  it("ends a run that spends its money budget as budget exhausted, says so once, and prices the run in the footer", async () => {
    const { agent, repo, submissionId } = await startConfigured((instance) => {
      // The scripted model costs nothing; priced at $100 per million tokens, each step (the run contract and the history, a few thousand tokens) costs tens of cents.
      instance.modelPrices = JSON.stringify({ scripted: { input: 100, cachedInput: 100, output: 100 } });
      instance.costBudget = 0.5;
      instance.tokenBudget = 0;
    }, "TEST: tools 50");
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
    await settled(agent, 1);
    const body = onlyComment(repo);
    expect(body).toMatch(/⏸️ \*\*agent-think stopped this run: it spent its budget \(\$0\.\d\d of \$0\.50\) before finishing\.\*\*/);
    expect(body).toMatch(/<sub>agent-think · \d+ seconds? · \d+ tool calls? · cost \$0\.\d\d · scripted demonstration: no model ran · \[thread\]/);
    const tools = (await agent.transcript()).flatMap((message) => message.parts).filter((part) => String(part.type).startsWith("tool-"));
    expect(tools.length).toBeLessThan(50);
  });

  it("ends a run that reaches the step cap as budget exhausted, and says so once", async () => {
    const { agent, repo, submissionId } = await startConfigured((instance) => {
      instance.maxSteps = 3;
    }, "TEST: tools 10");
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
    await settled(agent, 1);
    expect(onlyComment(repo)).toContain("it reached the step cap (3 steps) before finishing");
  });

  it("posts one stale notice for a run with no tool activity in the stale window, then its result", async () => {
    const { agent, repo, submissionId } = await startConfigured(
      (instance) => {
        instance.staleRunMs = 300;
      },
      "TEST: container echo late\nTEST: reply finished late",
      // The command goes quiet until the watchdog has noticed it.
      (container, fresh) =>
        container.during(/echo late/, async () => void (await until(async () => (await fresh()).notices().then((entries) => entries.some((entry) => entry.kind === "stale")), "the stale notice")))
    );
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
    const entries = await settled(agent, 2);
    expect(entries.map((entry) => entry.kind)).toEqual(["stale", "closing"]);
    const bodies = commentBodies(repo);
    expect(bodies).toHaveLength(2);
    expect(bodies.filter((body) => body.includes("has done nothing on this run"))).toHaveLength(1);
    expect(bodies[1]).toContain("finished late");
  });

  it("never puts the installation token in what it posts", async () => {
    const { agent, repo, submissionId } = await start(`TEST: run echo ${TOKEN}\nTEST: reply the token was ${TOKEN}`);
    await waitForStatus(agent, submissionId);
    await settled(agent, 2);
    const body = onlyComment(repo);
    expect(body).not.toContain(TOKEN);
    expect(body).toContain("[redacted]");
  });
});

/** A comment's text below its hidden marker line. */
const textOf = (body: string) => body.slice(body.indexOf("\n") + 1);

describe("addressing the requester", () => {
  it("opens the closing comment with a mention of who asked", async () => {
    const { agent, repo, submissionId } = await start("TEST: result reproduced It breaks.\nTEST: reply done", { requestedBy: "alice" });
    await waitForStatus(agent, submissionId);
    await settled(agent, 2);
    expect(textOf(onlyComment(repo)).startsWith("@alice\n\n### ✅ Reproduced\n\nIt breaks.")).toBe(true);
  });

  it("mentions each run's own requester when a later dispatch came in before the first run ended", async () => {
    // The first run's command waits until the second dispatch is in.
    const secondIn = gate();
    const { agent, repo, session, submissionId: first } = await start("TEST: container echo first\nTEST: reply first", {
      requestedBy: "alice",
      container: (container) => container.during(/echo first/, () => secondIn.promise)
    });
    await waitForStatus(agent, first, ["running"]);
    const { submissionId: second } = await agent.startRun({
      session,
      repo,
      issueNumber: 7,
      instruction: "TEST: reply second",
      installationToken: TOKEN,
      commentId: COMMENT_ID + 1,
      requestedBy: { login: "bob" }
    });
    secondIn.open();
    await waitForStatus(agent, first);
    await waitForStatus(agent, second);
    await settled(agent, 4);
    const texts = commentBodies(repo).map(textOf).sort();
    expect(texts.map((text) => text.split("\n")[0])).toEqual(["@alice", "@bob"]);
    expect(texts[0]).toContain("first");
    expect(texts[1]).toContain("second");
  });

  it("says a continuation was continued from the dashboard, still to the one who asked", async () => {
    const { agent, repo, submissionId } = await start("TEST: fail-once the model is down\nTEST: reply recovered", { requestedBy: "alice" });
    expect((await waitForStatus(agent, submissionId)).status).toBe("error");
    await settled(agent, 2);
    const continued = await (agent as unknown as { continueRun(input: { installationToken: string }): Promise<{ submissionId: string }> }).continueRun({
      installationToken: TOKEN
    });
    expect((await waitForStatus(agent, continued.submissionId)).status).toBe("completed");
    await settled(agent, 3);
    const texts = github.comments(repo, 7).map((comment) => textOf(comment.body));
    expect(texts).toHaveLength(2);
    expect(texts[0]!.startsWith("@alice\n\n❌ **agent-think could not finish this run.**")).toBe(true);
    expect(texts[1]!.startsWith("@alice — continued from the dashboard.\n\n**agent-think finished.**\n\nrecovered")).toBe(true);
  });

  it("says a continuation asked for on GitHub was continued from GitHub, still to the one who asked", async () => {
    const { agent, repo, submissionId } = await start("TEST: fail-once the model is down\nTEST: reply recovered", { requestedBy: "alice" });
    expect((await waitForStatus(agent, submissionId)).status).toBe("error");
    await settled(agent, 2);
    const continued = await (agent as unknown as { continueRun(input: { installationToken: string; fromGitHub: { login: string } }): Promise<{ submissionId: string }> }).continueRun({
      installationToken: TOKEN,
      fromGitHub: { login: "bob" }
    });
    expect((await waitForStatus(agent, continued.submissionId)).status).toBe("completed");
    await settled(agent, 3);
    const texts = github.comments(repo, 7).map((comment) => textOf(comment.body));
    expect(texts[1]!.startsWith("@alice — continued from GitHub.\n\n**agent-think finished.**\n\nrecovered")).toBe(true);
    expect(texts[1]).not.toContain("bob");
  });

  it("mentions no bot", async () => {
    const { agent, repo, submissionId } = await start("TEST: reply done", { requestedBy: "dependabot[bot]" });
    await waitForStatus(agent, submissionId);
    await settled(agent, 2);
    expect(textOf(onlyComment(repo)).startsWith("**agent-think finished.**")).toBe(true);
  });
});

describe("posting like a good citizen", () => {
  it("posts a final answer too long for GitHub cut to fit, saying so and linking the thread", async () => {
    const { agent, repo, session, submissionId } = await start(`TEST: reply ${"word ".repeat(14_000)}`);
    await waitForStatus(agent, submissionId);
    const [, closing] = await settled(agent, 2);
    expect(closing).toMatchObject({ state: "sent", attempts: 1 });
    const body = onlyComment(repo);
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body).toContain(`cut to fit GitHub's size limit. The full text is in [the run's thread](https://agent-think.test/thread/${session})`);
  });

  it("finds its comment on page 2 of 3 of a busy issue instead of posting it again", async () => {
    const repo = quietRepo();
    github.addComments(repo, 7, Array.from({ length: 120 }, (_, i) => `earlier ${i}`));
    github.failNext((call) => call.method === "POST" && call.path === `/repos/${repo}/issues/7/comments`, "lost");
    const session = sessionName(repo, 7);
    const agent = (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent;
    const { submissionId } = await agent.startRun({ session, repo, issueNumber: 7, instruction: "TEST: reply done", installationToken: TOKEN });
    await waitForStatus(agent, submissionId);
    await firstAttemptFailed(agent);
    github.addComments(repo, 7, Array.from({ length: 100 }, (_, i) => `later ${i}`));
    await agent.deliverNotices();
    const [closing] = await settled(agent, 1);
    expect(closing).toMatchObject({ kind: "closing", state: "sent", attempts: 2 });
    const ours = github.comments(repo, 7).filter((comment) => comment.user.login === TEST_BOT.login);
    expect(ours).toHaveLength(1);
    expect(github.comments(repo, 7)).toHaveLength(221);
    expect(closing!.url).toBe(ours[0]!.html_url);
    // It reads from the first page and stops at the one holding its comment.
    // (A pass cut short by another file's eviction may be run again: count pages, not calls.)
    const pages = github.callsFor(repo).filter((call) => call.method === "GET" && call.path.endsWith("/comments"));
    expect(new Set(pages.map((call) => github.queryOf.get(call)?.get("page") ?? "1"))).toEqual(new Set(["1", "2"]));
  });

  it("still posts when someone else pasted its marker on the issue", async () => {
    const repo = quietRepo();
    github.failNext((call) => call.method === "POST" && call.path === `/repos/${repo}/issues/7/comments`, 502);
    const session = sessionName(repo, 7);
    const agent = (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent;
    const { submissionId } = await agent.startRun({ session, repo, issueNumber: 7, instruction: "TEST: reply the answer", installationToken: TOKEN });
    await waitForStatus(agent, submissionId);
    await firstAttemptFailed(agent);
    const marker = `<!-- agent-think:${submissionId}:closing -->`;
    github.addComments(repo, 7, [`${marker}\nnothing to see here`]);
    github.addComments(repo, 7, [`${marker}\nanother app`], { login: "other-app[bot]", type: "Bot" });
    await agent.deliverNotices();
    const [closing] = await settled(agent, 1);
    expect(closing).toMatchObject({ state: "sent", attempts: 2 });
    const ours = github.comments(repo, 7).filter((comment) => comment.user.login === TEST_BOT.login);
    expect(ours).toHaveLength(1);
    expect(ours[0]!.body).toContain("the answer");
    expect(closing!.url).toBe(ours[0]!.html_url);
  });

  it("trusts only the run's bot in the marker search: the App GitHub named at dispatch, not the default", async () => {
    const repo = quietRepo();
    const bot = { login: "acme-think[bot]", id: 41898282 };
    github.failNext((call) => call.method === "POST" && call.path === `/repos/${repo}/issues/7/comments`, 502);
    const session = sessionName(repo, 7);
    const agent = (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent;
    const { submissionId } = await agent.startRun({ session, repo, issueNumber: 7, instruction: "TEST: reply the answer", installationToken: TOKEN, bot });
    await waitForStatus(agent, submissionId);
    await firstAttemptFailed(agent);
    // The default login's comment is another App's on this deploy; the run's bot's is ours.
    const marker = `<!-- agent-think:${submissionId}:closing -->`;
    github.addComments(repo, 7, [`${marker}\nagent-think's`], TEST_BOT);
    github.addComments(repo, 7, [`${marker}\nacme-think's`], { login: bot.login, type: "Bot" });
    await agent.deliverNotices();
    const [closing] = await settled(agent, 1);
    expect(closing).toMatchObject({ state: "sent", attempts: 2 });
    const ours = github.comments(repo, 7).filter((comment) => comment.user.login === bot.login);
    expect(closing!.url).toBe(ours[0]!.html_url);
    // Found, not posted again.
    expect(github.callsFor(repo).filter((call) => call.method === "POST")).toHaveLength(1);
  });

  it("waits as long as Retry-After says before trying again", async () => {
    const repo = quietRepo();
    const post = (call: { method: string; path: string }) => call.method === "POST" && call.path === `/repos/${repo}/issues/7/comments`;
    // Longer than the backoff's first wait (2 s), so the gap below is GitHub's asking.
    github.failNext(post, 503, { "retry-after": "3" });
    const session = sessionName(repo, 7);
    const agent = (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent;
    const { submissionId } = await agent.startRun({ session, repo, issueNumber: 7, instruction: "TEST: reply done", installationToken: TOKEN });
    await waitForStatus(agent, submissionId);
    const failed = await firstAttemptFailed(agent);
    // Held back for the three seconds asked, counted from GitHub's answer (the bounds hold however slow the machine).
    const [refused] = github.callsFor(repo).filter(post);
    expect(failed.notBefore).toBeGreaterThanOrEqual(github.arrivedAt.get(refused!)! + 3_000);
    expect(failed.notBefore).toBeLessThanOrEqual(Date.now() + 3_000);
    // A pass that comes early (a new notice, the backstop) leaves it alone. Read before the time came, it must
    // still be waiting; a machine too slow to get here in three seconds has nothing early to show.
    await agent.deliverNotices();
    const early = (await agent.notices())[0];
    if (Date.now() < failed.notBefore!) expect(early).toMatchObject({ state: "pending", attempts: 1 });
    const [closing] = await settled(agent, 1);
    expect(closing).toMatchObject({ state: "sent", attempts: 2 });
    const posts = github.callsFor(repo).filter(post);
    expect(posts).toHaveLength(2);
    expect(github.arrivedAt.get(posts[1]!)! - github.arrivedAt.get(posts[0]!)!).toBeGreaterThanOrEqual(2_900);
  });

  it("pings no one and links nowhere else with what the model wrote", async () => {
    const { agent, repo, submissionId } = await start(
      "TEST: reply Thanks @alice and @acme/maintainers, see other/repo#12 and [this](https://evil.test/phish)."
    );
    await waitForStatus(agent, submissionId);
    await settled(agent, 2);
    const body = onlyComment(repo);
    expect(body).toContain("Thanks `@alice` and `@acme/maintainers`, see `other/repo#12` and this (`https://evil.test/phish`).");
  });
});

