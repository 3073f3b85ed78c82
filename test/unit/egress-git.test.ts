/**
 * The egress gateway's refusals, proved with the real counterparts a
 * sandbox has: this machine's `git`, `gh`, `curl` and `bash`, reaching
 * GitHub only through the gateway (test/support/egress-proxy.ts, as
 * `http_proxy`), in front of a real smart-HTTP git server
 * (git-http-backend, test/support/git-http-server.ts) and a recording API
 * stub (test/support/github-api-stub.ts). GitHub's compare API, which the
 * gateway asks before a push moves the run's branch past what the pack
 * shows, is answered by the git server from its repository with `git
 * merge-base --is-ancestor` and recorded (`compareCalls`): a model of
 * GitHub's answers, not GitHub.
 *
 * The sandbox holds no credential: a temp HOME with no credential helper,
 * and `GH_TOKEN` a placeholder the servers do not know. The run may push
 * only `agent-think/issue-7` of acme/widgets. Each test starts its own
 * servers and repositories and clones through the gateway, then checks
 * what git and gh print, what the gateway recorded as refused, and what the
 * servers hold afterwards: every ref of the repository byte for byte, and
 * no write reaching the API. Each spelling runs twice: as a command line
 * under bash, and down the model's bash path (the Worker's command guard,
 * then ContainerCommands' wrapper and identity guard, this machine's bash as
 * the container's shell). The gateway's pure pieces have their own tests;
 * this file is about what real clients do with its answers.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, type ExpectStatic, expect, it } from "vitest";
import { ContainerCommands } from "../../src/pool/container-commands";
import { refusal, writePolicyFor } from "../../src/run/write-policy";
import { grantFor } from "../../src/egress/grant";
import { EgressProxy, SANDBOX_GITHUB } from "../support/egress-proxy";
import { GitHttpServer } from "../support/git-http-server";
import { lacks, needs } from "../support/external-tools";
import { GitHubApiStub } from "../support/github-api-stub";

const REPO = "acme/widgets";
const OTHER_REPO = "acme/other";
const PUSH_BRANCH = "agent-think/issue-7";
const REMOTE = `${SANDBOX_GITHUB.web}/${REPO}.git`;
/** What the sandbox's gh is given instead of a token: nothing any server accepts. */
const NO_CREDENTIAL = "agent-think-no-credential";
/** Past git's http.postBuffer (1 MiB), where git sends a probe before the pack. */
const LARGE_PUSH_BYTES = 2 * 1024 * 1024;
/** One git or gh command; a hang is a failure, not a stuck suite. */
const COMMAND_TIMEOUT_MS = 20_000;

type Result = { code: number; output: string };
/** A child's whole environment: built here, nothing inherited but PATH. */
type Environment = Record<string, string | undefined>;

type World = {
  git: GitHttpServer;
  api: GitHubApiStub;
  proxy: EgressProxy;
  readToken: string;
  writeToken: string;
  dir: string;
  clone: string;
  env: Environment;
  /** A command line as the model's bash runs it, in the clone. */
  bash: (line: string, extraEnv?: Environment) => Promise<Result>;
  /** git in the clone. */
  gitIn: (...args: string[]) => Promise<Result>;
  head: () => Promise<string>;
  /** The git server's object id for `ref`, undefined when it has no such ref. */
  refOf: (ref: string, repo?: string) => string | undefined;
};

