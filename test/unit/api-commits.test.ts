/**
 * Commits made through GitHub's API from a real clone (src/steps/api-commits.ts): the Worker's
 * own scripts (src/run/api-commit-scripts.ts) run by bash on a real git clone of a smart-HTTP
 * "GitHub" reached through the egress gateway (test/support/egress-proxy.ts), their files read
 * as the workspace's, and every commit made with `createCommitOnBranch` on the GitHub stand-in,
 * which judges each request against GitHub's GraphQL schema and makes the commits for real in
 * the same bare repository (`seedGit`). A text change, a binary file, a large file, a deletion
 * and a rename arrive byte for byte, one API commit per local one with its message; the branch is
 * created at the merge base; the clone moves onto the commits GitHub made, and a later commit
 * goes on top of them. What the API cannot make (an executable file, a merge, a file over the
 * bound, uncommitted work) is refused before anything is made, and GitHub's own refusal (a
 * branch that moved) is said in its words.
 */
import { spawn } from "node:child_process";
import { createReadStream, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startGitHubStandin, type GitHubStandin } from "../../scripts/lib/github-standin";
import { grantFor } from "../../src/egress/grant";
import { createCommitClient, type CommitClient } from "../../src/github/commits";
import { MAX_API_FILE_BYTES } from "../../src/run/api-commit-plan";
import { exchangeDir, type ApiCommitDirs } from "../../src/run/api-commit-scripts";
import type { BashResult } from "../../src/run/bash-command";
import { makeApiCommits, type CommitFiles } from "../../src/steps/api-commits";
import { EgressProxy, SANDBOX_GITHUB } from "../support/egress-proxy";
import { lacks, needs } from "../support/external-tools";
import type { GitHttpServer } from "../support/git-http-server";

