/**
 * The Worker's own git never runs what a workspace carries: the exact
 * scripts the preparation and the fix's proof build (src/run/worker-git.ts,
 * src/run/fix-proof.ts), run by real bash and the real git, against a real
 * smart-HTTP server (git-http-backend behind the egress gateway, as the
 * sandbox reaches GitHub: test/support/egress-proxy.ts).
 *
 * An earlier run's clone is planted with everything git would run or trust:
 * hooks in .git/hooks and under core.hooksPath (through include.path),
 * core.fsmonitor (through includeIf), clean/smudge/process filters (from
 * .git/info/attributes and a tracked .gitattributes), diff.external, an
 * `ext::` origin, a local mirror with its own uploadpack, url.insteadOf,
 * a `!` credential helper, core.sshCommand, alternates with
 * core.alternateRefsCommand, grafts, a replace ref, and local commits on the
 * run's branch and main; HOME and the system config carry more. Every
 * planted program writes a marker outside the workspace when run. The
 * control runs the commands the Worker used to run (and a few more) on the
 * same plants and sees the markers; the Worker's scripts see none, leave
 * the server's refs as they were, and leave a clone the model can use.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { grantFor } from "../../src/egress/grant";
import { proveFix, type ProofDirs, type ProofExec } from "../../src/run/fix-proof";
import { canonicalRemote, freshCloneScript, workerGitConfig, workerGitEnv, workerGitPrelude } from "../../src/run/worker-git";
import type { BashResult } from "../../src/run/bash-command";
import { EgressProxy, SANDBOX_GITHUB } from "../support/egress-proxy";
import { lacks, needs } from "../support/external-tools";
import type { GitHttpServer, RefList } from "../support/git-http-server";

const REPO = "acme/widgets";
const BRANCH = "agent-think/issue-7";
const GITHUB = { web: SANDBOX_GITHUB.web };
const REMOTE = `${SANDBOX_GITHUB.web}/${REPO}.git`;
const CHECK = "grep -q '2+2=4' repo/sum.txt || { echo \"sum.txt says $(cat repo/sum.txt)\"; exit 1; }";
const HOOKS = ["post-checkout", "post-merge", "reference-transaction", "pre-auto-gc", "post-rewrite", "pre-push", "post-index-change"];
const COMMAND_TIMEOUT_MS = 30_000;
/** Each test runs some forty git processes against a server on this event loop. */
const TEST_TIMEOUT_MS = 60_000;

type Env = Record<string, string | undefined>;
type Result = { code: number; output: string };

const noServer = lacks("git-http-backend");

/** Async, never spawnSync: the server answering these commands runs on this process's event loop. */
function run(file: string, args: string[], options: { cwd: string; env: Env; input?: string }): Promise<Result> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env as NodeJS.ProcessEnv, stdio: ["pipe", "pipe", "pipe"], timeout: COMMAND_TIMEOUT_MS });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()));
    // A command that reads no stdin may be gone before it is written.
    child.stdin.on("error", () => {});
    child.stdin.end(options.input ?? "");
    child.once("close", (code) => resolve({ code: code ?? -1, output }));
  });
}

type World = {
  server: GitHttpServer;
  proxy: EgressProxy;
  root: string;
  dirs: ProofDirs;
  /** Where planted programs live: in the workspace, as an earlier run would leave them. */
  evil: string;
  markerDir: string;
  /** The container's environment for the Worker's scripts: a HOME and a system config an earlier command planted, the way to GitHub. */
  container: Env;
  /** The model's environment: its own HOME with its identity. */
  model: Env;
  bash: (script: string, env?: Env) => Promise<Result>;
  git: (args: string[], options?: { env?: Env; cwd?: string; input?: string }) => Promise<Result>;
  markers: () => string[];
  serverRefs: () => RefList;
  serverRef: (ref: string) => string | undefined;
};

