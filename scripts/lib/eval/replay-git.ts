/**
 * The git half of a replay, on the operator's machine: a bare mirror of a
 * case's source repository (cloned once into a cache, fetched on reuse),
 * the case's pinned commit in it with the tags it contains, and a push of
 * those to the replay repository: the commit as `main`, the tags as they
 * are. A token goes to git in its environment, never on its command line.
 * Cases with one source share its mirror, one clone or fetch at a time.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, stat } from "node:fs/promises";
import { join } from "node:path";

export type ReplayGitOptions = {
  /** Where sources are cloned from: `<base>/<owner>/<name>.git`, a URL (https://github.com) or a directory of repositories. */
  sourceBase: string;
  /** Where the mirrors are kept between runs. */
  cacheDir: string;
};

/** The commit a replay pushes and the tags that point into its history. */
export type PinnedCommit = { sha: string; tags: string[] };

const GIT_TIMEOUT_MS = 10 * 60_000;

export class ReplayGit {
  readonly #options: ReplayGitOptions;
  readonly #mirrors = new Map<string, Promise<string>>();

  constructor(options: ReplayGitOptions) {
    this.#options = options;
  }

  /** `ref` (a tag, branch or commit; the default branch when absent) of `repo`, resolved in its mirror, with the tags its history holds. */
  async pin(repo: string, ref: string | undefined): Promise<PinnedCommit> {
    const mirror = await this.#mirror(repo);
    let sha: string;
    try {
      sha = (await git(["rev-parse", "--verify", "--end-of-options", `${ref ?? "HEAD"}^{commit}`], { cwd: mirror })).trim();
    } catch {
      throw new Error(`${repo} has no commit ${ref ?? "HEAD"} (the case's ref)`);
    }
    const tags = (await git(["tag", "--merged", sha], { cwd: mirror })).split("\n").filter((tag) => tag !== "");
    return { sha, tags };
  }

  /** Pushes `pinned` from `repo`'s mirror to `remote` (a URL or a bare repository's path): the commit as `main`, and its tags; `token` authenticates an https remote. */
  async push(repo: string, pinned: PinnedCommit, remote: string, token?: string): Promise<void> {
    const mirror = await this.#mirror(repo);
    const refspecs = [`${pinned.sha}:refs/heads/main`, ...pinned.tags.map((tag) => `refs/tags/${tag}:refs/tags/${tag}`)];
    await git(["push", "--force", "--quiet", remote, ...refspecs], { cwd: mirror, ...(token && /^https:/i.test(remote) ? { env: bearerConfig(token) } : {}) });
  }

  #mirror(repo: string): Promise<string> {
    let mirror = this.#mirrors.get(repo);
    if (!mirror) {
      mirror = this.#cloneOrFetch(repo);
      // A failed clone is tried again by the next case that needs it.
      mirror.catch(() => this.#mirrors.delete(repo));
      this.#mirrors.set(repo, mirror);
    }
    return mirror;
  }

  async #cloneOrFetch(repo: string): Promise<string> {
    const source = `${this.#options.sourceBase.replace(/\/+$/, "")}/${repo}.git`;
    // One mirror per source URL: two bases never share (or race on) one.
    const path = join(this.#options.cacheDir, `${repo.replace("/", "+")}-${createHash("sha256").update(source).digest("hex").slice(0, 12)}.git`);
    if (await exists(path)) {
      await git(["remote", "update", "--prune"], { cwd: path });
    } else {
      await mkdir(this.#options.cacheDir, { recursive: true });
      await git(["clone", "--mirror", "--quiet", source, path]);
    }
    return path;
  }
}

/** git's configuration, in the environment, that sends `token` on every HTTP request of that one command (as actions/checkout does). */
function bearerConfig(token: string): Record<string, string> {
  const basic = Buffer.from(`x-access-token:${token}`).toString("base64");
  return { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "http.extraHeader", GIT_CONFIG_VALUE_0: `Authorization: Basic ${basic}` };
}

/** `--push-to`: the bare repository for `repo` under `dir`, made empty when new (an offline run: the GitHub stand-in has no git server). */
export async function bareRepositoryUnder(dir: string, repo: string): Promise<string> {
  const path = join(dir, `${repo}.git`);
  await mkdir(path, { recursive: true });
  await git(["init", "--bare", "--quiet", path]);
  return path;
}

async function exists(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch {
    return false;
  }
}

/** Runs git with no prompt for credentials; rejects with its stderr. */
export function git(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      args,
      { cwd: options.cwd, env: { ...process.env, GIT_TERMINAL_PROMPT: "0", ...options.env }, timeout: GIT_TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`git ${args[0]} failed: ${(stderr || error.message).trim().slice(0, 500)}`));
        else resolve(stdout);
      }
    );
  });
}
