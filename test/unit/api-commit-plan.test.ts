/**
 * The pure parts of commits made through GitHub's API: the plan script's files read
 * (src/run/api-commit-plan.ts) into each commit's message and file changes, with the refusals
 * and bounds (a symlink, an executable, a submodule, a path not in UTF-8, a file or a commit over
 * the bound); the streamed `createCommitOnBranch` body (src/run/commit-mutation.ts), which must
 * be the very JSON of the input, with its exact length, whatever the chunks its files arrive in,
 * and must fail rather than send a file of another size; and where GraphQL is for a REST base.
 */
import { describe, expect, it } from "vitest";
import { graphqlUrl } from "../../src/github/commits";
import { commitMessage, fileChanges, MAX_API_COMMIT_BYTES, MAX_API_FILE_BYTES, parsePlan, parseSizes, planExitMeaning } from "../../src/run/api-commit-plan";
import { COMMIT_SCRIPT_EXIT, planScript } from "../../src/run/api-commit-scripts";
import { base64Length, base64Of, commitBody, CREATE_COMMIT_MUTATION, type CommitRequest } from "../../src/run/commit-mutation";

const A = "a".repeat(40);
const B = "b".repeat(40);
const C = "c".repeat(40);
const ZERO = "0".repeat(40);
const raw = (...records: Array<[string, string]>) => {
  const parts = records.flatMap(([meta, path]) => [Buffer.from(meta), Buffer.from([0]), Buffer.from(path), Buffer.from([0])]);
  return new Uint8Array(Buffer.concat(parts));
};

