/**
 * A bare git repository behind the GitHub stand-in's branches (`seedGit`), so that what the API
 * makes is real: a branch created over REST is a ref in it, and a commit made with
 * `createCommitOnBranch` a real commit (its parent the branch's head, its tree that head's with
 * the deletions and additions applied, every added file a plain non-executable one, as GitHub
 * writes them), which a clone can fetch from the git server serving the same directory. No
 * signature: GitHub signs its commits, the stand-in records that it would have. Node's git, with
 * no system or global config, one command at a time.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type GitIdentity = { name: string; email: string };
export type GitCommitInput = {
  branch: string;
  parent: string;
  message: string;
  additions: Array<{ path: string; contents: Buffer }>;
  deletions: Array<{ path: string }>;
  author: GitIdentity;
  committer: GitIdentity;
};

export class StandinGitRepo {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  #git(args: string[], options: { input?: Buffer | string; env?: Record<string, string> } = {}): string {
    return execFileSync("git", args, {
      env: { PATH: process.env.PATH ?? "", GIT_DIR: this.dir, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null", ...options.env } as unknown as NodeJS.ProcessEnv,
      ...(options.input === undefined ? {} : { input: options.input }),
      stdio: ["pipe", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024
    })
      .toString("utf8")
      .trim();
  }

  #tries(args: string[]): boolean {
    try {
      this.#git(args);
      return true;
    } catch {
      return false;
    }
  }

  /** The branch's commit, or null when the repository has no such branch. */
  head(branch: string): string | null {
    try {
      return this.#git(["rev-parse", "--verify", "-q", `refs/heads/${branch}^{commit}`]) || null;
    } catch {
      return null;
    }
  }

  hasCommit(oid: string): boolean {
    return this.#tries(["cat-file", "-e", `${oid}^{commit}`]);
  }

  /** Whether `path` is a file (or anything) in commit `oid`'s tree. */
  hasPath(oid: string, path: string): boolean {
    return this.#tries(["cat-file", "-e", `${oid}:${path}`]);
  }

  /** Creates `branch` at `oid`; false when it exists already. */
  createBranch(branch: string, oid: string): boolean {
    return this.#tries(["update-ref", `refs/heads/${branch}`, oid, ""]);
  }

  /** The new commit on `input.branch`, moved there only from `input.parent` (as GitHub's compare-and-swap). */
  commit(input: GitCommitInput): string {
    const scratch = mkdtempSync(join(tmpdir(), "standin-index-"));
    try {
      // The index is a scratch one; update-index wants a work tree, though it reads nothing from it here.
      const env = {
        GIT_INDEX_FILE: join(scratch, "index"),
        GIT_WORK_TREE: scratch,
        GIT_AUTHOR_NAME: input.author.name,
        GIT_AUTHOR_EMAIL: input.author.email,
        GIT_COMMITTER_NAME: input.committer.name,
        GIT_COMMITTER_EMAIL: input.committer.email
      };
      this.#git(["read-tree", input.parent], { env });
      for (const { path } of input.deletions) this.#git(["update-index", "--force-remove", "--", path], { env });
      for (const { path, contents } of input.additions) {
        const blob = this.#git(["hash-object", "-w", "--stdin"], { input: contents, env });
        this.#git(["update-index", "--add", "--cacheinfo", `100644,${blob},${path}`], { env });
      }
      const tree = this.#git(["write-tree"], { env });
      const oid = this.#git(["commit-tree", tree, "-p", input.parent, "-F", "-"], { input: input.message, env });
      this.#git(["update-ref", `refs/heads/${input.branch}`, oid, input.parent], { env });
      return oid;
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }
}