const IDENTITY = { GIT_AUTHOR_NAME: "Model", GIT_AUTHOR_EMAIL: "model@example.invalid", GIT_COMMITTER_NAME: "Model", GIT_COMMITTER_EMAIL: "model@example.invalid" };

async function startWorld(): Promise<World> {
  const { GitHttpServer } = await import("../support/git-http-server");
  const readToken = `read-${crypto.randomUUID()}`;
  const writeToken = `write-${crypto.randomUUID()}`;
  const root = mkdtempSync(join(tmpdir(), "agent-think-worker-git-"));
  const server = await GitHttpServer.start({ readToken, writeToken });
  const grant = grantFor({ submissionId: "submission-1", repo: REPO, pushBranch: BRANCH, readToken, writeToken });
  // No API is asked for here: the gateway's API origin leads nowhere.
  const proxy = await EgressProxy.start({ gitOrigin: server.origin, apiOrigin: "http://127.0.0.1:9", grant });
  const dirs = { workspace: join(root, "workspace"), repo: join(root, "workspace", "repo") };
  const evil = join(dirs.workspace, ".evil");
  const markerDir = join(root, "markers");
  for (const dir of [dirs.workspace, evil, markerDir, join(root, "home"), join(root, "model-home"), join(root, "tmp")]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(root, "model-home", ".gitconfig"), "[user]\n\tname = Model\n\temail = model@example.invalid\n");
  const base: Env = { PATH: process.env.PATH, TMPDIR: join(root, "tmp"), LANG: "C", LC_ALL: "C", GIT_TERMINAL_PROMPT: "0", http_proxy: proxy.url, HTTP_PROXY: proxy.url, no_proxy: "", NO_PROXY: "" };
  const world: World = {
    server,
    proxy,
    root,
    dirs,
    evil,
    markerDir,
    container: { ...base, HOME: join(root, "home"), GIT_CONFIG_SYSTEM: join(root, "system-gitconfig") },
    model: { ...base, HOME: join(root, "model-home"), GIT_CONFIG_NOSYSTEM: "1", ...IDENTITY },
    bash: (script, env = world.container) => run("bash", ["-c", script], { cwd: root, env }),
    git: (args, options = {}) => run("git", args, { cwd: options.cwd ?? dirs.repo, env: options.env ?? world.model, input: options.input }),
    markers: () => readdirSync(markerDir).sort(),
    serverRefs: () => server.refs(REPO),
    serverRef: (ref) => server.refs(REPO).find((one) => one.ref === ref)?.oid
  };
  // The repository on "GitHub": its main has the bug.
  const bare = server.createRepo(REPO);
  const seed = join(root, "seed");
  const seedEnv = { ...world.model, http_proxy: "", HTTP_PROXY: "" };
  for (const args of [["clone", "-q", bare, seed], ["-C", seed, "config", "user.name", "Seed"]]) expect((await run("git", args, { cwd: root, env: seedEnv })).code).toBe(0);
  writeFileSync(join(seed, "sum.txt"), "2+2=5\n");
  expect((await run("bash", ["-c", "git add sum.txt && git commit -qm bug && git push -q origin HEAD:main"], { cwd: seed, env: seedEnv })).code).toBe(0);
  return world;
}

async function stopWorld(world: World): Promise<void> {
  await world.proxy.close();
  await world.server.close();
  rmSync(world.root, { recursive: true, force: true });
}

/** A program that leaves its marker when run, then does `then`. */
function program(world: World, name: string, then = "exit 1"): string {
  const path = join(world.evil, name);
  writeFileSync(path, `#!/bin/sh\ntouch '${join(world.markerDir, name)}'\n${then}\n`, { mode: 0o755 });
  return path;
}

function hooksIn(world: World, dir: string, prefix: string): void {
  mkdirSync(dir, { recursive: true });
  for (const hook of HOOKS) {
    const path = join(dir, hook);
    writeFileSync(path, `#!/bin/sh\ntouch '${join(world.markerDir, `${prefix}-${hook}`)}'\n`, { mode: 0o755 });
  }
}

