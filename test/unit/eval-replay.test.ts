/**
 * Replays (docs/eval.md): the issue as it is opened, with no way back to the
 * original thread; the GitHub target's repository per case against the
 * GitHub stand-in, with real git (a source repository and bare
 * repositories to push to in a temporary directory, since the stand-in has
 * no git server): created at the case's pinned commit with the tags its
 * history holds, Actions off, the issue opened and the mention commented
 * there, deleted after the case whatever its verdict, reset when an earlier
 * run left it, never touched when the harness did not make it; and the
 * local target opening the case's issue on the stand-in and dispatching
 * only the maintainer's words.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { describe, expect, it } from "vitest";
import type { GitHubStandin } from "../../scripts/lib/github-standin";
import { parseCase, type EvalCase } from "../../scripts/lib/eval/case";
import { GitHubTarget } from "../../scripts/lib/eval/github-target";
import { LocalTarget } from "../../scripts/lib/eval/local-target";
import { replayedIssue } from "../../scripts/lib/eval/replay";
import { bareRepositoryUnder, ReplayGit } from "../../scripts/lib/eval/replay-git";
import { guardReplays, ReplayRepos } from "../../scripts/lib/eval/replay-repo";
import { caseInstruction, runEval } from "../../scripts/lib/eval/runner";
import { standinFixture } from "./standin-fixture";
import { fakeWorker } from "./eval-fake-worker";

const dirs: string[] = [];
const { start } = standinFixture(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const USER_TOKEN = "ghp_evalReplayTest000000000000000000000000";
const LINKED_BODY =
  "It wobbles, as in https://github.com/acme/widgets/issues/7 and acme/widgets#7 ([the thread](https://github.com/acme/widgets/issues/7#issuecomment-1)); the docs are at https://example.com/docs, see #3.";

function evalCase(id: string, overrides: Record<string, unknown> = {}): EvalCase {
  return parseCase(
    `evals/cases/${id}.json`,
    JSON.stringify({
      id,
      source: "https://github.com/acme/widgets/issues/7",
      repo: "acme/widgets",
      version: "1.0.0",
      issue: { title: "Widgets wobble (see acme/widgets#7)", body: LINKED_BODY },
      instruction: "reproduce this issue",
      expected: "reproduced",
      // 0.6 s: no bot answers here, so the case times out, a verdict that is not a pass.
      limits: { minutes: 0.01, usd: 1 },
      scripted: ["TEST: result reproduced It wobbles."],
      ...overrides
    })
  );
}

const run = (args: string[], cwd?: string) => execFileSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" } }).trim();

/** A source repository `acme/widgets` under `<dir>/sources`: v1.0.0, then the commit a case pins, then v2.0.0. */
function sourceRepository(): { dir: string; pinned: string } {
  const dir = mkdtempSync(join(tmpdir(), "agent-think-eval-replay-"));
  dirs.push(dir);
  const work = join(dir, "work");
  run(["init", "--quiet", "--initial-branch", "main", work]);
  const commit = (file: string, message: string) => {
    writeFileSync(join(work, file), `${message}\n`);
    run(["add", file], work);
    run(["-c", "user.name=Eval", "-c", "user.email=eval@example.com", "commit", "--quiet", "-m", message], work);
    return run(["rev-parse", "HEAD"], work);
  };
  commit("a.txt", "one");
  run(["tag", "v1.0.0"], work);
  const pinned = commit("b.txt", "two");
  commit("c.txt", "three");
  run(["tag", "v2.0.0"], work);
  run(["clone", "--bare", "--quiet", work, join(dir, "sources", "acme", "widgets.git")]);
  return { dir, pinned };
}