const REPO = "acme/widgets";
const BRANCH = "agent-think/issue-7";
const IDENTITY = { GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" };
const TEST_TIMEOUT_MS = 60_000;

let root: string;
let dirs: ApiCommitDirs;
let env: Record<string, string | undefined>;
let server: GitHttpServer;
let proxy: EgressProxy;
let standin: GitHubStandin;
let bare: string;
let client: CommitClient;

/** Async, never spawnSync: the git server answering these commands runs on this process's event loop. */
function sh(script: string, cwd = dirs.repo): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("bash", ["-c", script], { cwd, env: env as NodeJS.ProcessEnv, stdio: ["ignore", "pipe", "pipe"] });
    let [stdout, stderr] = ["", ""];
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const git = async (args: string, cwd = dirs.repo) => {
  const result = await sh(`git ${args}`, cwd);
  if (result.code !== 0) throw new Error(`git ${args}: ${result.stderr}`);
  return result.stdout.trim();
};

/** The sandbox's container: real bash, answering as the bash tool's result does. */
const exec = async (command: string): Promise<BashResult> => {
  const started = Date.now();
  const result = await sh(command, root);
  const stream = (text: string) => ({ text, totalBytes: text.length, totalLines: text.split("\n").length });
  return { backend: "container", exitCode: result.code, stdout: stream(result.stdout), stderr: stream(result.stderr), durationMs: Date.now() - started };
};

/** The workspace's files as the Durable Object has them once a command's sync is back: here, the same disk. */
const files: CommitFiles = { readFile: async (path) => Readable.toWeb(createReadStream(path)) as ReadableStream<Uint8Array> };

const commitAll = async (message: string) => {
  await git("add -A");
  writeFileSync(join(root, "message"), message);
  await git(`commit -q -F ${join(root, "message")}`);
  return git("rev-parse HEAD");
};

const make = (over: Partial<CommitClient> = {}) => makeApiCommits({ repo: REPO, branch: BRANCH, github: { web: SANDBOX_GITHUB.web }, dirs }, { exec, files, client: { ...client, ...over } });

describe(`commits made through GitHub's API from a real clone${needs("git-http-backend")}`, { skip: lacks("git-http-backend") }, () => {
  beforeEach(async () => {
    const { GitHttpServer } = await import("../support/git-http-server");
    const readToken = `read-${crypto.randomUUID()}`;
    root = mkdtempSync(join(tmpdir(), "api-commits-"));
    server = await GitHttpServer.start({ readToken, writeToken: `write-${crypto.randomUUID()}` });
    // The sandbox may read, never push: its commits reach GitHub only through the API.
    proxy = await EgressProxy.start({ gitOrigin: server.origin, apiOrigin: "http://127.0.0.1:9", grant: grantFor({ submissionId: "s", repo: REPO, pushBranch: null, readToken, writeToken: "" }) });
    dirs = { workspace: join(root, "workspace"), repo: join(root, "workspace", "repo") };
    mkdirSync(join(root, "home"));
    env = { PATH: process.env.PATH, HOME: join(root, "home"), GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0", http_proxy: proxy.url, no_proxy: "", ...IDENTITY };
    bare = server.createRepo(REPO, { files: { "src/sum.js": Buffer.from("module.exports = (a, b) => a + b + 1;\n"), "docs/old.md": Buffer.from("old\n"), "notes.txt": Buffer.from("notes\n") } });
    standin = await startGitHubStandin({ webhook: null });
    standin.seedGit({ repo: REPO, dir: bare });
    client = createCommitClient({ baseUrl: standin.url, token: "ghs_runToken" });
    expect((await sh(`mkdir -p workspace && git clone -q ${SANDBOX_GITHUB.web}/${REPO}.git workspace/repo`, root)).code).toBe(0);
    await git(`switch -q -c ${BRANCH}`);
  });

  afterEach(async () => {
    await standin.close();
    await proxy.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  });

  it(
    "makes each local commit on GitHub through the API, byte for byte (text, binary, large, deleted, renamed), and moves the clone onto them",
    async () => {
      const main = await git("rev-parse origin/main");
      const binary = Buffer.concat([Buffer.from([0, 1, 2, 255, 254, 0, 10, 13]), randomBytes(4096)]);
      const large = randomBytes(3 * 1024 * 1024 + 1);
      writeFileSync(join(dirs.repo, "src/sum.js"), "module.exports = (a, b) => a + b;\n");
      mkdirSync(join(dirs.repo, "test"));
      writeFileSync(join(dirs.repo, "test/fixture.bin"), binary);
      writeFileSync(join(dirs.repo, "test/large.bin"), large);
      const first = await commitAll("Add, do not increment\n\nsum(2, 2) was 5: the + 1 is gone.\nFixes #7.");
      await git("rm -q docs/old.md");
      await git("mv notes.txt NOTES.md");
      writeFileSync(join(dirs.repo, "NOTES.md"), "notes, renamed\n");
      const second = await commitAll("Tidy the notes");
      const localTree = await git("rev-parse HEAD^{tree}");

      const result = await make();
      expect(result).toMatchObject({ ok: true, created: { base: main }, synced: true });
      if (!result.ok) throw new Error(result.error);
      expect(result.made.map((made) => [made.local, made.headline])).toEqual([
        [first, "Add, do not increment"],
        [second, "Tidy the notes"]
      ]);
      // The stand-in judged every request by GitHub's schemas, and recorded two commits made through the API.
      expect(standin.refusals()).toEqual([]);
      const [one, two] = standin.apiCommits();
      expect(one).toMatchObject({ repo: REPO, branch: BRANCH, parent: main, headline: "Add, do not increment", body: "sum(2, 2) was 5: the + 1 is gone.\nFixes #7.", signed: true, deletions: [] });
      const added = new Map(one!.additions.map((addition) => [addition.path, addition.contents]));
      expect([...added.keys()].sort()).toEqual(["src/sum.js", "test/fixture.bin", "test/large.bin"]);
      expect(added.get("src/sum.js")!.toString()).toBe("module.exports = (a, b) => a + b;\n");
      expect(added.get("test/fixture.bin")!.equals(binary)).toBe(true);
      expect(added.get("test/large.bin")!.equals(large)).toBe(true);
      expect(two).toMatchObject({ parent: one!.oid, headline: "Tidy the notes", body: "" });
      expect(two!.deletions.map((deletion) => deletion.path).sort()).toEqual(["docs/old.md", "notes.txt"]);
      expect(two!.additions.map((addition) => [addition.path, addition.contents.toString()])).toEqual([["NOTES.md", "notes, renamed\n"]]);
      // GitHub's branch has the clone's files, and the clone now stands on GitHub's commits, on its branch, clean.
      expect(result.head).toBe(two!.oid);
      expect(await git(`rev-parse refs/heads/${BRANCH}^{tree}`, bare)).toBe(localTree);
      expect(await git("rev-parse HEAD")).toBe(two!.oid);
      expect(await git("symbolic-ref --short HEAD")).toBe(BRANCH);
      expect(await git("status --porcelain")).toBe("");
      expect(existsSync(exchangeDir(dirs))).toBe(false);

      // Nothing new: nothing is made. A later commit goes on top of GitHub's.
      expect(await make()).toMatchObject({ ok: true, made: [], head: two!.oid, synced: true });
      writeFileSync(join(dirs.repo, "src/sum.js"), "module.exports = (a, b) => Number(a) + Number(b);\n");
      const third = await commitAll("Add numbers, not strings");
      const again = await make();
      expect(again).toMatchObject({ ok: true, made: [{ local: third, headline: "Add numbers, not strings" }], synced: true });
      expect(standin.apiCommits()[2]).toMatchObject({ parent: two!.oid });
      expect(standin.refusals()).toEqual([]);
    },
    TEST_TIMEOUT_MS
  );

  it(
    "refuses what the API cannot make as the clone has it, before making anything: an executable file, a merge, a file over the bound, uncommitted work",
    async () => {
      writeFileSync(join(dirs.repo, "run.sh"), "#!/bin/sh\necho hi\n");
      await sh("chmod +x run.sh");
      await commitAll("A script");
      const executable = await make();
      expect(executable).toMatchObject({ ok: false, error: expect.stringMatching(/^commit [0-9a-f]{7} \("A script"\) cannot be made through GitHub's API: run\.sh is executable/) });

      await git("reset -q --hard origin/main");
      await git("switch -q -c side");
      writeFileSync(join(dirs.repo, "side.txt"), "side\n");
      await commitAll("Side");
      await git(`switch -q ${BRANCH}`);
      writeFileSync(join(dirs.repo, "main.txt"), "main\n");
      await commitAll("Main");
      await git("merge -q --no-edit side");
      expect(await make()).toMatchObject({ ok: false, error: expect.stringContaining("is a merge") });

      await git("reset -q --hard origin/main");
      writeFileSync(join(dirs.repo, "huge.bin"), Buffer.alloc(MAX_API_FILE_BYTES + 1, 7));
      await commitAll("Huge");
      expect(await make()).toMatchObject({ ok: false, error: expect.stringContaining("huge.bin is 20 MiB, more than the 20 MiB one file may have") });

      await git("reset -q --hard origin/main");
      writeFileSync(join(dirs.repo, "src/sum.js"), "changed, not committed\n");
      expect(await make()).toMatchObject({ ok: false, error: expect.stringContaining("has uncommitted changes: commit them") });

      // Nothing reached GitHub, and the workspace holds no exchange directory.
      expect(standin.apiCommits()).toEqual([]);
      expect(await git(`for-each-ref refs/heads/${BRANCH}`, bare)).toBe("");
      expect(existsSync(exchangeDir(dirs))).toBe(false);
    },
    TEST_TIMEOUT_MS
  );

  it(
    "says what GitHub refused, in its words: a branch that moved after it was read is a stale head",
    async () => {
      const main = await git("rev-parse origin/main");
      await client.createBranch(REPO, BRANCH, main);
      writeFileSync(join(dirs.repo, "src/sum.js"), "module.exports = (a, b) => a + b;\n");
      await commitAll("Add, do not increment");
      // Someone pushes to the branch between the Worker's read of it and its commit.
      const result = await make({
        heads: async (repo, branch) => {
          const heads = await client.heads(repo, branch);
          server.commitOn(REPO, BRANCH, "someone else's");
          return heads;
        }
      });
      expect(result).toMatchObject({ ok: false });
      expect(!result.ok && result.error).toMatch(/^GitHub refused commit 1 of 1 \([0-9a-f]{7} "Add, do not increment"\): GitHub refused the commit: STALE_DATA: Expected branch to point to "[0-9a-f]{40}" but it did not\. Pull and try again\.$/);
      expect(standin.refusals().map((record) => record.operation)).toEqual(["graphql mutation createCommitOnBranch"]);
    },
    TEST_TIMEOUT_MS
  );
});