/**
 * What an earlier run leaves in the clone's .git: every way git runs a
 * program or takes someone else's word. `hooksPath`: hooks also under a
 * core.hooksPath an include sets (which then hides .git/hooks from git).
 */
async function plantGitDir(world: World, options: { hooksPath: boolean }): Promise<void> {
  const dotgit = join(world.dirs.repo, ".git");
  // Repositories the plants point at: one whose objects are "alternates", a mirror with its own upload-pack, one to fetch from.
  for (const name of ["alt.git", "mirror.git", "plain.git"]) {
    const bare = join(world.evil, name);
    expect((await world.git(["init", "-q", "--bare", bare], { cwd: world.root })).code).toBe(0);
    expect((await world.git(["push", "-q", bare, "HEAD:refs/heads/main"])).code).toBe(0);
  }
  // A commit only plain.git has, so a fetch from it negotiates (and asks the alternates for their refs).
  const plain = { cwd: join(world.evil, "plain.git") };
  const only = (await world.git(["commit-tree", "-p", "main", "-m", "only here", "main^{tree}"], plain)).output.trim();
  expect((await world.git(["update-ref", "refs/heads/main", only], plain)).code).toBe(0);
  const head = (await world.git(["rev-parse", "HEAD"])).output.trim();
  const first = (await world.git(["rev-list", "--max-parents=0", "HEAD"])).output.trim().split("\n")[0]!;
  hooksIn(world, join(dotgit, "hooks"), "dotgit-hook");
  hooksIn(world, join(world.evil, "hooks"), "hookspath");
  const include = join(world.evil, "include.cfg");
  writeFileSync(include, options.hooksPath ? `[core]\n\thooksPath = ${join(world.evil, "hooks")}\n` : "[core]\n\tquotePath = false\n");
  const includeIf = join(world.evil, "include-if.cfg");
  writeFileSync(includeIf, `[core]\n\tfsmonitor = ${program(world, "fsmonitor")}\n`);
  mkdirSync(join(dotgit, "objects", "info"), { recursive: true });
  writeFileSync(join(dotgit, "objects", "info", "alternates"), `${join(world.evil, "alt.git", "objects")}\n`);
  mkdirSync(join(dotgit, "info"), { recursive: true });
  writeFileSync(join(dotgit, "info", "attributes"), "*.md filter=evil diff=evil\n");
  // HEAD's parent is the first commit from now on, as far as grafts go: a merge base without the bug.
  writeFileSync(join(dotgit, "info", "grafts"), `${head} ${first}\n`);
  const config: Array<[string, string]> = [
    ["include.path", include],
    [`includeIf.gitdir:${world.dirs.repo}/.path`, includeIf],
    ["filter.evil.clean", `${program(world, "filter-clean", "exec cat")}`],
    ["filter.evil.smudge", `${program(world, "filter-smudge", "exec cat")}`],
    // A long-running filter that answers git's handshake and offers nothing, so git goes on without it.
    ["filter.evilproc.process", program(world, "filter-process", "printf '0016git-filter-server\\n000eversion=2\\n00000000'\nexec cat > /dev/null")],
    ["diff.external", program(world, "diff-external", "exit 0")],
    ["protocol.ext.allow", "always"],
    ["protocol.file.allow", "always"],
    ["remote.origin.url", `ext::${program(world, "ext-remote")}`],
    ["remote.mirror.url", join(world.evil, "mirror.git")],
    ["remote.mirror.uploadpack", program(world, "uploadpack")],
    // The space ends the program's name: what follows the rewritten prefix becomes its argument.
    [`url.ext::${program(world, "insteadof")} .insteadOf`, `${SANDBOX_GITHUB.web}/acme/`],
    ["credential.helper", `!${program(world, "credential")}`],
    ["core.sshCommand", program(world, "ssh")],
    ["remote.sshy.url", "ssh://git@example.invalid/acme/widgets.git"],
    ["core.alternateRefsCommand", program(world, "alternate-refs", "exit 0")],
    ["core.pager", program(world, "pager", "exec cat")],
    ["gc.auto", "1"]
  ];
  for (const [key, value] of config) expect((await world.git(["config", key, value])).code, key).toBe(0);
}

