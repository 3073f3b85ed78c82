/**
 * The fix's proof against a real git client and a real repository: the
 * proof's own scripts (src/run/fix-proof.ts) run by bash, in a clone of a
 * real smart-HTTP "GitHub" (git-http-backend behind the egress gateway,
 * test/support/egress-proxy.ts, which the proof's rewritten origin points
 * at), with a check that fails while the bug is in the file. What it
 * judges, what it refuses to judge (a head not pushed, a dirty clone,
 * nothing to prove), and that the clone is left on its branch.
 * test/unit/worker-git.test.ts has the planted clones.
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { grantFor } from "../../src/egress/grant";
import { NO_CONTAINER, proveFix, verdict, type ProofDirs, type ProofExec } from "../../src/run/fix-proof";
import { CONTAINER_UNAVAILABLE, type BashResult } from "../../src/run/bash-command";
import { EgressProxy, SANDBOX_GITHUB } from "../support/egress-proxy";
import { lacks, needs } from "../support/external-tools";
import type { GitHttpServer } from "../support/git-http-server";

const REPO = "acme/widgets";
const BRANCH = "agent-think/issue-7";
const IDENTITY = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" };
/** Fails while the sum is wrong: what the reproduction's check does for a real bug. */
const CHECK = "grep -q '2+2=4' repo/sum.txt || { echo 'sum.txt says' \"$(cat repo/sum.txt)\"; exit 1; }";
const TEST_TIMEOUT_MS = 30_000;

type Env = Record<string, string | undefined>;

const noServer = lacks("git-http-backend");

let root: string;
let dirs: ProofDirs;
let env: Env;
let server: GitHttpServer;
let proxy: EgressProxy;
let bare: string;
const commands: string[] = [];

/** Async, never spawnSync: the server answering these commands runs on this process's event loop. */
function sh(script: string, cwd = dirs.repo): Promise<{ code: number; out: string; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", script], { cwd, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
    let [stdout, stderr] = ["", ""];
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("close", (code) => resolve({ code: code ?? -1, out: `${stdout}${stderr}`, stdout, stderr }));
  });
}

/** The sandbox's shell: real bash, answering as the bash tool's result does. */
const exec: ProofExec = async (command) => {
  commands.push(command);
  const started = Date.now();
  const result = await sh(command, root);
  const stream = (text: string) => ({ text, totalBytes: text.length, totalLines: text.split("\n").length });
  return { backend: "container", exitCode: result.code, stdout: stream(result.stdout), stderr: stream(result.stderr), durationMs: Date.now() - started } satisfies BashResult;
};

const target = { base: "main", branch: BRANCH, repo: REPO, github: { web: SANDBOX_GITHUB.web } };
const prove = (check = CHECK) => proveFix(check, target, exec, dirs);