/** Async, never spawnSync: the servers answering these commands run on this process's event loop. */
function run(file: string, args: string[], options: { cwd: string; env: Environment }): Promise<Result> {
  return new Promise((resolve) => {
    // NodeJS.ProcessEnv is widened by the Worker's types to require its variables; a child here has none of them.
    execFile(file, args, { ...options, env: options.env as NodeJS.ProcessEnv, timeout: COMMAND_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}${stderr}` });
    });
  });
}

async function startWorld(pushBranch: string | null = PUSH_BRANCH): Promise<World> {
  const readToken = `read-${crypto.randomUUID()}`;
  const writeToken = `write-${crypto.randomUUID()}`;
  const dir = mkdtempSync(join(tmpdir(), "agent-think-egress-"));
  const started: { close(): Promise<void> }[] = [];
  try {
    const git = await GitHttpServer.start({ readToken, writeToken });
    started.push(git);
    const api = await GitHubApiStub.start();
    started.push(api);
    git.createRepo(REPO);
    // GitHub's compare API, which the gateway asks before a push moves the run's branch past the pack, is answered by the
    // git server from the repository it holds (git merge-base --is-ancestor); every other API request reaches the stub.
    const apiOrigin = await git.startApi(api.origin);
    const grant = grantFor({ submissionId: "submission-1", repo: REPO, pushBranch, readToken, writeToken });
    const proxy = await EgressProxy.start({ gitOrigin: git.origin, apiOrigin, grant });
    started.push(proxy);

    const home = join(dir, "home");
    const temp = join(dir, "tmp");
    mkdirSync(home);
    mkdirSync(temp);
    // Who commits, and nothing else: no credential helper, no stored token.
    writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = Sandbox\n\temail = sandbox@example.invalid\n");
    const env: Environment = {
      PATH: process.env.PATH,
      HOME: home,
      // gh keeps its API cache in the temp dir; each test gets its own.
      TMPDIR: temp,
      LANG: "C",
      LC_ALL: "C",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_TERMINAL_PROMPT: "0",
      http_proxy: proxy.url,
      HTTP_PROXY: proxy.url,
      no_proxy: "",
      NO_PROXY: "",
      GH_HOST: "github.localhost",
      GH_TOKEN: NO_CREDENTIAL,
      GH_ENTERPRISE_TOKEN: NO_CREDENTIAL,
      GH_NO_UPDATE_NOTIFIER: "1",
      GH_PROMPT_DISABLED: "1",
      NO_COLOR: "1"
    };
    const cloned = await run("git", ["clone", "-q", REMOTE, "clone"], { cwd: dir, env });
    if (cloned.code !== 0) throw new Error(`clone through the gateway failed:\n${cloned.output}`);
    const clone = join(dir, "clone");
    const world: World = {
      git,
      api,
      proxy,
      readToken,
      writeToken,
      dir,
      clone,
      env,
      bash: (line, extraEnv = {}) => run("bash", ["-c", line], { cwd: clone, env: { ...env, ...extraEnv } }),
      gitIn: (...args) => run("git", args, { cwd: clone, env }),
      head: async () => (await run("git", ["rev-parse", "HEAD"], { cwd: clone, env })).output.trim(),
      refOf: (ref, repo = REPO) => git.refs(repo).find((one) => one.ref === ref)?.oid
    };
    // A new commit on main, so every push below carries a pack.
    const committed = await world.gitIn("commit", "-q", "--allow-empty", "-m", "change");
    if (committed.code !== 0) throw new Error(`commit failed:\n${committed.output}`);
    return world;
  } catch (error) {
    await Promise.all(started.map((server) => server.close()));
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

async function stopWorld(world: World): Promise<void> {
  await Promise.all([world.proxy.close(), world.api.close()]);
  await world.git.close();
  rmSync(world.dir, { recursive: true, force: true });
}

/** git's http-backend serves every test; gh only the spellings and checks that run it. */
const noServer = lacks("git-http-backend");
const noGh = lacks("gh");
const usesGh = (line: string) => /(^|[\s;&|$(])gh\s/.test(line);

/** Each test gets its own servers, repository, clone and HOME, so they run side by side. */
const test = it.extend<{ world: World }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  world: async ({}, use) => {
    const world = await startWorld();
    try {
      await use(world);
      expect(world.proxy.errors, "the gateway threw").toEqual([]);
    } finally {
      await stopWorld(world);
    }
  }
});

/** The same, for a reporter-tier run: its grant from its write policy (no push branch). */
const reporterTest = it.extend<{ world: World }>({
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads a fixture's dependencies from this pattern
  world: async ({}, use) => {
    const world = await startWorld(writePolicyFor({ repo: REPO, issueNumber: 7, botLogin: "agent-think[bot]", tier: "reporter" }).pushBranch);
    try {
      await use(world);
      expect(world.proxy.errors, "the gateway threw").toEqual([]);
    } finally {
      await stopWorld(world);
    }
  }
});

/** Each test runs a dozen git and gh processes; side by side they wait on each other. */
const TEST_TIMEOUT_MS = 30_000;

describe(`the run's branch${needs("git-http-backend")}`, { concurrent: true, skip: noServer, timeout: TEST_TIMEOUT_MS }, () => {
  test("a push creating agent-think/issue-7, then one moving it, lands with the write token the gateway attaches", async ({ world, expect }) => {
    const first = await world.head();
    const created = await world.gitIn("push", "origin", `HEAD:${PUSH_BRANCH}`);
    expect(created.code, created.output).toBe(0);
    expect(created.output).toContain(`[new branch]      HEAD -> ${PUSH_BRANCH}`);
    expect(world.refOf(`refs/heads/${PUSH_BRANCH}`)).toBe(first);

    await world.gitIn("commit", "-q", "--allow-empty", "-m", "more");
    const second = await world.head();
    const moved = await world.gitIn("push", "origin", `HEAD:${PUSH_BRANCH}`);
    expect(moved.code, moved.output).toBe(0);
    expect(moved.output).toContain(`${first.slice(0, 7)}..${second.slice(0, 7)}  HEAD -> ${PUSH_BRANCH}`);
    expect(world.refOf(`refs/heads/${PUSH_BRANCH}`)).toBe(second);

    const pushes = world.git.requests.filter((request) => request.path.includes("receive-pack"));
    expect(pushes).toHaveLength(4);
    expect(pushes.every((request) => request.token === "write" && request.status === 200)).toBe(true);
    expect(world.proxy.refusals).toEqual([]);
  });

  test("a push past git's 1 MiB post buffer, which git probes for first, lands: created, then moved forward", async ({ world, expect }) => {
    for (const name of ["large.bin", "larger.bin"]) {
      // Incompressible, so the pack is as large as the file.
      writeFileSync(join(world.clone, name), randomBytes(LARGE_PUSH_BYTES));
      const committed = await world.bash(`git add ${name} && git commit -q -m ${name}`);
      expect(committed.code, committed.output).toBe(0);
      const head = await world.head();
      const pushed = await world.gitIn("push", "origin", `HEAD:${PUSH_BRANCH}`);
      expect(pushed.code, pushed.output).toBe(0);
      expect(world.refOf(`refs/heads/${PUSH_BRANCH}`)).toBe(head);
    }
    // The second push was checked in its pack (the commit before the blob) and sent on whole.
    expect(world.git.compareCalls).toEqual([]);
    expect(world.proxy.refusals).toEqual([]);
  });
});

const NOT_FAST_FORWARD = `push refused: not a fast-forward of ${PUSH_BRANCH} (the gateway refuses force pushes; fetch, merge or rebase onto what GitHub has, and push again)`;

describe(`the run's branch moves only forward: a force push is refused, whatever git is told${needs("git-http-backend")}`, { concurrent: true, skip: noServer, timeout: TEST_TIMEOUT_MS }, () => {
  /** Push HEAD to the run's branch (creating it), and return what the server then holds. */
  const pushed = async (world: World): Promise<string> => {
    const created = await world.gitIn("push", "-q", "origin", `HEAD:${PUSH_BRANCH}`);
    if (created.code !== 0) throw new Error(created.output);
    return world.refOf(`refs/heads/${PUSH_BRANCH}`)!;
  };

  const expectForceRefused = (world: World, output: string, before: string, reason: string | RegExp) => {
    expect(output).toContain(`! [remote rejected] HEAD -> ${PUSH_BRANCH} (`);
    if (typeof reason === "string") expect(output).toContain(reason);
    else expect(output).toMatch(reason);
    expect(world.refOf(`refs/heads/${PUSH_BRANCH}`)).toBe(before);
    expect(world.proxy.refusals).toHaveLength(1);
    expect(world.proxy.refusals[0]).toMatchObject({ submissionId: "submission-1", host: "github.localhost", method: "POST" });
    expect(world.proxy.refusals[0]!.reason).toMatch(reason);
  };

  test("a fast-forward lands, decided from the pushed commits alone", async ({ world, expect }) => {
    const before = await pushed(world);
    await world.gitIn("commit", "-q", "--allow-empty", "-m", "next");
    const after = await pushed(world);
    expect(after).not.toBe(before);
    expect(await world.head()).toBe(after);
    expect(world.git.compareCalls).toEqual([]);
    expect(world.proxy.refusals).toEqual([]);
  });

  test("git push --force of an amended commit is refused; GitHub was asked about its parent, with the write token", async ({ world, expect }) => {
    const before = await pushed(world);
    const amended = await world.gitIn("commit", "-q", "--amend", "--allow-empty", "-m", "rewritten");
    expect(amended.code, amended.output).toBe(0);
    const forced = await world.gitIn("push", "--force", "origin", `HEAD:${PUSH_BRANCH}`);
    expect(forced.code, forced.output).not.toBe(0);
    expectForceRefused(world, forced.output, before, NOT_FAST_FORWARD);
    const parent = world.refOf("refs/heads/main")!;
    expect(world.git.compareCalls).toEqual([{ path: `/repos/${REPO}/compare/${before}...${parent}?per_page=1`, token: "write", status: 200, answer: "behind" }]);
  });

  test("a rebase onto another branch, pushed with +, is refused", async ({ world, expect }) => {
    const before = await pushed(world);
    const rebased = await world.bash("git rebase -q origin/dev");
    expect(rebased.code, rebased.output).toBe(0);
    const forced = await world.gitIn("push", "origin", `+HEAD:${PUSH_BRANCH}`);
    expect(forced.code, forced.output).not.toBe(0);
    expectForceRefused(world, forced.output, before, NOT_FAST_FORWARD);
    expect(world.git.compareCalls.map((call) => call.answer)).toEqual(["diverged"]);
  });

  test("moving the branch back to a commit GitHub has (reset, then --force) is refused", async ({ world, expect }) => {
    const before = await pushed(world);
    const forced = await world.gitIn("push", "--force", "origin", `HEAD~1:${PUSH_BRANCH}`);
    expect(forced.code, forced.output).not.toBe(0);
    expect(forced.output).toContain(`! [remote rejected] HEAD~1 -> ${PUSH_BRANCH} (${NOT_FAST_FORWARD})`);
    expect(world.refOf(`refs/heads/${PUSH_BRANCH}`)).toBe(before);
    expect(world.proxy.refusals.map((refusal) => refusal.reason)).toEqual([NOT_FAST_FORWARD]);
    expect(world.git.compareCalls.map((call) => call.answer)).toEqual(["behind"]);
  });

  test("a merge of the default branch, moved on meanwhile, into the run's branch lands: the merge's parents lead to the old tip", async ({ world, expect }) => {
    const before = await pushed(world);
    const moved = world.git.commitOn(REPO, "main", "main moves on while the run works");
    const merged = await world.bash("git fetch -q origin && git merge -q --no-edit origin/main");
    expect(merged.code, merged.output).toBe(0);
    const head = await world.head();
    expect((await world.gitIn("rev-parse", "HEAD^1", "HEAD^2")).output.trim().split("\n")).toEqual([before, moved]);
    const again = await world.gitIn("push", "origin", `HEAD:${PUSH_BRANCH}`);
    expect(again.code, again.output).toBe(0);
    expect(world.refOf(`refs/heads/${PUSH_BRANCH}`)).toBe(head);
    // The walk left the pack at main's new commit too, but met the old tip first: GitHub was not asked.
    expect(world.git.compareCalls).toEqual([]);
    expect(world.proxy.refusals).toEqual([]);
  });

  test("moving the branch forward to a commit GitHub already has (an empty pack) lands on GitHub's word", async ({ world, expect }) => {
    const created = await world.gitIn("push", "-q", "origin", `origin/main:refs/heads/${PUSH_BRANCH}`);
    expect(created.code, created.output).toBe(0);
    const dev = world.refOf("refs/heads/dev")!;
    const moved = await world.gitIn("push", "origin", `origin/dev:refs/heads/${PUSH_BRANCH}`);
    expect(moved.code, moved.output).toBe(0);
    expect(world.refOf(`refs/heads/${PUSH_BRANCH}`)).toBe(dev);
    expect(world.git.compareCalls).toEqual([expect.objectContaining({ token: "write", status: 200, answer: "ahead" })]);
    expect(world.proxy.refusals).toEqual([]);
  });

  test("a hand-made push naming an older tip as `old` passes the gateway's walk, and git's receive-pack refuses it: the ref is not at that tip", async ({ world, expect }) => {
    const tip = await pushed(world);
    const older = world.refOf("refs/heads/main")!;
    // A commit on the older tip, beside the branch's tip: a fast-forward of `older`, not of the branch.
    const side = (await world.bash(`git commit-tree -p ${older} -m beside ${older}^{tree}`)).output.trim();
    const pack = await new Promise<Buffer>((resolve, reject) => {
      const child = execFile("git", ["pack-objects", "--revs", "--stdout", "-q"], { cwd: world.clone, env: world.env as NodeJS.ProcessEnv, encoding: "buffer" }, (error, stdout) => (error ? reject(error) : resolve(stdout)));
      child.stdin!.end(`${side}\n^${older}\n`);
    });
    const command = `${older} ${side} refs/heads/${PUSH_BRANCH}\0report-status`;
    const body = Buffer.concat([Buffer.from(`${(command.length + 4).toString(16).padStart(4, "0")}${command}0000`), pack]);
    writeFileSync(join(world.dir, "push.bin"), body);
    const sent = await world.bash(
      `curl -s --data-binary @${join(world.dir, "push.bin")} -H "content-type: application/x-git-receive-pack-request" "http://github.localhost/${REPO}.git/git-receive-pack"`
    );
    // receive-pack's own report: the update was not made, because the branch is not at `older`.
    expect(sent.output).toContain("unpack ok");
    expect(sent.output).toMatch(new RegExp(`ng refs/heads/${PUSH_BRANCH.replace("/", "\\/")} `));
    expect(world.refOf(`refs/heads/${PUSH_BRANCH}`)).toBe(tip);
    expect(world.proxy.refusals).toEqual([]);
    expect(world.git.compareCalls).toEqual([]);
  });

  test.for(["POST", "PUT"])("the push's ref advertisement sent a %s is refused, and git's server never sees it", async (method, { world, expect }) => {
    const served = world.git.requests.length;
    const sent = await world.bash(`curl -s -i -X ${method} --data-binary 0000 "http://github.localhost/${REPO}.git/info/refs?service=git-receive-pack"`);
    expect(sent.output).toMatch(/^HTTP\/1\.1 403/);
    expect(sent.output).toContain(`git refused: the ref advertisement (info/refs) is read with GET or HEAD, not ${method}`);
    expect(world.git.requests.slice(served)).toEqual([]);
    expect(world.proxy.refusals).toEqual([expect.objectContaining({ method, host: "github.localhost" })]);
  });
});

type RefusedPush = { name: string; setup?: string; push: string; reason: RegExp };

const REFUSED_PUSHES: RefusedPush[] = [
  { name: "HEAD to main", push: "git push origin HEAD:main", reason: /may update only refs\/heads\/agent-think\/issue-7, not refs\/heads\/main/ },
  { name: "the local main (a commit ahead) to main", push: "git push origin main", reason: /not refs\/heads\/main/ },
  { name: "a tag by name", setup: "git tag v9.9.9", push: "git push origin v9.9.9", reason: /not refs\/tags\/v9\.9\.9/ },
  { name: "--tags", setup: "git tag -a v9.9.9 -m x", push: "git push origin --tags", reason: /not refs\/tags\/v9\.9\.9/ },
  {
    name: "deleting the run's own branch",
    setup: `git push -q origin HEAD:${PUSH_BRANCH}`,
    push: `git push origin :${PUSH_BRANCH}`,
    reason: /may not delete refs\/heads\/agent-think\/issue-7/
  },
  { name: "--delete dev", push: "git push --delete origin dev", reason: /not refs\/heads\/dev/ },
  {
    name: "a force push of another branch onto main",
    setup: "git branch x origin/dev",
    push: "git push origin +refs/heads/x:refs/heads/main",
    reason: /not refs\/heads\/main/
  },
  { name: "--mirror", push: "git push --mirror origin", reason: /push refused: this run may update only refs\/heads\/agent-think\/issue-7/ },
  {
    name: "--follow-tags with a new annotated tag: the branch does not move either",
    setup: "git tag -a v9.9.9 -m x",
    push: `git push --follow-tags origin HEAD:${PUSH_BRANCH}`,
    reason: /not refs\/tags\/v9\.9\.9/
  },
  {
    name: "two refs, one allowed and one not: refused as a whole",
    push: `git push origin HEAD:${PUSH_BRANCH} HEAD:main`,
    reason: /not refs\/heads\/main/
  }
];

describe(`refused pushes: git prints the reason, and every ref stays as it was${needs("git-http-backend")}`, { concurrent: true, skip: noServer, timeout: TEST_TIMEOUT_MS }, () => {
  test.for(REFUSED_PUSHES)("$name", async ({ setup, push, reason }, { world, expect }) => {
    if (setup) {
      const prepared = await world.bash(setup);
      expect(prepared.code, prepared.output).toBe(0);
    }
    const before = world.git.refs(REPO);
    const refusedBefore = world.proxy.refusals.length;
    const pushed = await world.bash(push);

    expect(pushed.code, pushed.output).not.toBe(0);
    expect(pushed.output).toContain("[remote rejected]");
    expect(pushed.output).toMatch(/\(push refused: /);
    expect(pushed.output).toMatch(reason);
    // Nothing reported as pushed: every ref the push named was rejected.
    expect(pushed.output).not.toMatch(/\[new branch\]|\[new tag\]|\[deleted\]|forced update|[0-9a-f]{7}\.\.[0-9a-f]{7}/);
    expect(world.git.refs(REPO)).toEqual(before);
    const refusals = world.proxy.refusals.slice(refusedBefore);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatchObject({ submissionId: "submission-1", host: "github.localhost", method: "POST" });
    expect(refusals[0]!.reason).toMatch(reason);
    expect(world.api.calls).toEqual([]);
  });
});

type Spelling = {
  line: string;
  env?: Environment;
  /** Where the gateway refuses it; null: the client gives up before any write reaches the gateway. */
  refusedAt: "github.localhost" | "api.github.localhost" | null;
  says: RegExp;
};

const GIT_REFUSED = /\[remote rejected\].*\(push refused: /;
const API_REFUSED = /GitHub write refused: the sandbox may only read GitHub|HTTP 403/;

/** The spellings the issue lists: what a model's bash might run to write past the gateway. */
const SPELLINGS: Spelling[] = [
  { line: "git -c alias.p=push p origin HEAD:main", refusedAt: "github.localhost", says: GIT_REFUSED },
  { line: "\\git push origin +HEAD:main", refusedAt: "github.localhost", says: GIT_REFUSED },
  { line: 'gi""t push origin HEAD:main', refusedAt: "github.localhost", says: GIT_REFUSED },
  { line: "G=git; $G push origin HEAD:main", refusedAt: "github.localhost", says: GIT_REFUSED },
  { line: "git --config-env alias.p=X p origin HEAD:main", env: { X: "push" }, refusedAt: "github.localhost", says: GIT_REFUSED },
  {
    line: `git tag -a v9.9.9 -m x && git -c push.followTags=true push origin HEAD:${PUSH_BRANCH}`,
    refusedAt: "github.localhost",
    says: /\[remote rejected\].*\(push refused: this run may update only refs\/heads\/agent-think\/issue-7, not refs\/tags\/v9\.9\.9\)/
  },
  { line: "gh api -X PUT repos/acme/widgets/pulls/3/merge", refusedAt: "api.github.localhost", says: API_REFUSED },
  { line: "gh api -X PATCH repos/acme/widgets/git/refs/heads/main -F force=true", refusedAt: "api.github.localhost", says: API_REFUSED },
  { line: "gh release create v9 --repo acme/widgets", refusedAt: "api.github.localhost", says: API_REFUSED },
  { line: "gh api repos/acme/widgets/pulls -f head=x -f base=main", refusedAt: "api.github.localhost", says: API_REFUSED },
  // Without a merge method gh stops before it writes when it cannot prompt; the same alias with one is refused below.
  { line: 'gh alias set m "p""r merge" && gh m 3 --repo acme/widgets', refusedAt: null, says: /--merge, --rebase, or --squash required/ },
  { line: 'gh alias set m "p""r merge" && gh m 3 --repo acme/widgets --merge', refusedAt: "api.github.localhost", says: API_REFUSED },
  { line: "gh pr create --head main --base dev --repo acme/widgets --title t --body b", refusedAt: "api.github.localhost", says: API_REFUSED },
  {
    line: `curl -s -X POST -H "authorization: token $(gh auth token)" http://api.github.localhost/repos/acme/widgets/issues/7/comments -d '{"body":"x"}'`,
    refusedAt: "api.github.localhost",
    says: API_REFUSED
  },
  { line: "gh issue comment 7 --repo acme/widgets --body hi", refusedAt: "api.github.localhost", says: API_REFUSED }
];

describe(`every spelling from the issue, run by bash, writes nothing${needs("git-http-backend")}`, { concurrent: true, skip: noServer, timeout: TEST_TIMEOUT_MS }, () => {
  test.for(SPELLINGS.filter((spelling) => !usesGh(spelling.line)))("$line", async (spelling, { world, expect }) => {
    await refusesEverySpelling(spelling, world, expect);
  });
  test.for(SPELLINGS.filter((spelling) => usesGh(spelling.line)))(`$line${needs("gh")}`, { skip: noGh }, async (spelling, { world, expect }) => {
    await refusesEverySpelling(spelling, world, expect);
  });
});

async function refusesEverySpelling({ line, env, refusedAt, says }: Spelling, world: World, expect: ExpectStatic): Promise<void> {
  const before = world.git.refs(REPO);
  const ran = await world.bash(line, env);

  expect(ran.output).toMatch(says);
  expect(world.git.refs(REPO)).toEqual(before);
  expect(world.api.writes()).toEqual([]);
  if (refusedAt === null) {
    expect(ran.code).not.toBe(0);
    expect(world.proxy.refusals).toEqual([]);
  } else {
    expect(world.proxy.refusals.map((refusal) => refusal.host)).toContain(refusedAt);
  }
  // What did get through to the API carried the gateway's read token, never the sandbox's placeholder.
  expect(world.api.calls.every((call) => call.auth === `token ${world.readToken}`)).toBe(true);
}

/**
 * The same spellings down the model's own bash path, as far as it runs
 * outside a container: the Worker's command guard reads each, and lets all
 * but the plainest gh verbs through (a guard on command text is not the
 * control; those three run anyway, as a reworded one would), and ContainerCommands
 * wraps it and puts the identity guard in front exactly as for the container,
 * with this machine's bash as the container's shell (its /temp moved under
 * the test's directory). The gateway still refuses, and the server is
 * untouched.
 */
/** The spellings the command guard does read: plain gh verbs that write. Every other one gets past it. */
const GUARD_READS = new Set(["gh release create v9 --repo acme/widgets", "gh pr create --head main --base dev --repo acme/widgets --title t --body b", "gh issue comment 7 --repo acme/widgets --body hi"]);

describe(`the same spellings as the model's bash runs them: past the command guard, wrapped as for the container${needs("git-http-backend")}`, { concurrent: true, skip: noServer, timeout: TEST_TIMEOUT_MS }, () => {
  const guarded = SPELLINGS.filter((spelling) => spelling.refusedAt !== null);
  test.for(guarded.filter((spelling) => !usesGh(spelling.line)))("$line", async (spelling, { world, expect }) => {
    await refusedPastTheGuard(spelling, world, expect);
  });
  test.for(guarded.filter((spelling) => usesGh(spelling.line)))(`$line${needs("gh")}`, { skip: noGh }, async (spelling, { world, expect }) => {
    await refusedPastTheGuard(spelling, world, expect);
  });
});

async function refusedPastTheGuard({ line, env, refusedAt }: Spelling, world: World, expect: ExpectStatic): Promise<void> {
  const guard = refusal(line, writePolicyFor({ repo: REPO, issueNumber: 7, botLogin: "agent-think[bot]" }));
  if (GUARD_READS.has(line)) expect(guard).toMatch(/^refused: `gh /);
  else expect(guard).toBeNull();
  const temp = join(world.dir, "temp");
  const commands = new ContainerCommands({
    runner: () => ({
      run: async (script: string, options: { stdin?: string; timeoutMs: number }) => {
        const local = script.replaceAll("/temp/agent-think", join(temp, "agent-think"));
        const ran = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
          const child = execFile("bash", ["-c", local], { cwd: world.clone, env: { ...world.env, ...env } as NodeJS.ProcessEnv, timeout: COMMAND_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr })
          );
          if (options.stdin !== undefined) child.stdin?.end(options.stdin);
          else child.stdin?.end();
        });
        return { exitCode: ran.code, stdout: ran.stdout.replaceAll(join(temp, "agent-think"), "/temp/agent-think"), stderr: ran.stderr };
      }
    }),
    turns: { sandbox: async () => "local", replaceRetired: async () => {} },
    bot: () => ({ login: "agent-think[bot]", id: 1 }),
    github: () => ({ kind: "github.com", host: "github.localhost", web: SANDBOX_GITHUB.web, noreplyDomain: "users.noreply.github.com" }),
    maxOutputBytes: () => 16_384,
    reconnect: async () => {},
    log: () => {}
  });
  const before = world.git.refs(REPO);
  const result = await commands.run(line, COMMAND_TIMEOUT_MS);
  expect(result).toMatchObject({ backend: "container" });
  // What the model reads back: the refusal, in git's, gh's or curl's words.
  expect(JSON.stringify(result)).toMatch(/push refused|GitHub write refused|HTTP 403/);
  expect(world.git.refs(REPO)).toEqual(before);
  expect(world.api.writes()).toEqual([]);
  expect(world.proxy.refusals.map((refusal) => refusal.host)).toContain(refusedAt);
}

describe(`a credential the sandbox brings, or another repository${needs("git-http-backend")}`, { concurrent: true, skip: noServer, timeout: TEST_TIMEOUT_MS }, () => {
  test("a push with the write token in its URL is still refused: the gateway decides, not the credential", async ({ world, expect }) => {
    const before = world.git.refs(REPO);
    const url = `http://x-access-token:${world.writeToken}@github.localhost/${REPO}.git`;
    const pushed = await world.gitIn("push", url, "HEAD:main");
    expect(pushed.code, pushed.output).not.toBe(0);
    expect(pushed.output).toMatch(/\[remote rejected\] HEAD -> main \(push refused: /);
    expect(world.git.refs(REPO)).toEqual(before);
    expect(world.proxy.refusals.map((refusal) => refusal.reason)).toEqual([expect.stringMatching(/not refs\/heads\/main/)]);
  });

  test("the sandbox's own Authorization never reaches the API: reads carry the read token", async ({ world, expect }) => {
    const read = await world.bash(`curl -s -H "authorization: token ${world.writeToken}" http://api.github.localhost/repos/acme/widgets`);
    expect(read.code, read.output).toBe(0);
    expect(JSON.parse(read.output)).toMatchObject({ full_name: REPO });
    expect(world.api.calls).toEqual([expect.objectContaining({ method: "GET", path: "/repos/acme/widgets", auth: `token ${world.readToken}` })]);
  });

  test("a push to another repository is refused at git's first request, and git shows why", async ({ world, expect }) => {
    world.git.createRepo(OTHER_REPO);
    const before = world.git.refs(OTHER_REPO);
    const served = world.git.requests.length;
    const pushed = await world.gitIn("push", `${SANDBOX_GITHUB.web}/${OTHER_REPO}.git`, `HEAD:${PUSH_BRANCH}`);
    expect(pushed.code, pushed.output).not.toBe(0);
    // A 403 on info/refs: git prints a text/plain body as `remote:` lines before its own error.
    expect(pushed.output).toContain("remote: push refused: this run may push only to acme/widgets, not acme/other");
    expect(pushed.output).toContain("The requested URL returned error: 403");
    expect(world.git.refs(OTHER_REPO)).toEqual(before);
    expect(world.git.requests.slice(served)).toEqual([]);
    expect(world.proxy.refusals).toEqual([expect.objectContaining({ method: "GET", host: "github.localhost" })]);
  });
});

describe(`reads${needs("git-http-backend")}`, { concurrent: true, skip: noServer, timeout: TEST_TIMEOUT_MS }, () => {
  test("a clone works only because the gateway attaches the read token", async ({ world, expect }) => {
    const viaGateway = world.git.requests.filter((request) => request.path.includes("upload-pack"));
    expect(viaGateway.length).toBeGreaterThan(0);
    expect(viaGateway.every((request) => request.token === "read" && request.status === 200)).toBe(true);

    const served = world.git.requests.length;
    const direct = await run("git", ["clone", "-q", `${world.git.origin}/${REPO}.git`, "direct"], { cwd: world.dir, env: { ...world.env, http_proxy: "", HTTP_PROXY: "" } });
    expect(direct.code).not.toBe(0);
    expect(direct.output).toMatch(/could not read Username|Authentication failed/);
    expect(world.git.requests.slice(served)).toEqual([expect.objectContaining({ token: "none", status: 401 })]);
  });

  test("another repository gets no token: its clone through the gateway is asked to authenticate", async ({ world, expect }) => {
    world.git.createRepo(OTHER_REPO);
    const served = world.git.requests.length;
    const other = await run("git", ["clone", "-q", `${SANDBOX_GITHUB.web}/${OTHER_REPO}.git`, "other"], { cwd: world.dir, env: world.env });
    expect(other.code).not.toBe(0);
    expect(world.git.requests.slice(served)).toEqual([expect.objectContaining({ token: "none", status: 401 })]);
  });
});

describe(`a reporter-tier run: reads, and writes nothing${needs("git-http-backend")}`, { concurrent: true, skip: noServer, timeout: TEST_TIMEOUT_MS }, () => {
  reporterTest("cloned with the read-only token; a push of its issue's branch refused with no write token", async ({ world, expect }) => {
    // The clone went with the read-only token.
    expect(world.git.requests.filter((request) => request.token !== "read")).toEqual([]);
    const pushed = await world.gitIn("push", "origin", `HEAD:${PUSH_BRANCH}`);
    expect(pushed.code, pushed.output).not.toBe(0);
    expect(pushed.output).toMatch(/push refused: this run may not push at all/);
    expect(world.refOf(`refs/heads/${PUSH_BRANCH}`)).toBeUndefined();
    // The git server never saw the write token, nor a push.
    expect(world.git.requests.filter((request) => request.token === "write" || request.path.includes("receive-pack"))).toEqual([]);
  });

  reporterTest(`gh api -X POST refused, and nothing reaches the API${needs("gh")}`, { skip: noGh }, async ({ world, expect }) => {
    const posted = await world.bash("gh api -X POST repos/acme/widgets/issues/7/comments -f body=hi");
    expect(posted.code, posted.output).not.toBe(0);
    expect(posted.output).toMatch(API_REFUSED);
    expect(world.api.calls).toEqual([]);
  });
});