/** What an earlier run leaves outside the clone: HOME's git config (both files) and the system's. */
function plantHomeAndSystem(world: World): void {
  const home = world.container.HOME!;
  writeFileSync(join(home, ".gitconfig"), `[protocol "ext"]\n\tallow = always\n[url "ext::${program(world, "global-insteadof")} "]\n\tinsteadOf = ${SANDBOX_GITHUB.web}/\n`);
  hooksIn(world, join(world.evil, "xdg-hooks"), "xdg-hook");
  mkdirSync(join(home, ".config", "git"), { recursive: true });
  writeFileSync(join(home, ".config", "git", "config"), `[core]\n\thooksPath = ${join(world.evil, "xdg-hooks")}\n`);
  writeFileSync(world.container.GIT_CONFIG_SYSTEM!, `[core]\n\tfsmonitor = ${program(world, "system-fsmonitor")}\n`);
}

/** An earlier run's local commits: on the run's branch (a tracked .gitattributes naming a filter) and on main; and files git does not track. */
async function plantCommits(world: World): Promise<void> {
  const steps: string[][] = [
    ["switch", "-qc", BRANCH],
    ["add", "-A"],
    ["commit", "-qm", "planted on the run's branch"],
    ["switch", "-q", "main"],
    ["commit", "-q", "--allow-empty", "-m", "planted on main"],
    ["switch", "-q", BRANCH]
  ];
  writeFileSync(join(world.dirs.repo, ".gitattributes"), "*.txt filter=evilproc\n");
  writeFileSync(join(world.dirs.repo, "sum.txt"), "2+2=4 (planted)\n");
  writeFileSync(join(world.dirs.repo, "README.md"), "# planted\n");
  for (const args of steps) expect((await world.git(args)).code, args.join(" ")).toBe(0);
  writeFileSync(join(world.dirs.repo, "untracked.txt"), "left behind\n");
  mkdirSync(join(world.dirs.repo, ".git", "info"), { recursive: true });
  writeFileSync(join(world.dirs.repo, ".git", "info", "exclude"), "ignored.log\n");
  writeFileSync(join(world.dirs.repo, "ignored.log"), "ignored\n");
}

/** The model's clone, as the preparation leaves it. */
async function prepared(world: World): Promise<void> {
  const cloned = await world.bash(freshCloneScript({ github: GITHUB, repo: REPO, dir: world.dirs.repo }));
  expect(cloned, cloned.output).toMatchObject({ code: 0 });
}

/** The Worker's command runner for the proof: real bash in the container's environment, answering as the bash tool does. */
function proofExec(world: World): ProofExec {
  return async (command) => {
    const started = Date.now();
    const result = await world.bash(command);
    const stream = (text: string) => ({ text, totalBytes: text.length, totalLines: text.split("\n").length });
    return { backend: "container", exitCode: result.code, stdout: stream(result.output), stderr: stream(""), durationMs: Date.now() - started } satisfies BashResult;
  };
}

