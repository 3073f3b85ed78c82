/**
 * The fix's proof against a real git client and a real repository: the
 * proof's own scripts (src/run/fix-proof.ts) run by bash, in a clone of a
 * bare "GitHub" on disk, with a check that fails while the bug is in the
 * file. What it judges, what it refuses to judge (a head not pushed, a dirty
 * clone, nothing to prove), and that the clone is left on its branch.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NO_CONTAINER, proveFix, verdict, type ProofDirs, type ProofExec } from "../../src/run/fix-proof";
import { CONTAINER_UNAVAILABLE, type BashResult } from "../../src/tools/bash-tool";

const BRANCH = "agent-think/issue-7";
const GIT_ENV = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" };
/** Fails while the sum is wrong: what the reproduction's check does for a real bug. */
const CHECK = "grep -q '2+2=4' repo/sum.txt || { echo 'sum.txt says' \"$(cat repo/sum.txt)\"; exit 1; }";

let root: string;
let dirs: ProofDirs;
const commands: string[] = [];

function sh(script: string, cwd = dirs.repo): { code: number; out: string } {
  const result = spawnSync("bash", ["-c", script], { cwd, env: { ...process.env, ...GIT_ENV }, encoding: "utf8" });
  return { code: result.status ?? -1, out: `${result.stdout}${result.stderr}` };
}

/** The sandbox's shell: real bash, answering as the bash tool's result does. */
const exec: ProofExec = async (command, timeoutMs) => {
  commands.push(command);
  const started = Date.now();
  const result = spawnSync("bash", ["-c", command], { env: { ...process.env, ...GIT_ENV }, encoding: "utf8", timeout: timeoutMs });
  const stream = (text: string) => ({ text, totalBytes: text.length, totalLines: text.split("\n").length });
  return { backend: "container", exitCode: result.status ?? 124, stdout: stream(result.stdout), stderr: stream(result.stderr), durationMs: Date.now() - started } satisfies BashResult;
};

