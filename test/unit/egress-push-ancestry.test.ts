/**
 * The gateway's fast-forward check on push bodies made of a command list
 * (built here from gitprotocol-pack(5)) and a pack written by this
 * machine's real git (test/support/git-packs.ts). Where the check asks
 * GitHub, `ask` answers from the same repository with `git merge-base
 * --is-ancestor`, standing in for GitHub's compare API, and "unknown" for a
 * commit GitHub is taken not to have; every question is recorded.
 * compareAsker is checked against a recording upstream: the request it
 * makes and how it reads each answer.
 */
import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BodyReader } from "../../src/egress/body-reader";
import { PACK_COMMIT_LIMITS } from "../../src/egress/pack-commits";
import { compareAsker, fastForwardRefusal, isAncestor, MAX_COMPARE_ANSWER_BYTES, MAX_COMPARE_CALLS, type Ancestry } from "../../src/egress/push-ancestry";
import { readCommands, type RefUpdate } from "../../src/egress/receive-pack";
import { GitRepoFixture } from "../support/git-packs";
import { concat, chunked, readAll } from "./bytes";

const encoder = new TextEncoder();
const BRANCH = "agent/issue-7";
const REF = `refs/heads/${BRANCH}`;
const CAPS = "report-status side-band-64k object-format=sha1 agent=git/2.39.5";
const NOT_FAST_FORWARD = `push refused: not a fast-forward of ${BRANCH} (the gateway refuses force pushes; fetch, merge or rebase onto what GitHub has, and push again)`;
const UNVERIFIED = new RegExp(`^push refused: could not verify that this push is a fast-forward of ${BRANCH} \\(.+\\); the gateway refuses what it cannot verify$`);

function pkt(data: string): Uint8Array {
  const bytes = encoder.encode(data);
  return concat(encoder.encode((bytes.length + 4).toString(16).padStart(4, "0")), bytes);
}

const FLUSH = encoder.encode("0000");

function body(commands: RefUpdate[], pack: Uint8Array, options: { capabilities?: string; pushOptions?: string[] } = {}): Uint8Array {
  const lines = commands.map((command, index) => pkt(`${command.old} ${command.new} ${command.ref}${index === 0 ? `\0${options.capabilities ?? CAPS}` : ""}\n`));
  const pushOptions = options.pushOptions ? [...options.pushOptions.map((option) => pkt(`${option}\n`)), FLUSH] : [];
  return concat(...lines, FLUSH, ...pushOptions, pack);
}

let repo: GitRepoFixture;
let root: string;
let first: string;
let second: string;
let amended: string;
let mainTip: string;
let merged: string;
let longBase: string;
let longTip: string;

/** GitHub as modelled here: the repository's own answer, for the commits GitHub has. */
function askFrom(fixture: GitRepoFixture, githubHas: (commit: string) => boolean) {
  const asked: [string, string][] = [];
  const ask = async (old: string, commit: string): Promise<Ancestry> => {
    asked.push([old, commit]);
    if (!githubHas(commit)) return "unknown";
    const status = spawnSync("git", ["merge-base", "--is-ancestor", old, commit], { cwd: fixture.dir }).status;
    return status === 0 ? "yes" : status === 1 ? "no" : "unknown";
  };
  return { ask, asked };
}

async function check(input: Uint8Array, ask: (old: string, commit: string) => Promise<Ancestry>, limits = PACK_COMMIT_LIMITS, chunk = 512) {
  const read = await readCommands(chunked(input, chunk));
  if (!read.ok) throw new Error(read.reason);
  const refusal = await fastForwardRefusal(read, BRANCH, ask, limits);
  return { refusal, read };
}

beforeAll(() => {
  repo = GitRepoFixture.create();
  root = repo.commit("root", { "README.md": "# fixture\n" });
  repo.git(["checkout", "-q", "-b", "run"]);
  first = repo.commit("first", { "a.txt": "a\n" });
  second = repo.commit("second", { "b.txt": "b\n" });
  repo.git(["commit", "-q", "--amend", "-m", "second, amended"]);
  amended = repo.head();
  repo.git(["checkout", "-q", "main"]);
  mainTip = repo.commit("main moves on", { "MAIN.md": "main\n" });
  repo.git(["checkout", "-q", "run"]);
  repo.git(["reset", "-q", "--hard", second]);
  repo.git(["merge", "-q", "--no-ff", "-m", "merge main", "main"]);
  merged = repo.head();
  const long = Array.from({ length: 300 }, (_, i) => `line ${i % 7} of a long commit message body`).join("\n");
  repo.git(["checkout", "-q", "-b", "long", first]);
  longBase = repo.commit(`long one\n\n${long}\n`);
  longTip = repo.commit(`long two\n\n${long}\nand one more line\n`);
  repo.git(["checkout", "-q", "run"]);
});

