/**
 * The gateway's pack reader against packs written by this machine's real
 * `git pack-objects` (test/support/git-packs.ts), never by the code under
 * test: plain and thin packs, commits stored whole, as OFS_DELTA and as
 * REF_DELTA (git deltifies commits with long, similar messages), a SHA-256
 * repository's pack, a pack git was told to write tree first, and real
 * packs cut short or with an object taken out. What the reader finds is
 * checked against `git rev-list --parents` and `git verify-pack -v`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BodyReader } from "../../src/egress/body-reader";
import { PACK_COMMIT_LIMITS, readPackCommits, type ObjectFormat, type PackLimits } from "../../src/egress/pack-commits";
import { GitRepoFixture } from "../support/git-packs";
import { concat, chunked } from "./bytes";

/** A commit message long enough that git stores the next commits as deltas against it. */
const LONG_BODY = Array.from({ length: 300 }, (_, i) => `line ${i % 7} of a long commit message body`).join("\n");


async function read(pack: Uint8Array, options: { format?: ObjectFormat; chunk?: number; start?: number; limits?: PackLimits } = {}) {
  const source = new BodyReader(chunked(pack, options.chunk ?? 4096));
  const result = await readPackCommits(source, options.start ?? 0, options.format ?? "sha1", options.limits ?? PACK_COMMIT_LIMITS);
  return { result, bytesRead: source.bytes.length };
}

const objectCount = (pack: Uint8Array) => new DataView(pack.buffer, pack.byteOffset).getUint32(8);

let repo: GitRepoFixture;
let root: string;
let linear: string[];
let merge: string;

beforeAll(() => {
  repo = GitRepoFixture.create();
  root = repo.commit("root", { "README.md": "# fixture\n" });
  linear = [1, 2, 3, 4].map((i) => repo.commit(`change ${i}\n\n${LONG_BODY}\n\nend ${i}\n`, { [`file-${i}.txt`]: `content ${i}\n`.repeat(50) }));
  repo.git(["checkout", "-q", "-b", "side", root]);
  const side = repo.commit("side work", { "SIDE.md": "side\n" });
  repo.git(["checkout", "-q", "main"]);
  repo.git(["merge", "-q", "--no-ff", "-m", "merge side", side]);
  merge = repo.head();
});

afterAll(() => repo.close());

describe("readPackCommits on packs git writes for a push", () => {
  it("reads every commit of a plain pack with its parents, stopping at the first tree", async () => {
    const pack = repo.pack(["HEAD"], { thin: false });
    const { result } = await read(pack);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.commits).toEqual(repo.parents("HEAD"));
    expect(result.commits.get(merge)).toHaveLength(2);
    const entries = repo.entries(pack);
    expect(result.stop).toBe(entries[result.objects]!.type);
    expect(entries.slice(0, result.objects).every((entry) => entry.type === "commit")).toBe(true);
  });

  it("reads a thin pack (what `git push` sends) of the commits past what the server has", async () => {
    const thin = GitRepoFixture.create();
    try {
      const text = Array.from({ length: 400 }, (_, i) => `line ${i}`).join("\n");
      const base = thin.commit("base", { "big.txt": `${text}\n` });
      thin.commit("one", { "big.txt": `${text}\nchanged once\n` });
      thin.commit("two", { "big.txt": `${text}\nchanged twice\n` });
      const pack = thin.pack(["HEAD", `^${base}`]);
      // Thin: git completing it appends the bases it left out.
      expect(thin.entries(pack).length).toBeGreaterThan(objectCount(pack));
      const { result } = await read(pack);
      expect(result.ok && result.commits).toEqual(thin.parents("HEAD", [base]));
    } finally {
      thin.close();
    }
  });

  it("resolves commits git stored as OFS_DELTA against an earlier commit", async () => {
    const pack = repo.pack(["HEAD"], { thin: false });
    const entries = repo.entries(pack);
    // git's own account: some commits are deltas.
    expect(entries.filter((entry) => entry.type === "commit" && entry.base).length).toBeGreaterThan(0);
    const { result } = await read(pack, { chunk: 7 });
    expect(result.ok && result.commits).toEqual(repo.parents("HEAD"));
  });

  it("resolves commits git stored as REF_DELTA (a pack written without --delta-base-offset)", async () => {
    const pack = repo.pack(["HEAD"], { thin: false, deltaBaseOffset: false });
    expect(repo.entries(pack).filter((entry) => entry.type === "commit" && entry.base).length).toBeGreaterThan(0);
    const { result } = await read(pack, { chunk: 1 });
    expect(result.ok && result.commits).toEqual(repo.parents("HEAD"));
  });

  it("reads the same whatever the chunking, and no further than the commits", async () => {
    const large = GitRepoFixture.create();
    try {
      const base = large.commit("base", { "a.txt": "a\n" });
      // A blob of 1 MiB of varied text after the commits: the reader never needs it.
      const big = Array.from({ length: 40_000 }, (_, i) => `${i * 7919} ${(i * 104729) % 65521}`).join("\n");
      const head = large.commit("big", { "big.txt": big });
      const pack = large.pack(["HEAD", `^${base}`]);
      for (const chunk of [1, 3, 1024]) {
        const { result, bytesRead } = await read(pack, { chunk });
        expect(result.ok && result.commits).toEqual(new Map([[head, [base]]]));
        expect(bytesRead).toBeLessThan(pack.length / 10);
      }
    } finally {
      large.close();
    }
  });

  it("reads a pack that starts after other bytes (the command list before it)", async () => {
    const pack = repo.pack(["HEAD", `^${linear[2]}`]);
    const prefix = new TextEncoder().encode("00000000 a command list and its flush 0000");
    const { result } = await read(concat(prefix, pack), { start: prefix.length, chunk: 5 });
    expect(result.ok && result.commits).toEqual(repo.parents("HEAD", [linear[2]!]));
  });

  it("reads an empty pack (a push of a commit the server has) as no commits", async () => {
    const pack = repo.pack(["HEAD", "^HEAD"]);
    const { result } = await read(pack);
    expect(result).toEqual({ ok: true, commits: new Map(), stop: "end", objects: 0 });
  });

  it("reads a pack of commits only to its end", async () => {
    const pack = repo.packOf([linear[3]!, linear[2]!]);
    const { result } = await read(pack);
    expect(result).toEqual({ ok: true, commits: new Map([[linear[3], [linear[2]]], [linear[2], [linear[1]]]]), stop: "end", objects: 2 });
  });

  it("stops at a tree written before the commit, reading no commit", async () => {
    const tree = repo.git(["rev-parse", `${linear[3]}^{tree}`]).trim();
    const pack = repo.packOf([tree, linear[3]!]);
    expect(repo.entries(pack).map((entry) => entry.type)).toEqual(["tree", "commit"]);
    const { result } = await read(pack);
    expect(result).toEqual({ ok: true, commits: new Map(), stop: "tree", objects: 0 });
  });

  it("stops at a REF_DELTA commit whose base is not in the pack (taken out of a real pack)", async () => {
    const pack = repo.packOf([linear[3]!, linear[2]!, linear[1]!], { deltaBaseOffset: false });
    const entries = repo.entries(pack);
    const [base, ...deltas] = entries;
    expect(deltas.every((entry) => entry.base === base!.id)).toBe(true);
    const count = objectCount(pack) - 1;
    const header = concat(pack.subarray(0, 8), Uint8Array.of(count >>> 24, (count >>> 16) & 255, (count >>> 8) & 255, count & 255));
    const withoutBase = concat(header, pack.subarray(base!.offset + base!.packedSize));
    const { result } = await read(withoutBase);
    expect(result).toEqual({ ok: true, commits: new Map(), stop: "unresolved-delta", objects: 0 });
  });

  it("reads the commits of a SHA-256 repository", async () => {
    const sha256 = GitRepoFixture.create("sha256");
    try {
      const first = sha256.commit("first", { "a.txt": "a\n" });
      sha256.commit(`second\n\n${LONG_BODY}\n`, { "b.txt": "b\n" });
      const third = sha256.commit(`third\n\n${LONG_BODY}\nmore\n`);
      expect(third).toMatch(/^[0-9a-f]{64}$/);
      const pack = sha256.pack(["HEAD", `^${first}`]);
      const { result } = await read(pack, { format: "sha256", chunk: 3 });
      expect(result.ok && result.commits).toEqual(sha256.parents("HEAD", [first]));
      // Read as SHA-1 the same bytes do not make commits: their parent lines are 64 digits.
      expect((await read(pack, { format: "sha1" })).result).toMatchObject({ ok: false, problem: "malformed" });
    } finally {
      sha256.close();
    }
  });
});