describe("the plan's files", () => {
  it("reads HEAD, the base and each commit with its parents, and refuses a line that is not one", () => {
    expect(parsePlan(`head ${C}\nbase ${A}\ncommit ${B} ${A}\ncommit ${C} ${B}\n`)).toEqual({ head: C, base: A, commits: [{ oid: B, parents: [A] }, { oid: C, parents: [B] }] });
    expect(parsePlan(`head ${A}\nbase ${A}\n`)).toEqual({ head: A, base: A, commits: [] });
    expect(parsePlan(`head ${C}\nbase ${A}\ncommit $(rm -rf /)\n`)).toEqual({ error: expect.stringContaining("not a commit") });
    expect(parsePlan(`commit ${B} ${A}\n`)).toEqual({ error: "the plan names no HEAD or no base" });
    expect(parseSizes(`${A} 12\n${B} 0\nnonsense\n`)).toEqual(new Map([[A, 12], [B, 0]]));
  });

  it("turns a commit's changes into additions by blob and deletions by path: a rename is both", () => {
    const changes = fileChanges(
      raw([`:100644 100644 ${A} ${B} M`, "src/sum.js"], [`:000000 100644 ${ZERO} ${C} A`, "docs/new name.md"], [`:100644 000000 ${A} ${ZERO} D`, "docs/old name.md"], [`:120000 000000 ${A} ${ZERO} D`, "a-link"]),
      new Map([[B, 10], [C, 20]])
    );
    expect(changes).toEqual({
      ok: true,
      bytes: 30,
      changes: {
        additions: [{ path: "src/sum.js", blob: B, size: 10 }, { path: "docs/new name.md", blob: C, size: 20 }],
        deletions: [{ path: "docs/old name.md" }, { path: "a-link" }]
      }
    });
    expect(fileChanges(new Uint8Array(0), new Map())).toEqual({ ok: true, bytes: 0, changes: { additions: [], deletions: [] } });
  });

  it("refuses what the API would write otherwise than the clone has it, naming the path", () => {
    const sizes = new Map([[B, 1]]);
    expect(fileChanges(raw([`:000000 100755 ${ZERO} ${B} A`, "bin/run"]), sizes)).toEqual({ ok: false, why: expect.stringMatching(/^bin\/run is executable, and GitHub's API writes every file it adds as a non-executable one/) });
    expect(fileChanges(raw([`:100644 100755 ${A} ${A} M`, "bin/run"]), sizes)).toEqual({ ok: false, why: expect.stringMatching(/^bin\/run is executable/) });
    expect(fileChanges(raw([`:000000 120000 ${ZERO} ${B} A`, "link"]), sizes)).toEqual({ ok: false, why: expect.stringMatching(/^link is a symbolic link/) });
    expect(fileChanges(raw([`:160000 160000 ${A} ${B} M`, "vendor/lib"]), sizes)).toEqual({ ok: false, why: expect.stringMatching(/^vendor\/lib is a submodule/) });
    const latin1 = new Uint8Array(Buffer.concat([Buffer.from(`:000000 100644 ${ZERO} ${B} A`), Buffer.from([0, 0x63, 0x61, 0x66, 0xe9, 0])]));
    expect(fileChanges(latin1, sizes)).toEqual({ ok: false, why: expect.stringContaining("not UTF-8") });
    expect(fileChanges(raw([`:000000 100644 ${ZERO} ${C} A`, "unsized"]), sizes)).toEqual({ ok: false, why: "unsized: its size was not recorded" });
  });

  it("holds a file and a commit to their bounds", () => {
    expect(fileChanges(raw([`:000000 100644 ${ZERO} ${B} A`, "big.bin"]), new Map([[B, MAX_API_FILE_BYTES]]))).toMatchObject({ ok: true });
    expect(fileChanges(raw([`:000000 100644 ${ZERO} ${B} A`, "big.bin"]), new Map([[B, MAX_API_FILE_BYTES + 1]]))).toEqual({
      ok: false,
      why: "big.bin is 20 MiB, more than the 20 MiB one file may have when it goes through GitHub's API"
    });
    const two = raw([`:000000 100644 ${ZERO} ${B} A`, "one.bin"], [`:000000 100644 ${ZERO} ${C} A`, "two.bin"]);
    expect(fileChanges(two, new Map([[B, MAX_API_FILE_BYTES], [C, MAX_API_COMMIT_BYTES - MAX_API_FILE_BYTES + 1]]))).toEqual({
      ok: false,
      why: "its files add up to 32 MiB, more than the 32 MiB one commit may carry through GitHub's API: split it into smaller commits"
    });
  });

  it("makes a commit's message GitHub's headline and body: the first paragraph's lines joined, the rest as written", () => {
    const object = (message: string) => `tree ${A}\nparent ${B}\nauthor t <t@e> 1 +0000\ncommitter t <t@e> 1 +0000\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n x\n -----END PGP SIGNATURE-----\n\n${message}`;
    expect(commitMessage(object("Add, do not increment\n\nsum(2, 2) was 5.\n\nFixes #7.\n"))).toEqual({ headline: "Add, do not increment", body: "sum(2, 2) was 5.\n\nFixes #7." });
    expect(commitMessage(object("A subject\nwrapped over two lines\n\nThe body.\n"))).toEqual({ headline: "A subject wrapped over two lines", body: "The body." });
    expect(commitMessage(object("One line\n"))).toEqual({ headline: "One line", body: "" });
    expect(commitMessage(object(""))).toEqual({ headline: "(no commit message)", body: "" });
  });

  it("says what a plan's exit means for the model, and builds no script for a head or branch that is not one", () => {
    expect(planExitMeaning(COMMIT_SCRIPT_EXIT.diverged, "/workspace/repo", "agent-think/issue-7")).toContain("git fetch origin agent-think/issue-7, rebase your commits onto FETCH_HEAD");
    expect(planExitMeaning(0, "/workspace/repo", "b")).toBeNull();
    const target = { github: { web: "https://github.com" }, repo: "acme/widgets", defaultBranch: "main", maxCommits: 50, maxFileBytes: 10 };
    expect(() => planScript({ ...target, remoteHead: "HEAD; rm -rf /" })).toThrow(/not a commit id/);
    expect(() => planScript({ ...target, remoteHead: null, defaultBranch: "main; rm -rf /" })).toThrow(/not a branch name/);
    const script = planScript({ ...target, remoteHead: A });
    expect(script.split("\n")[0]).toBe("# agent-think commits: plan");
    expect(script).toContain("core.hooksPath");
    expect(script).toContain("git init --quiet --template= .");
  });
});

/** A stream of `bytes` in pieces of the given sizes, as the workspace's files may arrive. */
function streamOf(bytes: Uint8Array, pieces: number[]): ReadableStream<Uint8Array> {
  let at = 0;
  let index = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      const size = pieces[index++ % pieces.length]!;
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    }
  });
}

