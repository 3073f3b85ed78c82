/**
 * `@agent-think continue` on GitHub, through the real entrypoint over real
 * Durable Object storage and real Think turns on the scripted model: the
 * issue's last failed run continues in place, as the dashboard's Continue
 * does, with the mention's own token, and the command center records who
 * continued it from GitHub and with which comment. With nothing to
 * continue (a new thread, a run still going, a last run that finished) the
 * dispatch is refused with a reason the webhook app shows on the issue, and
 * nothing is claimed, submitted or created.
 */
import { env, exports } from "cloudflare:workers";
import { listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { commandCenter } from "../src/command-center";
import type { RunContext } from "../src/run/run-context";
import { parseEnvelope } from "../src/run/envelope";
import { sessionName } from "../src/shared/session-name";
import { createService } from "../src/service";
import { isContinueRefusal } from "../src/shared/continue-refusal";
import { agentFor, gate, uniqueRepo, waitForStatus, waitForThread } from "./helpers";
import { containerFor } from "./support/containers";

const ISSUE = 41;
const FIRST_TOKEN = "ghs_first_run_token_00000000000";
const CONTINUE_TOKEN = "ghs_continue_mention_token_0000";

const dispatch = (repo: string, instruction: string, overrides: Record<string, unknown> = {}) =>
  exports.AgentThink.dispatch({ repo, issueNumber: ISSUE, instruction, installationToken: FIRST_TOKEN, ...overrides });

/**
 * A maintainer's `continue` comment: its own id, author and fresh token. A
 * refusal is asked of the service in this isolate (the entrypoint's method
 * is the service's): an RPC method that throws is printed by workerd as an
 * "uncaught exception" even when the caller catches it.
 */
const continueMention = (repo: string, instruction = "continue", commentId = 555, via: "rpc" | "service" = "rpc") =>
  (via === "rpc" ? exports.AgentThink : createService(env)).dispatch({
    repo,
    issueNumber: ISSUE,
    instruction,
    installationToken: CONTINUE_TOKEN,
    installationTokenExpiresAt: "2031-01-01T00:00:00Z",
    commentId,
    requestedBy: { login: "maintainer-bob" }
  });
const refusedMention = (repo: string, instruction: string, commentId?: number) => refusal(continueMention(repo, instruction, commentId, "service"));

const refusal = (promise: Promise<unknown>) => promise.then(
  () => {
    throw new Error("expected a refusal");
  },
  (error: unknown) => error as Error
);

async function storedRun(agent: DurableObjectStub): Promise<RunContext | undefined> {
  return runInDurableObject(agent, (_instance, state) => state.storage.get<RunContext>("agent-think:run-context"));
}

/**
 * The issue's run, failed at its first step; continued, it answers. With
 * `tokenRead`, the continued run's one command waits until that opens, so
 * the test reads the token it holds while it runs.
 */
async function failedRun(repo: string, tokenRead?: { promise: Promise<void> }) {
  let instruction = "TEST: fail-once the model fell over\nTEST: reply recovered";
  if (tokenRead) {
    const { container } = await containerFor(sessionName(repo, ISSUE));
    container.during(/echo continuing/, () => tokenRead.promise);
    instruction = "TEST: fail-once the model fell over\nTEST: container echo continuing\nTEST: reply recovered";
  }
  const first = await dispatch(repo, instruction, { commentId: 100, requestedBy: { login: "octocat" } });
  const agent = await agentFor(first.session);
  expect((await waitForStatus(agent, first.submissionId)).status).toBe("error");
  await waitForThread(first.session, (thread) => thread.status === "error");
  return { ...first, agent };
}

describe("continue on GitHub", () => {
  it("continues the failed run in place with the mention's token, recorded as continued from GitHub by that login", async () => {
    const repo = uniqueRepo();
    const tokenRead = gate();
    const { session, submissionId, agent } = await failedRun(repo, tokenRead);

    const continued = await continueMention(repo, "Continue.");
    expect(continued.session).toBe(session);
    expect(continued.submissionId).not.toBe(submissionId);
    // The mention's token, not a minted one, with its expiry.
    expect(await storedRun(agent)).toMatchObject({ installationToken: CONTINUE_TOKEN, tokenExpiresAt: Date.parse("2031-01-01T00:00:00Z") });
    tokenRead.open();
    expect((await waitForStatus(agent, continued.submissionId)).status).toBe("completed");

    // The same session: the continuation's envelope says which run it continues, and repeats that run's instruction and requester.
    const envelopes = (await agent.transcript())
      .filter((message) => message.role === "user")
      .map((message) => parseEnvelope(String(message.parts[0]?.text)));
    expect(envelopes).toMatchObject([
      { session, requestedBy: { login: "octocat" } },
      { session, continuationOf: submissionId, requestedBy: { login: "octocat" } }
    ]);

    // The facts the closing comment reads: a continuation, asked for on GitHub by that login.
    const submissions = (await agent.listSubmissions()) as Array<{ submissionId: string; metadata?: Record<string, unknown> }>;
    const commentUrl = `https://github.com/${repo}/issues/${ISSUE}#issuecomment-555`;
    expect(submissions.find((entry) => entry.submissionId === continued.submissionId)?.metadata).toEqual({
      continuation: true,
      requestedBy: "octocat",
      fromGitHub: { login: "maintainer-bob", commentUrl }
    });

    const thread = await waitForThread(session, (summary) => summary.status === "done");
    expect(thread).toMatchObject({ runCount: 2, submissionId: continued.submissionId, continuedFromGitHub: { login: "maintainer-bob", commentUrl } });
    expect(thread.continuedBy).toBeUndefined();
    const detail = await (await commandCenter(env)).threadDetail(session);
    expect(detail?.runs.map((run) => [run.submissionId, run.status, run.continuedFromGitHub])).toEqual([
      [continued.submissionId, "done", { login: "maintainer-bob", commentUrl }],
      [submissionId, "error", undefined]
    ]);
  });

  it("links a continue asked in a pull request's review comment to that comment", async () => {
    const repo = uniqueRepo();
    const { session, agent } = await failedRun(repo);
    const reviewComment = { id: 284_312_630, path: "src/parse.ts", line: 4, side: "RIGHT", diffHunk: "@@ -1 +1 @@\n-old\n+new" };
    const continued = await exports.AgentThink.dispatch({
      repo,
      issueNumber: ISSUE,
      instruction: "please continue",
      installationToken: CONTINUE_TOKEN,
      requestedBy: { login: "maintainer-bob" },
      pullRequest: { number: ISSUE, reviewComment }
    });
    expect((await waitForStatus(agent, continued.submissionId)).status).toBe("completed");
    const thread = await waitForThread(session, (summary) => summary.status === "done");
    expect(thread.continuedFromGitHub).toEqual({ login: "maintainer-bob", commentUrl: `https://github.com/${repo}/pull/${ISSUE}#discussion_r284312630` });
  });

  it("refuses with a reason when the thread is new, creating no agent and no thread", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, ISSUE);
    const refused = await refusedMention(repo, "please continue");
    expect(isContinueRefusal(refused)).toBe(true);
    expect(refused.message).toBe("nothing to continue: agent-think has no run on this issue yet. Mention it with an instruction to start one.");
    const id = env.ThinkAgent.idFromName(session);
    expect((await listDurableObjectIds(env.ThinkAgent)).some((known) => known.equals(id))).toBe(false);
    expect(await (await commandCenter(env)).hasThread(session)).toBe(false);
  });

  it("refuses while the run is still going, and once it finished, changing nothing", async () => {
    const repo = uniqueRepo();
    // The run's command goes on once the test has been refused while it runs.
    const { container } = await containerFor(sessionName(repo, ISSUE));
    const refused = gate();
    container.during(/echo going/, () => refused.promise);
    const first = await dispatch(repo, "TEST: container echo going\nTEST: reply done", { commentId: 200 });
    const agent = await agentFor(first.session);
    await waitForThread(first.session, (thread) => thread.status === "running");

    const going = await refusedMention(repo, "continue", 201);
    expect(going.message).toMatch(/^nothing to continue: the run on this issue is still going\./);
    expect(await agent.listSubmissions()).toHaveLength(1);
    refused.open();

    expect((await waitForStatus(agent, first.submissionId)).status).toBe("completed");
    const done = await waitForThread(first.session, (thread) => thread.status === "done");
    const finished = await refusedMention(repo, "continue!", 202);
    expect(finished.message).toMatch(/^nothing to continue: the last run on this issue finished\./);
    expect(await agent.listSubmissions()).toHaveLength(1);
    const after = await waitForThread(first.session);
    expect(after).toMatchObject({ status: "done", runCount: 1, submissionId: first.submissionId, lastActivityAt: done.lastActivityAt });
    expect(after.continuedFromGitHub).toBeUndefined();
  });

  it("takes `continue with the fix` for an instruction: a new run, not a continuation", async () => {
    const repo = uniqueRepo();
    const { session, submissionId, agent } = await failedRun(repo);
    const next = await dispatch(repo, "continue with the fix\nTEST: reply new work", { commentId: 300 });
    expect(next.submissionId).not.toBe(submissionId);
    expect((await waitForStatus(agent, next.submissionId)).status).toBe("completed");
    const envelopes = (await agent.transcript())
      .filter((message) => message.role === "user")
      .map((message) => parseEnvelope(String(message.parts[0]?.text)));
    expect(envelopes.at(-1)).toMatchObject({ session, instruction: expect.stringContaining("continue with the fix") });
    expect(envelopes.at(-1)?.continuationOf).toBeUndefined();
  });
});