beforeEach(() => {
  commands.length = 0;
  root = mkdtempSync(join(tmpdir(), "fix-proof-"));
  dirs = { workspace: join(root, "workspace"), repo: join(root, "workspace", "repo") };
  const origin = join(root, "origin.git");
  expect(sh(`git init -q --bare -b main ${origin}`, root).code).toBe(0);
  expect(sh(`mkdir -p workspace && git clone -q ${origin} workspace/repo`, root).code).toBe(0);
  writeFileSync(join(dirs.repo, "sum.txt"), "2+2=5\n");
  expect(sh("git add sum.txt && git commit -qm bug && git push -q origin HEAD:main").code).toBe(0);
  writeFileSync(join(dirs.repo, "sum.txt"), "2+2=4\n");
  expect(sh(`git switch -qc ${BRANCH} && git commit -qam fix && git push -q origin ${BRANCH}`).code).toBe(0);
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

const prove = (check = CHECK) => proveFix(check, { base: "main", branch: BRANCH }, exec, dirs);

describe("a fix's proof, with real git", () => {
  it("holds when the check fails on the base and passes on the pushed head, and leaves the clone on its branch", async () => {
    const head = sh("git rev-parse HEAD").out.trim();
    const base = sh("git rev-parse origin/main").out.trim();
    const proof = await prove();
    expect(proof).toMatchObject({ ran: true, held: true, command: CHECK, base: { sha: base, exitCode: 1 }, head: { sha: head, exitCode: 0 } });
    expect(proof.ran && proof.base.excerpt).toBe("sum.txt says 2+2=5");
    expect(sh("git symbolic-ref --short HEAD").out.trim()).toBe(BRANCH);
    expect(sh("cat sum.txt").out).toBe("2+2=4\n");
    // Both sides are marked by their commit in the sandbox's own log.
    expect(commands.filter((command) => command.startsWith("# agent-think proof: check on "))).toEqual([
      expect.stringContaining(base),
      expect.stringContaining(head)
    ]);
  });

  it("puts the clone back on the head even when the base's check wrote into a tracked file", async () => {
    const messy = "grep -q '2+2=4' repo/sum.txt || { echo scribbled >> repo/sum.txt; exit 1; }";
    const proof = await prove(messy);
    expect(proof).toMatchObject({ ran: true, held: true, base: { exitCode: 1 }, head: { exitCode: 0 } });
    expect(sh("git symbolic-ref --short HEAD").out.trim()).toBe(BRANCH);
    expect(sh("cat sum.txt").out).toBe("2+2=4\n");
  });

  it("runs no head check when the clone cannot be put back on the head, and says so", async () => {
    const head = sh("git rev-parse HEAD").out.trim();
    // A sandbox whose checkout back to the branch fails: the head's check would otherwise run on the base.
    const stuck: ProofExec = async (command, timeoutMs) => (command.includes("checkout --quiet --force") ? { backend: "container", error: "the container went away" } : exec(command, timeoutMs));
    const proof = await proveFix(CHECK, { base: "main", branch: BRANCH }, stuck, dirs);
    expect(proof).toMatchObject({ ran: false, why: `the clone could not be put back on the head ${head.slice(0, 7)} after the base's check: the container went away` });
    expect(commands.filter((command) => command.includes(`check on ${head}`))).toEqual([]);
  });

  it("does not hold when the check passes on the base too, and says which side", async () => {
    const proof = await prove("grep -q '2+2' repo/sum.txt");
    expect(proof).toMatchObject({ ran: true, held: false, base: { exitCode: 0 }, head: { exitCode: 0 } });
    expect(proof.ran && proof.why).toMatch(/^the check passes on the base \([0-9a-f]{7}\) too/);
  });

  it("does not hold when the check still fails on the head", async () => {
    const proof = await prove("grep -q '2+2=6' repo/sum.txt");
    expect(proof).toMatchObject({ ran: true, held: false, base: { exitCode: 1 }, head: { exitCode: 1 } });
    expect(proof.ran && proof.why).toMatch(/the check still fails on the head \([0-9a-f]{7}, exit 1\)$/);
  });

  it("does not count a check that could not run on the base (command not found) as red", async () => {
    const proof = await prove("no-such-check-command-here");
    expect(proof).toMatchObject({ ran: true, held: false, base: { exitCode: 127 } });
    expect(proof.ran && proof.why).toContain("could not run on the base");
  });

  it("refuses a head that is not what the branch has on GitHub", async () => {
    writeFileSync(join(dirs.repo, "sum.txt"), "2+2=4 \n");
    expect(sh("git commit -qam later").code).toBe(0);
    const proof = await prove();
    expect(proof).toMatchObject({ ran: false, command: CHECK });
    expect(!proof.ran && proof.why).toMatch(/^HEAD \([0-9a-f]{7}\) is not what agent-think\/issue-7 has on GitHub \([0-9a-f]{7}\): push the fix first$/);
    // Nothing was checked out or run.
    expect(commands).toHaveLength(1);
  });

  it("refuses a clone with uncommitted changes, and one with no change to prove", async () => {
    writeFileSync(join(dirs.repo, "sum.txt"), "dirty\n");
    expect(await prove()).toMatchObject({ ran: false, why: `${dirs.repo} has uncommitted changes: commit the fix, push it, then open the pull request` });
    expect(sh(`git checkout -q -- sum.txt && git switch -q main && git push -q -f origin main:${BRANCH}`).code).toBe(0);
    expect(await proveFix(CHECK, { base: "main", branch: BRANCH }, exec, dirs)).toMatchObject({ ran: false, why: expect.stringContaining("there is no change to prove") });
  });

  it("says a deployment without a container proves nothing, in words for the maintainer", async () => {
    const none: ProofExec = async () => ({ backend: "container", error: CONTAINER_UNAVAILABLE });
    expect(await proveFix(CHECK, { base: "main", branch: BRANCH }, none, dirs)).toEqual({ ran: false, why: NO_CONTAINER, command: CHECK });
  });

  it("refuses a workspace with no clone", async () => {
    rmSync(dirs.repo, { recursive: true, force: true });
    expect(await prove()).toMatchObject({ ran: false, why: `there is no clone at ${dirs.repo}` });
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