async function text(stream: ReadableStream<Uint8Array>): Promise<string> {
  return new TextDecoder().decode(new Uint8Array(await new Response(stream).arrayBuffer()));
}

describe("the streamed createCommitOnBranch body", () => {
  const bytes = new Uint8Array(20_003).map((_, index) => (index * 7919) % 256);
  const request = (read: () => ReadableStream<Uint8Array>, size = bytes.length): CommitRequest => ({
    repo: "acme/widgets",
    branch: "agent-think/issue-7",
    expectedHeadOid: A,
    message: { headline: "Add \"quoted\" ünïcode", body: "line one\nline two" },
    deletions: [{ path: "old name.md" }],
    additions: [
      { path: "data/fixture.bin", size, read: async () => read() },
      { path: "empty.txt", size: 0, read: async () => streamOf(new Uint8Array(0), [1]) }
    ]
  });

  it("is the input's own JSON, with its exact length, whatever pieces the files arrive in", async () => {
    for (const pieces of [[1], [2, 5], [3], [65_536], [20_003]]) {
      const { stream, length } = commitBody(request(() => streamOf(bytes, pieces)));
      const body = await text(stream);
      expect(new TextEncoder().encode(body).length).toBe(length);
      expect(JSON.parse(body)).toEqual({
        query: CREATE_COMMIT_MUTATION,
        variables: {
          input: {
            branch: { repositoryNameWithOwner: "acme/widgets", branchName: "agent-think/issue-7" },
            expectedHeadOid: A,
            message: { headline: "Add \"quoted\" ünïcode", body: "line one\nline two" },
            fileChanges: {
              deletions: [{ path: "old name.md" }],
              additions: [{ path: "data/fixture.bin", contents: Buffer.from(bytes).toString("base64") }, { path: "empty.txt", contents: "" }]
            }
          }
        }
      });
    }
    expect(base64Length(0)).toBe(0);
    expect(base64Length(4)).toBe(8);
  });

  it("fails rather than send a file shorter or longer than its recorded size", async () => {
    await expect(text(commitBody(request(() => streamOf(bytes.slice(0, 10), [4]))).stream)).rejects.toThrow("data/fixture.bin holds 10 bytes, not its recorded 20003");
    await expect(text(commitBody(request(() => streamOf(bytes, [4096]), 50)).stream)).rejects.toThrow("data/fixture.bin holds more than its recorded 50 bytes");
    const pieces: string[] = [];
    for await (const piece of base64Of(streamOf(new Uint8Array([1, 2, 3, 4]), [1]), { path: "x", size: 4 })) pieces.push(new TextDecoder().decode(piece));
    expect(pieces.join("")).toBe("AQIDBA==");
  });

  it("goes to GraphQL beside the REST base: api.github.com/graphql, and an Enterprise Server's /api/graphql", () => {
    expect(graphqlUrl("https://api.github.com")).toBe("https://api.github.com/graphql");
    expect(graphqlUrl("https://github.example.com/api/v3/")).toBe("https://github.example.com/api/graphql");
    expect(graphqlUrl("http://127.0.0.1:8790")).toBe("http://127.0.0.1:8790/graphql");
  });
});