/** Commands that used to run on a reused clone (the preparation's fetch, the proof's reads and checkouts), and one trigger for each other plant. */
async function unhardenedCommands(world: World, env: Env, prefix = ""): Promise<void> {
  const base = world.serverRef("refs/heads/main")!;
  const shell = (line: string) => world.bash(`${prefix}\ncd '${world.dirs.repo}' && ${line}`, env);
  await shell(`git -C '${world.dirs.repo}' fetch --quiet origin`);
  await shell("touch README.md sum.txt; git status --porcelain --untracked-files=no");
  await shell("git fetch --quiet origin refs/heads/main");
  await shell(`git checkout --quiet --detach ${base}`);
  await shell(`git checkout --quiet --force ${BRANCH}`);
  await shell("git ls-remote origin");
  await shell("git fetch --quiet mirror");
  await shell(`git ls-remote ${REMOTE}`);
  await shell("printf 'protocol=https\\nhost=example.invalid\\n\\n' | git credential fill");
  await shell("git fetch --quiet sshy");
  await shell(`git fetch --quiet '${join(world.evil, "plain.git")}' main`);
  await shell("git diff HEAD~1 HEAD > /dev/null");
}

describe(`the Worker's own git${needs("git-http-backend")}`, { skip: noServer }, () => {
  let world: World;
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(async () => {
    expect(world.proxy.errors, "the gateway threw").toEqual([]);
    await stopWorld(world);
  });

  it(
    "the preparation leaves a planted clone at the remote's state, running nothing of it and pushing nothing",
    async () => {
      await prepared(world);
      await plantCommits(world);
      await plantGitDir(world, { hooksPath: true });
      plantHomeAndSystem(world);
      const before = world.serverRefs();
      const main = world.serverRef("refs/heads/main")!;

      const cloned = await world.bash(freshCloneScript({ github: GITHUB, repo: REPO, dir: world.dirs.repo }));
      expect(cloned, cloned.output).toMatchObject({ code: 0 });
      expect(world.markers()).toEqual([]);
      expect(world.serverRefs()).toEqual(before);
      // The remote's state: its default branch only, at its head, and nothing git does not track.
      expect((await world.git(["for-each-ref", "--format=%(refname) %(objectname)", "refs/heads"])).output.trim()).toBe(`refs/heads/main ${main}`);
      expect((await world.git(["symbolic-ref", "HEAD"])).output.trim()).toBe("refs/heads/main");
      expect((await world.git(["status", "--porcelain", "--ignored"])).output).toBe("");
      expect(existsSync(join(world.dirs.repo, ".gitattributes"))).toBe(false);
      expect(readFileSync(join(world.dirs.repo, "sum.txt"), "utf8")).toBe("2+2=5\n");
      expect(readdirSync(join(world.dirs.repo, ".git")).filter((name) => ["hooks", "info"].includes(name))).toEqual([]);
      expect((await world.git(["config", "--local", "--list"])).output).not.toMatch(/ext::|filter\.|include|hooks|fsmonitor|credential|ssh|alternate/i);
      expect((await world.git(["config", "--get-all", "remote.origin.url"])).output.trim()).toBe(REMOTE);

      // The model's clone: a plain fetch and a commit of its own work.
      expect((await world.git(["fetch", "--quiet", "origin"])).code).toBe(0);
      writeFileSync(join(world.dirs.repo, "sum.txt"), "2+2=4\n");
      expect((await world.git(["commit", "-qam", "the model's fix"])).code).toBe(0);
      expect(world.markers()).toEqual([]);
    },
    TEST_TIMEOUT_MS
  );

  it(
    "the preparation replaces a .git that is a symlink or a gitdir file, and a clone directory that is a symlink, and removes nothing they point at",
    async () => {
      await prepared(world);
      await plantGitDir(world, { hooksPath: true });
      // The planted .git moves out of the clone, and the clone points at it three ways in turn.
      const elsewhere = join(world.evil, "elsewhere");
      mkdirSync(elsewhere);
      execFileSync("mv", [join(world.dirs.repo, ".git"), join(elsewhere, ".git")]);
      const cases: Array<() => void> = [
        () => symlinkSync(join(elsewhere, ".git"), join(world.dirs.repo, ".git")),
        () => writeFileSync(join(world.dirs.repo, ".git"), `gitdir: ${join(elsewhere, ".git")}\n`),
        () => {
          rmSync(world.dirs.repo, { recursive: true });
          symlinkSync(elsewhere, world.dirs.repo);
        }
      ];
      for (const plant of cases) {
        rmSync(world.dirs.repo, { recursive: true, force: true });
        mkdirSync(world.dirs.repo);
        plant();
        const cloned = await world.bash(freshCloneScript({ github: GITHUB, repo: REPO, dir: world.dirs.repo }));
        expect(cloned, cloned.output).toMatchObject({ code: 0 });
        expect((await world.git(["rev-parse", "--git-dir"])).output.trim()).toBe(".git");
        expect(existsSync(join(elsewhere, ".git", "config"))).toBe(true);
      }
      expect(world.markers()).toEqual([]);
    },
    TEST_TIMEOUT_MS
  );

  it(
    "a reused object store can hold a forged object that a fetch and a hard reset check out; the preparation's fresh clone reads none of it",
    async () => {
      await prepared(world);
      const blob = (await world.git(["rev-parse", "HEAD:sum.txt"])).output.trim();
      // The clone's objects made loose, and sum.txt's blob replaced by other bytes under its name.
      const packDir = join(world.dirs.repo, ".git", "objects", "pack");
      const pack = readdirSync(packDir).find((name) => name.endsWith(".pack"))!;
      renameSync(join(packDir, pack), join(world.root, "old.pack"));
      for (const name of readdirSync(packDir)) unlinkSync(join(packDir, name));
      expect((await run("bash", ["-c", `git unpack-objects -q < '${join(world.root, "old.pack")}'`], { cwd: world.dirs.repo, env: world.model })).code).toBe(0);
      const forged = Buffer.from("2+2=4 (forged)\n");
      const loose = join(world.dirs.repo, ".git", "objects", blob.slice(0, 2), blob.slice(2));
      unlinkSync(loose);
      writeFileSync(loose, deflateSync(Buffer.concat([Buffer.from(`blob ${forged.length}\0`), forged])));

      // A sanitise-and-reset of a copy (its config already clean): the forged bytes are checked out as the remote's.
      const copy = join(world.root, "copy");
      execFileSync("cp", ["-a", world.dirs.repo, copy]);
      for (const args of [["fetch", "-q", "origin"], ["reset", "-q", "--hard", "origin/main"]]) expect((await world.git(args, { cwd: copy })).code).toBe(0);
      expect(readFileSync(join(copy, "sum.txt"), "utf8")).toBe("2+2=4 (forged)\n");

      const cloned = await world.bash(freshCloneScript({ github: GITHUB, repo: REPO, dir: world.dirs.repo }));
      expect(cloned, cloned.output).toMatchObject({ code: 0 });
      expect(readFileSync(join(world.dirs.repo, "sum.txt"), "utf8")).toBe("2+2=5\n");
    },
    TEST_TIMEOUT_MS
  );

  it(
    "the proof makes the model's planted clone inert, proves its pushed head, and keeps its branch",
    async () => {
      await prepared(world);
      // The model's fix, pushed to the run's branch through the gateway.
      writeFileSync(join(world.dirs.repo, "sum.txt"), "2+2=4\n");
      for (const args of [["switch", "-qc", BRANCH], ["commit", "-qam", "fix"], ["push", "-q", "-u", "origin", BRANCH]]) {
        const result = await world.git(args);
        expect(result, result.output).toMatchObject({ code: 0 });
      }
      const head = (await world.git(["rev-parse", "HEAD"])).output.trim();
      const base = world.serverRef("refs/heads/main")!;
      // Then something the run ran planted the clone, with a replace ref that makes the base look fixed.
      expect((await world.git(["replace", base, head])).code).toBe(0);
      await plantGitDir(world, { hooksPath: true });
      plantHomeAndSystem(world);
      const before = world.serverRefs();

      const proof = await proveFix(CHECK, { base: "main", branch: BRANCH, repo: REPO, github: GITHUB }, proofExec(world), world.dirs);
      expect(proof).toMatchObject({ ran: true, held: true, base: { sha: base, exitCode: 1 }, head: { sha: head, exitCode: 0 } });
      expect(world.markers()).toEqual([]);
      expect(world.serverRefs()).toEqual(before);
      // The model's work is where it left it: its branch, its head, tracking its namesake.
      expect((await world.git(["symbolic-ref", "--short", "HEAD"])).output.trim()).toBe(BRANCH);
      expect((await world.git(["rev-parse", "HEAD"])).output.trim()).toBe(head);
      expect((await world.git(["rev-parse", "--abbrev-ref", "@{upstream}"])).output.trim()).toBe(`origin/${BRANCH}`);
      expect((await world.git(["config", "--get-all", "remote.origin.url"])).output.trim()).toBe(REMOTE);
      expect(existsSync(join(world.dirs.repo, ".git", "objects", "info", "alternates"))).toBe(false);

      // And the model carries on: fetch, commit, push.
      expect((await world.git(["fetch", "--quiet", "origin"])).code).toBe(0);
      writeFileSync(join(world.dirs.repo, "NOTES.md"), "more\n");
      for (const args of [["add", "NOTES.md"], ["commit", "-qm", "more"], ["push", "-q"]]) {
        const result = await world.git(args);
        expect(result, result.output).toMatchObject({ code: 0 });
      }
      expect(world.serverRef(`refs/heads/${BRANCH}`)).toBe((await world.git(["rev-parse", "HEAD"])).output.trim());
      expect(world.markers()).toEqual([]);
    },
    TEST_TIMEOUT_MS
  );

  it(
    "the proof follows no .git that is a symlink or a gitdir file, and looks for no repository above the clone",
    async () => {
      await prepared(world);
      await plantGitDir(world, { hooksPath: true });
      const elsewhere = join(world.evil, "elsewhere.git");
      execFileSync("mv", [join(world.dirs.repo, ".git"), elsewhere]);
      const target = { base: "main", branch: BRANCH, repo: REPO, github: GITHUB };
      symlinkSync(elsewhere, join(world.dirs.repo, ".git"));
      expect(await proveFix(CHECK, target, proofExec(world), world.dirs)).toMatchObject({ ran: false, why: expect.stringContaining("is not a directory of the clone's own") });
      rmSync(join(world.dirs.repo, ".git"));
      writeFileSync(join(world.dirs.repo, ".git"), `gitdir: ${elsewhere}\n`);
      expect(await proveFix(CHECK, target, proofExec(world), world.dirs)).toMatchObject({ ran: false, why: expect.stringContaining("is not a directory of the clone's own") });
      // No .git at all, and a planted repository in the workspace above: there is no clone.
      rmSync(join(world.dirs.repo, ".git"));
      execFileSync("mv", [elsewhere, join(world.dirs.workspace, ".git")]);
      expect(await proveFix(CHECK, target, proofExec(world), world.dirs)).toMatchObject({ ran: false, why: `there is no clone at ${world.dirs.repo}` });
      expect(existsSync(join(world.dirs.workspace, ".git", "config"))).toBe(true);
      expect(world.markers()).toEqual([]);
    },
    TEST_TIMEOUT_MS
  );

  it(
    "control: the same plants run under the commands the Worker used to run, and the environment alone stops all but the filters",
    async () => {
      await prepared(world);
      await plantCommits(world);
      await plantGitDir(world, { hooksPath: true });
      plantHomeAndSystem(world);
      const plain = { ...world.container };
      await unhardenedCommands(world, plain);
      const live = world.markers();
      expect(live).toEqual(
        expect.arrayContaining([
          "alternate-refs",
          "credential",
          "diff-external",
          "ext-remote",
          "filter-process",
          "filter-smudge",
          "fsmonitor",
          "hookspath-post-checkout",
          "hookspath-reference-transaction",
          "insteadof",
          "ssh",
          "uploadpack"
        ])
      );

      // With only the environment (no inert .git): hooks, fsmonitor, transports, helpers, external diff are off; filters are not.
      rmSync(world.markerDir, { recursive: true });
      mkdirSync(world.markerDir);
      await unhardenedCommands(world, plain, workerGitPrelude(GITHUB, world.dirs.repo));
      expect(world.markers().length).toBeGreaterThan(0);
      expect(world.markers().every((marker) => marker.startsWith("filter-"))).toBe(true);

      // Without a core.hooksPath (the clone's include gone, and a HOME that sets none), .git/hooks run.
      rmSync(world.markerDir, { recursive: true });
      mkdirSync(world.markerDir);
      await world.git(["config", "--unset-all", "include.path"]);
      await unhardenedCommands(world, world.model);
      expect(world.markers()).toEqual(expect.arrayContaining(["dotgit-hook-post-checkout", "dotgit-hook-reference-transaction"]));

      // HOME's and the system's config, outside any clone: a fresh clone, a status, a commit.
      rmSync(world.markerDir, { recursive: true });
      mkdirSync(world.markerDir);
      const scratch = join(world.root, "scratch");
      await world.bash(`git clone --quiet ${REMOTE} '${join(world.root, "fresh")}'`, plain);
      await world.bash(`git init -q '${scratch}' && cd '${scratch}' && git status > /dev/null && git -c user.name=x -c user.email=x@example.invalid commit -q --allow-empty -m x`, plain);
      expect(world.markers()).toEqual(expect.arrayContaining(["global-insteadof", "system-fsmonitor", "xdg-hook-reference-transaction"]));
    },
    TEST_TIMEOUT_MS
  );
});