afterAll(() => repo.close());

/** What GitHub has before the push: everything up to `second` on the run's branch, and main. */
const onGitHub = (commit: string) => [root, first, second, mainTip].includes(commit);

describe("fastForwardRefusal", () => {
  it("passes a fast-forward found in the pack, asking GitHub nothing", async () => {
    const { ask, asked } = askFrom(repo, onGitHub);
    const input = body([{ old: first, new: second, ref: REF }], repo.pack([second, `^${first}`]));
    const { refusal, read } = await check(input, ask, PACK_COMMIT_LIMITS, 7);
    expect(refusal).toBeNull();
    expect(asked).toEqual([]);
    // Only the commits were read, in many chunks; the body replays whole, what was read and then the rest.
    expect(read.source.bytes.length).toBeLessThan(input.length);
    expect(await readAll(read.body)).toEqual(input);
  });

  it("passes a merge of main into the branch: the walk meets the old tip among the merge's parents", async () => {
    const { ask, asked } = askFrom(repo, onGitHub);
    const { refusal } = await check(body([{ old: second, new: merged, ref: REF }], repo.pack([merged, `^${second}`, `^${mainTip}`])), ask);
    expect(refusal).toBeNull();
    expect(asked).toEqual([]);
  });

  it("refuses an amended commit: the walk leaves the pack at its parent, and GitHub says the old tip is not an ancestor", async () => {
    const { ask, asked } = askFrom(repo, onGitHub);
    const { refusal } = await check(body([{ old: second, new: amended, ref: REF }], repo.pack([amended, `^${second}`])), ask);
    expect(refusal).toBe(NOT_FAST_FORWARD);
    expect(asked).toEqual([[second, first]]);
  });

  it("asks GitHub when the new commit is one it already has (an empty pack): ahead passes, behind is refused", async () => {
    const forward = askFrom(repo, onGitHub);
    expect((await check(body([{ old: first, new: second, ref: REF }], repo.pack([second, `^${second}`])), forward.ask)).refusal).toBeNull();
    expect(forward.asked).toEqual([[first, second]]);

    const back = askFrom(repo, onGitHub);
    expect((await check(body([{ old: second, new: first, ref: REF }], repo.pack([first, `^${second}`])), back.ask)).refusal).toBe(NOT_FAST_FORWARD);
    expect(back.asked).toEqual([[second, first]]);
  });

  it("refuses, as unverified, when GitHub gives no answer", async () => {
    const { ask, asked } = askFrom(repo, () => false);
    const { refusal } = await check(body([{ old: second, new: amended, ref: REF }], repo.pack([amended, `^${second}`])), ask);
    expect(refusal).toMatch(UNVERIFIED);
    expect(refusal).toContain("GitHub's compare API gave no answer");
    expect(asked).toHaveLength(1);
  });

  it("refuses a REF_DELTA commit whose base the push does not carry: GitHub does not have the commit either", async () => {
    // git stores the newer of two commits with long, similar messages whole and the older as a delta against it.
    const pack = repo.packOf([longTip, longBase], { deltaBaseOffset: false });
    const entries = repo.entries(pack);
    expect(entries.map((entry) => [entry.id, entry.base])).toEqual([
      [longTip, undefined],
      [longBase, longTip]
    ]);
    const { ask, asked } = askFrom(repo, onGitHub);
    const { refusal } = await check(body([{ old: first, new: longTip, ref: REF }], dropFirstObject(pack, entries[0]!.packedSize)), ask);
    expect(refusal).toMatch(UNVERIFIED);
    expect(asked).toEqual([[first, longTip]]);
    // The same pack whole is a fast-forward decided in the pack.
    expect((await check(body([{ old: first, new: longTip, ref: REF }], pack), ask)).refusal).toBeNull();
  });

  it("creates the branch without reading the pack", async () => {
    const { ask, asked } = askFrom(repo, onGitHub);
    const { refusal, read } = await check(body([{ old: "0".repeat(40), new: amended, ref: REF }], encoder.encode("not a pack at all")), ask);
    expect(refusal).toBeNull();
    expect(asked).toEqual([]);
    expect(read.source.bytes.length).toBeLessThan(200);
  });

  it("reads the pack after the push options the client sent", async () => {
    const { ask } = askFrom(repo, onGitHub);
    const input = body([{ old: first, new: second, ref: REF }], repo.pack([second, `^${first}`]), { capabilities: `${CAPS} push-options`, pushOptions: ["ci.skip", "x=y"] });
    expect((await check(input, ask, PACK_COMMIT_LIMITS, 3)).refusal).toBeNull();
  });

  it.each([
    ["a body that ends after the commands", new Uint8Array(0), /the push ended before its pack did/],
    ["a pack cut short", (pack: Uint8Array) => pack.subarray(0, 40), /the push ended before its pack did/],
    ["bytes that are not a pack", encoder.encode("PACK but not really one at all"), /the push's pack is not one git writes/]
  ])("refuses %s as unverified", async (_name, tail, reason) => {
    const { ask } = askFrom(repo, onGitHub);
    const pack = typeof tail === "function" ? tail(repo.pack([second, `^${first}`])) : tail;
    const { refusal } = await check(body([{ old: first, new: second, ref: REF }], pack), ask);
    expect(refusal).toMatch(UNVERIFIED);
    expect(refusal).toMatch(reason);
  });

  it("refuses more commits than it reads, saying to push fewer at a time", async () => {
    const { ask } = askFrom(repo, onGitHub);
    const { refusal } = await check(body([{ old: root, new: merged, ref: REF }], repo.pack([merged, `^${root}`])), ask, { ...PACK_COMMIT_LIMITS, maxObjects: 2 });
    expect(refusal).toMatch(UNVERIFIED);
    expect(refusal).toContain("push fewer commits at a time");
  });

  it("refuses object ids of two lengths", async () => {
    const { ask } = askFrom(repo, onGitHub);
    const { refusal } = await check(body([{ old: "1".repeat(64), new: second, ref: REF }], repo.pack([second, `^${first}`])), ask);
    expect(refusal).toContain("its object ids are of two lengths");
  });
});

describe("isAncestor", () => {
  const commits = new Map<string, string[]>([
    ["c", ["b"]],
    ["b", ["a"]],
    ["m", ["c", "x"]],
    ["r", []]
  ]);
  const asking = (answers: Record<string, Ancestry>) => {
    const asked: string[] = [];
    return { asked, ask: async (_old: string, commit: string) => (asked.push(commit), answers[commit] ?? "unknown") };
  };

  it("is yes for the same commit, and for one reached in the pack", async () => {
    const { ask, asked } = asking({});
    expect(await isAncestor("m", "m", commits, ask, { calls: 4 })).toEqual({ answer: "yes" });
    expect(await isAncestor("b", "m", commits, ask, { calls: 4 })).toEqual({ answer: "yes" });
    expect(asked).toEqual([]);
  });

  it("is no when every path ends at a root in the pack", async () => {
    expect(await isAncestor("a", "r", commits, asking({}).ask, { calls: 4 })).toEqual({ answer: "no" });
  });

  it("asks about each commit where the walk leaves the pack, and stops at the first yes", async () => {
    const both = asking({ a: "yes", x: "yes" });
    expect(await isAncestor("old", "m", commits, both.ask, { calls: 4 })).toEqual({ answer: "yes" });
    expect(both.asked).toHaveLength(1);
    const one = asking({ a: "no", x: "yes" });
    expect(await isAncestor("old", "m", commits, one.ask, { calls: 4 })).toEqual({ answer: "yes" });
    expect(one.asked).toContain("x");
  });

  it("is no only when GitHub says no for every one, unknown when it cannot say for one", async () => {
    const no = asking({ a: "no", x: "no" });
    expect(await isAncestor("old", "m", commits, no.ask, { calls: 4 })).toEqual({ answer: "no" });
    expect(no.asked.sort()).toEqual(["a", "x"]);
    expect(await isAncestor("old", "m", commits, asking({ a: "no" }).ask, { calls: 4 })).toEqual({ answer: "unknown", why: "GitHub's compare API gave no answer" });
  });

  it("spends the push's budget of calls across its commands", async () => {
    const budget = { calls: 2 };
    await isAncestor("old", "m", commits, asking({ a: "no", x: "no" }).ask, budget);
    expect(budget.calls).toBe(0);
    expect(await isAncestor("old", "c", commits, asking({ a: "yes" }).ask, budget)).toMatchObject({ answer: "unknown" });
  });

  it("asks nothing when more commits leave the pack than the calls left, and says so", async () => {
    const wide = new Map([["n", Array.from({ length: MAX_COMPARE_CALLS + 1 }, (_, i) => `p${i}`)]]);
    const { ask, asked } = asking({});
    expect(await isAncestor("old", "n", wide, ask, { calls: MAX_COMPARE_CALLS })).toEqual({
      answer: "unknown",
      why: `its history leaves the pack at ${MAX_COMPARE_CALLS + 1} commits, more than the gateway asks GitHub about`
    });
    expect(asked).toEqual([]);
  });
});

describe("compareAsker", () => {
  const OLD = "1".repeat(40);
  const COMMIT = "2".repeat(40);

  function asker(reply: (request: Request) => Response | Promise<Response>) {
    const sent: Request[] = [];
    const ask = compareAsker({ api: "https://api.github.com/", repo: "octo/repo", token: "ghs_WRITE", upstream: async (request) => (sent.push(request), reply(request)) });
    return { ask, sent };
  }
  const json = (value: unknown, status = 200) => new Response(JSON.stringify(value), { status, headers: { "content-type": "application/json" } });

  it("asks GitHub's compare API with the write token, never following a redirect", async () => {
    const { ask, sent } = asker(() => json({ status: "ahead", ahead_by: 2, behind_by: 0 }));
    expect(await ask(OLD, COMMIT)).toBe("yes");
    expect(sent).toHaveLength(1);
    expect(sent[0]!.method).toBe("GET");
    expect(sent[0]!.url).toBe(`https://api.github.com/repos/octo/repo/compare/${OLD}...${COMMIT}?per_page=1`);
    expect(sent[0]!.headers.get("authorization")).toBe("token ghs_WRITE");
    expect(sent[0]!.headers.get("accept")).toBe("application/vnd.github+json");
    expect(sent[0]!.redirect).toBe("manual");
  });

  it.each<[string, () => Response | Promise<Response>, Ancestry]>([
    ["identical", () => json({ status: "identical" }), "yes"],
    ["behind", () => json({ status: "behind" }), "no"],
    ["diverged", () => json({ status: "diverged" }), "no"],
    ["a 404 (a commit GitHub does not have)", () => json({ message: "Not Found" }, 404), "unknown"],
    ["a 500", () => json({ message: "boom" }, 500), "unknown"],
    ["a redirect", () => new Response(null, { status: 302, headers: { location: "https://elsewhere.example/" } }), "unknown"],
    ["a status it does not know", () => json({ status: "sideways" }), "unknown"],
    ["an answer that is not JSON", () => new Response("<html>", { status: 200 }), "unknown"],
    ["an answer past MAX_COMPARE_ANSWER_BYTES", () => new Response(`{"status":"ahead","files":"${"x".repeat(MAX_COMPARE_ANSWER_BYTES)}"}`), "unknown"],
    ["a network failure", () => Promise.reject(new TypeError("fetch failed")), "unknown"]
  ])("reads %s", async (_name, reply, answer) => {
    expect(await asker(reply).ask(OLD, COMMIT)).toBe(answer);
  });
});

/** The pack without its first object (count one less; its checksum no longer matches, which the reader does not check). */
function dropFirstObject(pack: Uint8Array, size: number): Uint8Array {
  const count = new DataView(pack.buffer, pack.byteOffset).getUint32(8) - 1;
  return concat(pack.subarray(0, 8), Uint8Array.of(count >>> 24, (count >>> 16) & 255, (count >>> 8) & 255, count & 255), pack.subarray(12 + size));
}