function target(github: GitHubStandin, dir: string, options: { keepOpen?: boolean; log?: string[] } = {}): GitHubTarget {
  return new GitHubTarget({
    owner: "acme",
    token: USER_TOKEN,
    git: new ReplayGit({ sourceBase: join(dir, "sources"), cacheDir: join(dir, "cache") }),
    pushUrl: (repo) => bareRepositoryUnder(join(dir, "pushed"), repo),
    apiUrl: github.url,
    dashboardUrl: "http://127.0.0.1:9",
    mention: "@agent-think",
    pollMs: 20,
    spaceWrites: false,
    ...(options.keepOpen ? { keepOpen: true } : {}),
    log: (line) => options.log?.push(line)
  });
}

/** The set-up and teardown alone, with the harness's guard and a quiet client. */
function replaysOn(github: GitHubStandin, dir: string, log: string[] = []): ReplayRepos {
  const octokit = new Octokit({ baseUrl: github.url, auth: USER_TOKEN, log: { debug() {}, info() {}, warn() {}, error() {} } });
  guardReplays(octokit, "acme");
  return new ReplayRepos({
    octokit,
    owner: "acme",
    token: USER_TOKEN,
    git: new ReplayGit({ sourceBase: join(dir, "sources"), cacheDir: join(dir, "cache") }),
    pushUrl: (repo) => bareRepositoryUnder(join(dir, "pushed"), repo),
    log: (line) => log.push(line)
  });
}

const api = (github: GitHubStandin, path: string) => fetch(`${github.url}${path}`, { headers: { authorization: `token ${USER_TOKEN}` } });

describe("the replayed issue", () => {
  it("keeps the report and takes out every way back to a GitHub thread, a link's text staying", () => {
    expect(replayedIssue(evalCase("a"))).toEqual({
      title: "Widgets wobble (see (link removed))",
      body: "It wobbles, as in (link removed) and (link removed) (the thread); the docs are at https://example.com/docs, see #3."
    });
    expect(replayedIssue(evalCase("b", { issue: { title: "t", body: "Fixed by other/lib!12 and https://github.com/other/lib/pull/12/files; [](https://github.com/o/r/discussions/4)" } })).body).toBe(
      "Fixed by (link removed) and (link removed); (link removed)"
    );
  });
});