describe("the Worker's git environment", () => {
  it("turns off what git would run, and allows only the deployment's GitHub's transport", () => {
    const env = workerGitEnv({ web: "https://github.com" }, "/workspace/repo");
    expect(env).toMatchObject({ GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", GIT_ALLOW_PROTOCOL: "https", GIT_CEILING_DIRECTORIES: "/workspace", GIT_TERMINAL_PROMPT: "0" });
    const config = Object.fromEntries(workerGitConfig({ web: "https://github.com" }));
    expect(config).toMatchObject({ "core.hooksPath": "/dev/null", "core.fsmonitor": "false", "protocol.allow": "never", "protocol.ext.allow": "never", "protocol.https.allow": "always", "credential.helper": "" });
    expect(config["protocol.http.allow"]).toBeUndefined();
    expect(env.GIT_CONFIG_COUNT).toBe(String(workerGitConfig({ web: "https://github.com" }).length));
    // http only where the deployment's GitHub is served over it (the local stand-in).
    expect(workerGitEnv({ web: "http://127.0.0.1:8790" }, "/workspace/repo").GIT_ALLOW_PROTOCOL).toBe("https:http");
  });

  it("names the repository on the deployment's GitHub, and refuses anything else", () => {
    expect(canonicalRemote({ web: "https://github.com" }, "acme/widgets")).toBe("https://github.com/acme/widgets.git");
    expect(canonicalRemote({ web: "https://ghe.example.com" }, "acme/widgets")).toBe("https://ghe.example.com/acme/widgets.git");
    expect(() => canonicalRemote({ web: "https://github.com" }, "acme/widgets; touch x")).toThrow(/not a repository/);
    for (const web of ["ext::sh", "file:///tmp", "https://user:pw@github.com", "https://github.com/path", "ssh://github.com"]) {
      expect(() => canonicalRemote({ web }, "acme/widgets"), web).toThrow(/not a GitHub web origin/);
    }
    expect(() => freshCloneScript({ github: { web: "https://github.com" }, repo: "acme/widgets", dir: "relative/repo" })).toThrow(/not an absolute clone directory/);
  });
});
