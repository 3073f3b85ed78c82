/**
 * Packs made by this machine's real git, for the tests of the gateway's pack
 * reader and of its force-push check: a throwaway repository (SHA-1 or
 * SHA-256) with commits at fixed dates, packs written by `git pack-objects`
 * exactly as a push writes them (`--revs --thin --delta-base-offset`, or
 * without either), or of listed objects in the order given, and git's own
 * account of a pack (`git verify-pack -v`: each object's id, type, offset
 * and delta base; a thin pack is completed from the repository first, so
 * its missing bases come last). It writes no pack bytes itself.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type PackOptions = { thin?: boolean; deltaBaseOffset?: boolean };
export type PackEntry = { id: string; type: string; offset: number; packedSize: number; base?: string };

/** 2024-01-01T00:00:00Z, and a second more for each commit: the same ids every run. */
const EPOCH_SECONDS = 1_704_067_200;

export class GitRepoFixture {
  readonly dir: string;
  #commits = 0;

  private constructor(objectFormat: "sha1" | "sha256") {
    this.dir = mkdtempSync(join(tmpdir(), "agent-think-packs-"));
    this.git(["init", "-q", `--object-format=${objectFormat}`, "-b", "main"]);
  }

  static create(objectFormat: "sha1" | "sha256" = "sha1"): GitRepoFixture {
    return new GitRepoFixture(objectFormat);
  }

  git(args: string[], input?: string | Uint8Array): string {
    const date = `${EPOCH_SECONDS + this.#commits} +0000`;
    const env: Record<string, string | undefined> = {
      PATH: process.env.PATH,
      HOME: this.dir,
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_AUTHOR_NAME: "Fixture",
      GIT_AUTHOR_EMAIL: "fixture@example.invalid",
      GIT_COMMITTER_NAME: "Fixture",
      GIT_COMMITTER_EMAIL: "fixture@example.invalid",
      GIT_AUTHOR_DATE: date,
      GIT_COMMITTER_DATE: date
    };
    return execFileSync("git", args, { cwd: this.dir, env: env as NodeJS.ProcessEnv, input, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"], maxBuffer: 64 * 1024 * 1024 });
  }

  /** A commit on the current branch with `files` written (path → text), returning its id. */
  commit(message: string, files: Record<string, string> = {}): string {
    for (const [path, text] of Object.entries(files)) {
      writeFileSync(join(this.dir, path), text);
      this.git(["add", "--", path]);
    }
    this.#commits++;
    this.git(["commit", "-q", "--allow-empty", "-F", "-"], message);
    return this.head();
  }

  head(): string {
    return this.git(["rev-parse", "HEAD"]).trim();
  }

  /** What `git pack-objects --revs` writes for these revisions (`^x` to leave x out), as a push does by default. */
  pack(revs: string[], options: PackOptions = {}): Uint8Array {
    const args = ["pack-objects", "--revs", "--stdout", "-q"];
    if (options.thin ?? true) args.push("--thin");
    if (options.deltaBaseOffset ?? true) args.push("--delta-base-offset");
    return this.#packBytes(args, `${revs.join("\n")}\n`);
  }

  /** A pack of exactly these objects, written in the order given (git keeps the order of a list until it meets a tagged object). */
  packOf(ids: string[], options: PackOptions = {}): Uint8Array {
    const args = ["pack-objects", "--stdout", "-q"];
    if (options.deltaBaseOffset ?? true) args.push("--delta-base-offset");
    return this.#packBytes(args, `${ids.join("\n")}\n`);
  }

  /** git's own reading of `pack`, object by object in pack order (index-pack, completing a thin pack from this repository, then verify-pack -v). */
  entries(pack: Uint8Array): PackEntry[] {
    const indexed = this.git(["index-pack", "--stdin", "--fix-thin"], pack).trim();
    const hash = /^(?:pack|keep)\s+([0-9a-f]+)$/.exec(indexed)?.[1];
    if (!hash) throw new Error(`index-pack said ${JSON.stringify(indexed)}`);
    const out = this.git(["verify-pack", "-v", join(this.dir, ".git", "objects", "pack", `pack-${hash}.idx`)]);
    const entries: PackEntry[] = [];
    for (const line of out.split("\n")) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 5 || !/^[0-9a-f]{40,64}$/.test(fields[0]!)) continue;
      const [id, type, , packedSize, offset, , base] = fields;
      entries.push({ id: id!, type: type!, packedSize: Number(packedSize), offset: Number(offset), ...(base ? { base } : {}) });
    }
    return entries.sort((a, b) => a.offset - b.offset);
  }

  /** Every commit reachable from `rev` with its parents, as `git rev-list --parents` says. */
  parents(rev: string, not: string[] = []): Map<string, string[]> {
    const out = this.git(["rev-list", "--parents", rev, ...not.map((one) => `^${one}`)]);
    return new Map(
      out
        .split("\n")
        .filter(Boolean)
        .map((line) => {
          const [id, ...parents] = line.split(" ");
          return [id!, parents];
        })
    );
  }

  close(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  #packBytes(args: string[], input: string): Uint8Array {
    const env: Record<string, string | undefined> = { PATH: process.env.PATH, HOME: this.dir, GIT_CONFIG_NOSYSTEM: "1" };
    return new Uint8Array(execFileSync("git", args, { cwd: this.dir, env: env as NodeJS.ProcessEnv, input, stdio: ["pipe", "pipe", "pipe"], maxBuffer: 256 * 1024 * 1024 }));
  }
}
