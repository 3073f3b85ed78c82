/**
 * A CI follow-up (a dispatch with `ci`) through the real service over real
 * Durable Object storage and real Think turns on the scripted model: while
 * the pull request's thread has a run going on it is refused with the
 * typed error the webhook app recognises after RPC, before anything is
 * written (no new submission, the thread unchanged); with nothing going on
 * it starts a run like any dispatch. The refusal is asked of the service in
 * this isolate: workerd prints an RPC method that throws as uncaught.
 */
import { env, exports } from "cloudflare:workers";
import { listDurableObjectIds } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { commandCenter } from "../src/command-center";
import { sessionName } from "../src/shared/session-name";
import { createService } from "../src/service";
import { CI_REFUSAL, CiFixNotAcceptedError, CiRunInProgressError, isCiRefusal } from "../src/shared/ci-refusal";
import { CI_FIX_INSTRUCTION } from "../src/shared/dispatch";
import { agentFor, gate, uniqueRepo, waitForStatus, waitForThread } from "./helpers";
import { containerFor } from "./support/containers";

const PULL = 52;
const HEAD = "c".repeat(40);
const pullRequest = { number: PULL, headRef: "agent-think/issue-51", headSha: HEAD, baseRef: "main", fork: false, author: "agent-think[bot]" };
const ci = { headSha: HEAD, failures: [{ name: "test", conclusion: "failure" as const, excerpt: "FAIL x.test.ts" }] };
const ciDispatch = (repo: string) => ({ repo, issueNumber: PULL, instruction: CI_FIX_INSTRUCTION, installationToken: "", pullRequest, ci });

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error("expected a refusal");
    },
    (error: unknown) => error as Error
  );

describe("a CI follow-up at dispatch", () => {
  it("is refused while a run is going on in the thread, writing nothing", async () => {
    const repo = uniqueRepo();
    // The run's command goes on once the follow-up has been refused while it runs.
    const { container } = await containerFor(sessionName(repo, PULL));
    const refusedMeanwhile = gate();
    container.during(/echo going/, () => refusedMeanwhile.promise);
    const first = await exports.AgentThink.dispatch({ repo, issueNumber: PULL, instruction: "TEST: container echo going\nTEST: reply done", installationToken: "", commentId: 7, pullRequest });
    const agent = await agentFor(first.session);
    const running = await waitForThread(first.session, (thread) => thread.status === "running");

    const refused = await refusal(createService(env).dispatch(ciDispatch(repo)));
    expect(isCiRefusal(refused)).toBe(true);
    expect(refused).toBeInstanceOf(CiRunInProgressError);
    expect(refused.message.startsWith(CI_REFUSAL)).toBe(true);
    expect(refused.message).toContain(first.session);
    expect(await agent.listSubmissions()).toHaveLength(1);
    refusedMeanwhile.open();
    expect(await waitForThread(first.session)).toMatchObject({ runCount: running.runCount, submissionId: first.submissionId });

    // Once the run ended, the same follow-up starts a run in the same session.
    expect((await waitForStatus(agent, first.submissionId)).status).toBe("completed");
    await waitForThread(first.session, (thread) => thread.status === "done");
    const started = await createService(env).dispatch(ciDispatch(repo));
    expect(started.session).toBe(first.session);
    expect(started.submissionId).not.toBe(first.submissionId);
    expect((await waitForStatus(agent, started.submissionId)).status).toBe("completed");
  });

  it("is refused on a repository CI_FIX_REPOS does not accept, whatever its thread, writing nothing", async () => {
    const repo = uniqueRepo();
    for (const accepted of ["", "someone/else", "*,x"]) {
      const refused = await refusal(createService({ ...env, CI_FIX_REPOS: accepted }).dispatch(ciDispatch(repo)));
      expect(isCiRefusal(refused)).toBe(true);
      expect(refused).toBeInstanceOf(CiFixNotAcceptedError);
      expect(refused.message).toBe(`${CI_REFUSAL} ${repo} is not in CI_FIX_REPOS: the operator has not accepted CI follow-ups there, whose pushes run the repository's CI with its secrets`);
    }
    expect(await (await agentFor(sessionName(repo, PULL))).listSubmissions()).toEqual([]);
    // Named, it is accepted like every repository under "*".
    const started = await createService({ ...env, CI_FIX_REPOS: `other/one, ${repo.toUpperCase()}` }).dispatch(ciDispatch(repo));
    expect((await waitForStatus(await agentFor(started.session), started.submissionId)).status).toBe("completed");
  });

  it("starts a run on a pull request agent-think has no thread for yet", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, PULL);
    expect(await (await commandCenter(env)).hasThread(session)).toBe(false);
    const started = await exports.AgentThink.dispatch(ciDispatch(repo));
    expect(started.session).toBe(session);
    const agent = await agentFor(session);
    expect((await waitForStatus(agent, started.submissionId)).status).toBe("completed");
  });

  it("is refused for a ci field without its pull request before any object is touched", async () => {
    const repo = uniqueRepo();
    const { pullRequest: _, ...alone } = ciDispatch(repo);
    const refused = await refusal(createService(env).dispatch(alone));
    expect(refused.message).toBe("invalid input: ci: needs pullRequest: a CI follow-up is about a pull request");
    const id = env.ThinkAgent.idFromName(sessionName(repo, PULL));
    expect((await listDurableObjectIds(env.ThinkAgent)).some((known) => known.equals(id))).toBe(false);
  });
});
