/**
 * A case's pull request on the local target (docs/eval.md, "Pull requests"):
 * opened on the GitHub stand-in beside the case's issue, as the App's bot
 * from `agent-think/issue-<n>` or as the reporter from a branch of the
 * repository; the maintainer's words dispatched on the issue or on the pull
 * request, with what the webhook app would send, so the Worker's own reader
 * and write policy see the App's pull request, its own or someone else's.
 * A target that cannot open one skips the case, saying why.
 */
import { describe, expect, it } from "vitest";
import { parseCase, type EvalCase } from "../../scripts/lib/eval/case";
import { LocalTarget } from "../../scripts/lib/eval/local-target";
import { caseInstruction, runEval } from "../../scripts/lib/eval/runner";
import { NO_FIGURES, type EvalTarget } from "../../scripts/lib/eval/target";
import { STANDIN_BOT_USER_ID } from "../../scripts/lib/github-standin";
import { createRepoReader } from "../../src/github/repo-reader";
import { writePolicyFor } from "../../src/run/write-policy";
import { dispatchInputSchema } from "../../src/shared/dispatch";
import { fakeWorker } from "./eval-fake-worker";
import { standinFixture } from "./standin-fixture";

const { start } = standinFixture();

function evalCase(pullRequest: Record<string, unknown> | undefined, needs: string[] = pullRequest ? ["pull-request"] : []): EvalCase {
  return parseCase(
    "evals/cases/with-pull-request.json",
    JSON.stringify({
      id: "with-pull-request",
      source: "https://github.com/acme/widgets/issues/7",
      repo: "acme/widgets",
      version: "1.0.0",
      issue: { title: "Widgets wobble", body: "It wobbles." },
      instruction: "open a PR fixing this",
      expected: "pr-updated",
      // No bot answers here: the case times out, and is told to stop on the same issue or pull request.
      limits: { minutes: 0.01, usd: 1 },
      scripted: ["TEST: result pr-updated Scripted."],
      ...(pullRequest ? { pullRequest } : {}),
      ...(needs.length > 0 ? { needs } : {})
    })
  );
}

const PULL = { title: "Skip parts left empty", body: "A first attempt at a fix." };
const APP = "agent-think[bot]";

describe("a case's pull request on the local target", () => {
  it("opens the App's pull request for the issue, so the Worker's reader finds it, and dispatches on the issue as that App", async () => {
    const github = await start({ userLogin: "mona" });
    const worker = await fakeWorker();
    try {
      const local = new LocalTarget({ baseUrl: worker.url, standinUrl: github.url, issueBase: 4000, pollMs: 20 });
      const one = evalCase({ by: "app", mention: "issue", ...PULL });
      expect(await local.has("pull-request")).toBe(true);
      expect(await local.run({ case: one, instruction: caseInstruction(one, true), timeLimitMs: 200 })).toMatchObject({ kind: "timed-out" });
      expect(worker.dispatched.map((body) => [body.issueNumber, body.instruction, body.pullRequest, body.bot])).toEqual([
        [4000, caseInstruction(one, true), undefined, { login: APP, id: STANDIN_BOT_USER_ID }],
        [4000, "stop", undefined, { login: APP, id: STANDIN_BOT_USER_ID }]
      ]);
      const input = dispatchInputSchema.parse(worker.dispatched[0]);
      // What prepare.ts asks for the workspace block's openPullRequest, and the policy it then gives the run.
      const open = await createRepoReader({ baseUrl: github.url, token: "ghs_x" }).openPullRequest("acme/widgets", "agent-think/issue-4000", input.bot!.login);
      expect(open).toMatchObject({ number: 4001, branch: "agent-think/issue-4000" });
      expect(writePolicyFor({ repo: "acme/widgets", issueNumber: 4000, botLogin: input.bot!.login, openPullRequest: open! })).toMatchObject({ pushBranch: "agent-think/issue-4000", mayOpenPullRequest: false });
      const pull = (await (await fetch(`${github.url}/repos/acme/widgets/pulls/4001`)).json()) as { title: string; body: string; user: { login: string } };
      expect(pull).toMatchObject({ ...PULL, body: `${PULL.body}\n\nRefs #4000`, user: { login: APP } });
      expect(github.refusals()).toEqual([]);
    } finally {
      await worker.close();
    }
  });

  it("dispatches a mention on the App's own pull request, whose branch the run may push to, and on a person's, where it may not", async () => {
    const github = await start({ userLogin: "mona" });
    const worker = await fakeWorker();
    try {
      const local = new LocalTarget({ baseUrl: worker.url, standinUrl: github.url, issueBase: 5000, pollMs: 20 });
      for (const by of ["app", "user"] as const) {
        const one = evalCase({ by, mention: "pull-request", ...PULL });
        expect(await local.run({ case: one, instruction: caseInstruction(one, true), timeLimitMs: 200 })).toMatchObject({ kind: "timed-out" });
      }
      const [app, , user] = worker.dispatched.map((body) => dispatchInputSchema.parse(body));
      expect(worker.dispatched.map((body) => [body.issueNumber, body.instruction])).toEqual([
        [5001, caseInstruction(evalCase({ by: "app", mention: "pull-request", ...PULL }), true)],
        [5001, "stop"],
        [5003, caseInstruction(evalCase({ by: "user", mention: "pull-request", ...PULL }), true)],
        [5003, "stop"]
      ]);
      expect(app).toMatchObject({ issueTitle: PULL.title, bot: { login: APP }, pullRequest: { number: 5001, headRepo: "acme/widgets", headRef: "agent-think/issue-5000", baseRef: "main", fork: false, author: APP } });
      expect(user).toMatchObject({ pullRequest: { number: 5003, headRef: "fix/issue-5002", fork: false, author: "mona" } });
      expect(user!.bot).toBeUndefined();
      expect(app!.pullRequest!.headSha).toMatch(/^[0-9a-f]{40}$/);
      const policy = (input: typeof app) => writePolicyFor({ repo: input!.repo, issueNumber: input!.issueNumber, pullRequest: input!.pullRequest, botLogin: APP });
      expect(policy(app).pushBranch).toBe("agent-think/issue-5000");
      expect(policy(user).pushBranch).toBeNull();
      expect(github.refusals()).toEqual([]);
    } finally {
      await worker.close();
    }
  });

  it("is skipped, saying why, by a target that cannot open one; and a case says it needs one exactly when it has one", async () => {
    const one = evalCase({ by: "app", mention: "pull-request", ...PULL });
    const target: EvalTarget = {
      kind: "github",
      against: "acme",
      has: async () => false,
      run: async () => ({ kind: "ended", figures: NO_FIGURES }),
      fetchPage: async () => new Response(null, { status: 404 })
    };
    const report = await runEval({ cases: [one], target, scripted: true, concurrency: 1, costCapUsd: 1 });
    expect(report.cases.map((result) => [result.verdict, result.reason])).toEqual([["skipped", "it needs a pull request opened before the mention, which the github target cannot open"]]);
    expect(() => evalCase({ by: "app", mention: "issue", ...PULL }, [])).toThrow(/needs: must include "pull-request" exactly when the case has a pullRequest/);
    expect(() => evalCase(undefined, ["pull-request"])).toThrow(/needs: must include "pull-request"/);
  });
});