describe(`a fix's proof, with real git${needs("git-http-backend")}`, { skip: noServer }, () => {
  beforeEach(async () => {
    commands.length = 0;
    const { GitHttpServer } = await import("../support/git-http-server");
    const [readToken, writeToken] = [`read-${crypto.randomUUID()}`, `write-${crypto.randomUUID()}`];
    root = mkdtempSync(join(tmpdir(), "fix-proof-"));
    server = await GitHttpServer.start({ readToken, writeToken });
    proxy = await EgressProxy.start({ gitOrigin: server.origin, apiOrigin: "http://127.0.0.1:9", grant: grantFor({ submissionId: "s", repo: REPO, pushBranch: BRANCH, readToken, writeToken }) });
    dirs = { workspace: join(root, "workspace"), repo: join(root, "workspace", "repo") };
    mkdirSync(join(root, "home"));
    env = { PATH: process.env.PATH, HOME: join(root, "home"), GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0", http_proxy: proxy.url, no_proxy: "", ...IDENTITY };
    bare = server.createRepo(REPO);
    // GitHub's main has the bug (written to the server's repository directly); the run's branch, pushed through the gateway, the fix.
    expect((await sh(`git clone -q '${bare}' seed && cd seed && echo '2+2=5' > sum.txt && git add sum.txt && git commit -qm bug && git push -q origin HEAD:main`, root)).code).toBe(0);
    expect((await sh(`mkdir -p workspace && git clone -q ${SANDBOX_GITHUB.web}/${REPO}.git workspace/repo`, root)).code).toBe(0);
    writeFileSync(join(dirs.repo, "sum.txt"), "2+2=4\n");
    const pushed = await sh(`git switch -qc ${BRANCH} && git commit -qam fix && git push -q origin ${BRANCH}`);
    expect(pushed, pushed.out).toMatchObject({ code: 0 });
  });

  afterEach(async () => {
    await proxy.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it(
    "holds when the check fails on the base and passes on the pushed head, and leaves the clone on its branch",
    async () => {
      const head = (await sh("git rev-parse HEAD")).stdout.trim();
      const base = (await sh("git rev-parse origin/main")).stdout.trim();
      const proof = await prove();
      expect(proof).toMatchObject({ ran: true, held: true, command: CHECK, base: { sha: base, exitCode: 1 }, head: { sha: head, exitCode: 0 } });
      expect(proof.ran && proof.base.excerpt).toBe("sum.txt says 2+2=5");
      expect((await sh("git symbolic-ref --short HEAD")).stdout.trim()).toBe(BRANCH);
      expect(readFileSync(join(dirs.repo, "sum.txt"), "utf8")).toBe("2+2=4\n");
      // Both sides are marked by their commit in the sandbox's own log.
      expect(commands.filter((command) => command.startsWith("# agent-think proof: check on "))).toEqual([expect.stringContaining(base), expect.stringContaining(head)]);
      // Every git script of the Worker's opens with its marker and the Worker's git environment.
      expect(commands.filter((command) => !command.includes("proof: check on")).every((command) => /^# agent-think proof: \w+.*\n.*\nexport GIT_CONFIG_NOSYSTEM='1'/.test(command))).toBe(true);
    },
    TEST_TIMEOUT_MS
  );

  it(
    "puts the clone back on the head even when the base's check wrote into a tracked file",
    async () => {
      const messy = "grep -q '2+2=4' repo/sum.txt || { echo scribbled >> repo/sum.txt; exit 1; }";
      const proof = await prove(messy);
      expect(proof).toMatchObject({ ran: true, held: true, base: { exitCode: 1 }, head: { exitCode: 0 } });
      expect((await sh("git symbolic-ref --short HEAD")).stdout.trim()).toBe(BRANCH);
      expect(readFileSync(join(dirs.repo, "sum.txt"), "utf8")).toBe("2+2=4\n");
    },
    TEST_TIMEOUT_MS
  );

  it(
    "runs no head check when the clone cannot be put back on the head, and says so",
    async () => {
      const head = (await sh("git rev-parse HEAD")).stdout.trim();
      // A sandbox whose checkout back to the branch fails: the head's check would otherwise run on the base.
      const stuck: ProofExec = async (command, timeoutMs) => (command.includes("checkout --quiet --force") ? { backend: "container", error: "the container went away" } : exec(command, timeoutMs));
      const proof = await proveFix(CHECK, target, stuck, dirs);
      expect(proof).toMatchObject({ ran: false, why: `the clone could not be put back on the head ${head.slice(0, 7)} after the base's check: the container went away` });
      expect(commands.filter((command) => command.includes(`check on ${head}`))).toEqual([]);
    },
    TEST_TIMEOUT_MS
  );

  it(
    "does not hold when the check passes on the base too, and says which side",
    async () => {
      const proof = await prove("grep -q '2+2' repo/sum.txt");
      expect(proof).toMatchObject({ ran: true, held: false, base: { exitCode: 0 }, head: { exitCode: 0 } });
      expect(proof.ran && proof.why).toMatch(/^the check passes on the base \([0-9a-f]{7}\) too/);
    },
    TEST_TIMEOUT_MS
  );

  it(
    "does not hold when the check still fails on the head",
    async () => {
      const proof = await prove("grep -q '2+2=6' repo/sum.txt");
      expect(proof).toMatchObject({ ran: true, held: false, base: { exitCode: 1 }, head: { exitCode: 1 } });
      expect(proof.ran && proof.why).toMatch(/the check still fails on the head \([0-9a-f]{7}, exit 1\)$/);
    },
    TEST_TIMEOUT_MS
  );

  it(
    "does not count a check that could not run on the base (command not found) as red",
    async () => {
      const proof = await prove("no-such-check-command-here");
      expect(proof).toMatchObject({ ran: true, held: false, base: { exitCode: 127 } });
      expect(proof.ran && proof.why).toContain("could not run on the base");
    },
    TEST_TIMEOUT_MS
  );

  it(
    "refuses a head that is not what the branch has on GitHub",
    async () => {
      writeFileSync(join(dirs.repo, "sum.txt"), "2+2=4 \n");
      expect((await sh("git commit -qam later")).code).toBe(0);
      const proof = await prove();
      expect(proof).toMatchObject({ ran: false, command: CHECK });
      expect(!proof.ran && proof.why).toMatch(/^HEAD \([0-9a-f]{7}\) is not what agent-think\/issue-7 has on GitHub \([0-9a-f]{7}\): push the fix first$/);
      // Nothing was checked out or run.
      expect(commands).toHaveLength(1);
    },
    TEST_TIMEOUT_MS
  );

  it(
    "refuses a clone with uncommitted changes, and one with no change to prove",
    async () => {
      writeFileSync(join(dirs.repo, "sum.txt"), "dirty\n");
      expect(await prove()).toMatchObject({ ran: false, why: `${dirs.repo} has uncommitted changes: commit the fix, push it, then open the pull request` });
      // GitHub's branch moved back to main (on the server itself), and the clone is on main.
      expect((await sh(`git checkout -q -- sum.txt && git switch -q main && git --git-dir='${bare}' update-ref refs/heads/${BRANCH} "$(git rev-parse HEAD)"`)).code).toBe(0);
      expect(await prove()).toMatchObject({ ran: false, why: expect.stringContaining("there is no change to prove") });
    },
    TEST_TIMEOUT_MS
  );

  it(
    "refuses a workspace with no clone",
    async () => {
      rmSync(dirs.repo, { recursive: true, force: true });
      expect(await prove()).toMatchObject({ ran: false, why: `there is no clone at ${dirs.repo}` });
    },
    TEST_TIMEOUT_MS
  );
});

describe("a fix's proof, without a sandbox", () => {
  it("says a deployment without a container proves nothing, in words for the maintainer", async () => {
    const none: ProofExec = async () => ({ backend: "container", error: CONTAINER_UNAVAILABLE });
    const nowhere = { workspace: "/workspace", repo: "/workspace/repo" };
    expect(await proveFix(CHECK, target, none, nowhere)).toEqual({ ran: false, why: NO_CONTAINER, command: CHECK });
  });

  it("runs nothing when the repository's remote cannot be named", async () => {
    const ran: string[] = [];
    const record: ProofExec = async (command) => {
      ran.push(command);
      return { backend: "container", error: "unreachable" };
    };
    const proof = await proveFix(CHECK, { ...target, github: { web: "ext::sh" } }, record, { workspace: "/workspace", repo: "/workspace/repo" });
    expect(proof).toMatchObject({ ran: false, why: expect.stringContaining("the clone's remote could not be named") });
    expect(ran).toEqual([]);
  });
});

describe("the verdict", () => {
  const sha = "b".repeat(40);
  it("needs a finished red base and a green head", () => {
    expect(verdict({ sha, exitCode: 1, excerpt: "" }, { sha, exitCode: 0, excerpt: "" })).toEqual({ held: true });
    expect(verdict({ sha, exitCode: 1, timedOut: true, excerpt: "" }, { sha, exitCode: 0, excerpt: "" }).why).toBe("on the base (bbbbbbb) the check did not finish");
    expect(verdict({ sha, error: "container unavailable", excerpt: "" }, { sha, error: "container unavailable", excerpt: "" }).why).toBe(
      "on the base (bbbbbbb) the check did not finish: container unavailable; on the head (bbbbbbb) the check did not finish: container unavailable"
    );
    expect(verdict({ sha, exitCode: 2, excerpt: "" }, { sha, exitCode: 0, excerpt: "" }).why).toBe("the check could not run on the base (bbbbbbb, exit 2)");
  });
});