describe("the GitHub target's repository per case, against the GitHub stand-in", () => {
  it("replays a case in its own repository at its pinned commit, and deletes it after a case that did not pass", async () => {
    const github = await start({ userLogin: "mona" });
    const { dir, pinned } = sourceRepository();
    const one = evalCase("wobble", { ref: pinned });
    const report = await runEval({ cases: [one], target: target(github, dir), scripted: true, concurrency: 1, costCapUsd: 10 });
    expect(report.cases[0]).toMatchObject({ id: "wobble", verdict: "timed-out" });
    expect(report.cases[0]!.issueUrl).toMatch(/\/acme\/agent-think-eval-wobble\/issues\/1$/);
    expect(report.against).toBe("acme/agent-think-eval-*");

    const records = github.records();
    const operations = records.map((record) => record.operation).filter((operation) => !operation?.startsWith("reactions/"));
    expect(operations).toEqual([
      "users/get-authenticated",
      "repos/create-in-org",
      "actions/set-github-actions-permissions-repository",
      "issues/create",
      "issues/create-comment",
      ...operations.slice(5, -2).filter((operation) => operation === "issues/list-comments"),
      "issues/create-comment",
      "repos/delete"
    ]);
    const body = (operation: string) => records.find((record) => record.operation === operation)!.body as Record<string, unknown>;
    expect(body("repos/create-in-org")).toMatchObject({ name: "agent-think-eval-wobble", private: true, description: expect.stringMatching(/^agent-think eval replay of case wobble/) });
    expect(body("actions/set-github-actions-permissions-repository")).toEqual({ enabled: false });
    // The issue is the report, with no way back to the original thread; the mention is the maintainer's words.
    expect(body("issues/create")).toEqual(replayedIssue(one));
    expect(JSON.stringify(body("issues/create"))).not.toMatch(/issues\/7|widgets#7/);
    expect(body("issues/create-comment")).toEqual({ body: `@agent-think ${caseInstruction(one, true)}` });
    expect(records.filter((record) => record.operation === "issues/create-comment").at(-1)!.body).toEqual({ body: "@agent-think stop" });

    // main is the pinned commit, with the tags its history holds (not the later release).
    const pushed = join(dir, "pushed", "acme", "agent-think-eval-wobble.git");
    expect(run(["rev-parse", "main"], pushed)).toBe(pinned);
    expect(run(["tag", "--list"], pushed).split("\n")).toEqual(["v1.0.0"]);
    // Gone, and its issue with it.
    expect((await api(github, "/repos/acme/agent-think-eval-wobble")).status).toBe(404);
    expect((await api(github, "/repos/acme/agent-think-eval-wobble/issues/1")).status).toBe(404);
    expect(github.refusals()).toEqual([]);
  });

  it("keeps the repository and labels its open issue with the verdict under --keep-open", async () => {
    const github = await start({ userLogin: "mona" });
    const { dir } = sourceRepository();
    const report = await runEval({ cases: [evalCase("kept")], target: target(github, dir, { keepOpen: true }), scripted: false, concurrency: 1, costCapUsd: 10 });
    expect(report.cases[0]).toMatchObject({ verdict: "timed-out" });
    const issue = (await (await api(github, "/repos/acme/agent-think-eval-kept/issues/1")).json()) as { state: string; labels: { name: string }[] };
    expect(issue.state).toBe("open");
    expect(issue.labels.map((label) => label.name)).toEqual(["agent-think-eval", "agent-think-eval:timed-out"]);
    expect(github.records().map((record) => record.operation)).not.toContain("repos/delete");
    // Without a ref, main is the source's default branch.
    expect(run(["log", "-1", "--format=%s", "main"], join(dir, "pushed", "acme", "agent-think-eval-kept.git"))).toBe("three");
    expect(github.refusals()).toEqual([]);
  });

  it("creates the repository for the token's own account when the owner is its login", async () => {
    const github = await start({ userLogin: "acme" });
    const { dir } = sourceRepository();
    const replays = replaysOn(github, dir);
    const { repo } = await replays.setUp(evalCase("own"));
    await replays.tearDown(repo);
    expect(github.records().map((record) => record.operation)).toEqual([
      "users/get-authenticated",
      "repos/create-for-authenticated-user",
      "actions/set-github-actions-permissions-repository",
      "repos/delete"
    ]);
    expect(github.refusals()).toEqual([]);
  });

  it("resets a repository an earlier run left, and never deletes one whose description does not say the harness made it", async () => {
    const github = await start({ userLogin: "mona" });
    const { dir, pinned } = sourceRepository();
    const post = (path: string, body: unknown) =>
      fetch(`${github.url}${path}`, { method: "POST", headers: { authorization: `token ${USER_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    await post("/orgs/acme/repos", { name: "agent-think-eval-left", description: "agent-think eval replay of case left; the eval harness deletes it after the case" });
    await post("/repos/acme/agent-think-eval-left/issues", { title: "An earlier run's issue" });
    await post("/orgs/acme/repos", { name: "agent-think-eval-mine", description: "my own work" });
    const log: string[] = [];
    const replays = replaysOn(github, dir, log);

    expect(await replays.setUp(evalCase("left", { ref: pinned }))).toEqual({ repo: "acme/agent-think-eval-left", sha: pinned });
    expect(log).toContain("  left: acme/agent-think-eval-left was left by an earlier run; deleting it to start afresh");
    expect((await api(github, "/repos/acme/agent-think-eval-left/issues/1")).status).toBe(404);
    expect((await api(github, "/repos/acme/agent-think-eval-left")).status).toBe(200);

    await expect(replays.setUp(evalCase("mine"))).rejects.toThrow(/acme\/agent-think-eval-mine exists and its description does not say the eval harness made it/);
    expect((await api(github, "/repos/acme/agent-think-eval-mine")).status).toBe(200);
    const deleted = github.records().filter((record) => record.operation === "repos/delete").map((record) => record.path);
    expect(deleted).toEqual(["/repos/acme/agent-think-eval-left"]);
  });

  it("creates nothing for a ref the source does not have, and deletes the repository again when a later step of the set-up fails", async () => {
    const github = await start({ userLogin: "mona" });
    const { dir } = sourceRepository();
    const log: string[] = [];
    const failing = new GitHubTarget({
      owner: "acme",
      token: USER_TOKEN,
      git: new ReplayGit({ sourceBase: join(dir, "sources"), cacheDir: join(dir, "cache") }),
      // Not a repository: the push fails after the repository was created.
      pushUrl: () => join(dir, "nowhere"),
      apiUrl: github.url,
      dashboardUrl: "http://127.0.0.1:9",
      mention: "@agent-think",
      spaceWrites: false,
      log: (line) => log.push(line)
    });
    const report = await runEval({ cases: [evalCase("bad-ref", { ref: "no-such-tag" }), evalCase("no-push")], target: failing, scripted: false, concurrency: 1, costCapUsd: 10 });
    expect(report.cases.map((result) => [result.id, result.verdict])).toEqual([
      ["bad-ref", "error"],
      ["no-push", "error"]
    ]);
    expect(report.cases[0]!.reason).toBe("the harness could not drive it: acme/widgets has no commit no-such-tag (the case's ref)");
    expect(report.cases[1]!.reason).toMatch(/^the harness could not drive it: git push failed/);
    const operations = github.records().map((record) => `${record.operation} ${record.path}`);
    expect(operations).toEqual([
      "users/get-authenticated /user",
      "repos/create-in-org /orgs/acme/repos",
      "actions/set-github-actions-permissions-repository /repos/acme/agent-think-eval-no-push/actions/permissions",
      "repos/delete /repos/acme/agent-think-eval-no-push"
    ]);
    expect(github.refusals()).toEqual([]);
  });
});

describe("the local target's issue", () => {
  it("opens the case's issue on the stand-in as a user's, numbered past earlier runs, and dispatches only the maintainer's words", async () => {
    const github = await start({ userLogin: "mona" });
    // The run never ends here: the case times out and is told to stop.
    const worker = await fakeWorker();
    const dispatched = worker.dispatched;
    try {
      const local = new LocalTarget({ baseUrl: worker.url, standinUrl: github.url, issueBase: 4000, pollMs: 20 });
      const one = evalCase("local");
      for (const _ of [1, 2]) {
        expect(await local.run({ case: one, instruction: caseInstruction(one, true), timeLimitMs: 200 })).toMatchObject({ kind: "timed-out" });
      }
      expect(dispatched.map((body) => [body.repo, body.issueNumber, body.instruction])).toEqual([
        ["acme/widgets", 4000, caseInstruction(one, true)],
        ["acme/widgets", 4000, "stop"],
        ["acme/widgets", 4001, caseInstruction(one, true)],
        ["acme/widgets", 4001, "stop"]
      ]);
      expect(dispatched[0]!.issueTitle).toBe(replayedIssue(one).title);
      const issue = (await (await api(github, "/repos/acme/widgets/issues/4000")).json()) as { title: string; body: string; user: { login: string; type: string } };
      expect(issue).toMatchObject({ ...replayedIssue(one), user: { login: "mona", type: "User" } });
      expect(github.refusals()).toEqual([]);
    } finally {
      await worker.close();
    }
  });

  it("says where it looked when the stand-in cannot be reached", async () => {
    const local = new LocalTarget({ baseUrl: "http://127.0.0.1:9", standinUrl: "http://127.0.0.1:9" });
    await expect(local.run({ case: evalCase("x"), instruction: "reproduce this issue", timeLimitMs: 100 })).rejects.toThrow(
      /^could not open the case's issue on the GitHub stand-in at http:\/\/127\.0\.0\.1:9 \(npm start runs one; --standin names another\)/
    );
  });
});