describe("readPackCommits refuses what it cannot read", () => {
  it("says a pack cut short anywhere within its commits is truncated", async () => {
    const pack = repo.pack(["HEAD"], { thin: false });
    const entries = repo.entries(pack);
    const firstTree = entries.find((entry) => entry.type !== "commit")!;
    for (const cut of [0, 5, 12, 13, entries[1]!.offset - 1, entries[1]!.offset + 2, firstTree.offset - 1]) {
      const { result } = await read(pack.subarray(0, cut), { chunk: 3 });
      expect(result, `cut at ${cut}`).toEqual({ ok: false, problem: "truncated", reason: "the push ended before its pack did" });
    }
  });

  it("refuses bytes that are not a pack", async () => {
    const pack = repo.pack(["HEAD", `^${linear[2]}`]);
    const notPack = pack.slice();
    notPack[0] = 0x58;
    expect((await read(notPack)).result).toMatchObject({ ok: false, problem: "malformed", reason: "the push's pack is not one git writes" });
    const version9 = pack.slice();
    version9[7] = 9;
    expect((await read(version9)).result).toMatchObject({ ok: false, problem: "malformed" });
  });

  it("refuses a commit whose stored size is not what its zlib stream holds", async () => {
    const pack = repo.packOf([linear[0]!]);
    const changed = pack.slice();
    // The first object's header: a commit whose size's low 4 bits are changed by one.
    changed[12] = (changed[12]! & 0xf0) | (((changed[12]! & 0x0f) + 1) & 0x0f);
    expect((await read(changed)).result).toMatchObject({ ok: false, problem: "malformed" });
  });

  it.each<[string, Partial<PackLimits>]>([
    ["objects", { maxObjects: 3 }],
    ["bytes", { maxBytes: 200 }],
    ["inflated bytes", { maxInflatedBytes: 4096 }]
  ])("refuses more commits than it reads (%s), saying so", async (_name, limit) => {
    const pack = repo.pack(["HEAD"], { thin: false });
    const { result, bytesRead } = await read(pack, { chunk: 64, limits: { ...PACK_COMMIT_LIMITS, ...limit } });
    expect(result).toMatchObject({ ok: false, problem: "too-large", reason: expect.stringMatching(/more than the gateway reads .*push fewer commits at a time/) });
    expect(bytesRead).toBeLessThan(pack.length);
  });
});
