/**
 * The GitHub stand-in's GraphQL endpoint and branches (scripts/lib/github-standin-graphql.ts,
 * github-standin-branches.ts): every query judged against GitHub's published schema (an
 * unknown field, a bad variable, an unparsable document refused as GitHub answers them, 200
 * with `errors`, and recorded as refusals); `createCommitOnBranch` recorded as made through the
 * API with its file changes, moving the branch, and refused on a stale expected head;
 * `repository { defaultBranchRef, ref }` reading heads; seeded rules answered by
 * `repos/get-branch-rules` (a branch name with a slash too) and a branch created with
 * `git/create-ref`, both checked against the REST description's response schemas; the same
 * through an Enterprise Server's `/api/graphql`; and with a bare repository behind the branches,
 * real commits a clone fetches.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { describe, expect, it } from "vitest";
import { lacks, needs } from "../support/external-tools";
import { standinFixture } from "./standin-fixture";

const dirs: string[] = [];
const { start, description } = standinFixture(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const REPO = "acme/widgets";
const BRANCH = "agent-think/issue-7";
const BASE = "b".repeat(40);
const MUTATION = "mutation Commit($input: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $input) { commit { oid url } ref { name target { oid } } } }";
const HEADS = "query Heads($owner: String!, $name: String!, $ref: String!) { repository(owner: $owner, name: $name) { defaultBranchRef { name target { oid } } ref(qualifiedName: $ref) { target { oid } } } }";

const b64 = (text: string | Buffer) => Buffer.from(text).toString("base64");
const input = (expectedHeadOid: string, fileChanges: Record<string, unknown> = { additions: [{ path: "src/sum.js", contents: b64("a + b\n") }] }) => ({
  branch: { repositoryNameWithOwner: REPO, branchName: BRANCH },
  expectedHeadOid,
  message: { headline: "Add, do not increment", body: "sum(2, 2) was 5." },
  fileChanges
});

async function post(url: string, body: unknown, path = "/graphql") {
  const response = await fetch(`${url}${path}`, { method: "POST", headers: { "content-type": "application/json", authorization: "token ghs_run" }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as { data?: Record<string, unknown>; errors?: Array<{ message: string; type?: string }>; message?: string } };
}

describe("the stand-in's GraphQL endpoint", () => {
  it("makes a commit through createCommitOnBranch: recorded as made through the API with its file changes, the branch moved", async () => {
    const standin = await start();
    standin.seedBranch({ repo: REPO, branch: BRANCH, sha: BASE });
    const made = await post(standin.url, { query: MUTATION, variables: { input: input(BASE, { additions: [{ path: "src/sum.js", contents: b64("a + b\n") }], deletions: [{ path: "old.txt" }] }) } });
    expect(made.status).toBe(200);
    expect(made.body.errors).toBeUndefined();
    const commit = (made.body.data!.createCommitOnBranch as { commit: { oid: string; url: string } }).commit;
    expect(commit.oid).toMatch(/^[0-9a-f]{40}$/);
    expect(commit.url).toBe(`${standin.url}/${REPO}/commit/${commit.oid}`);
    const [recorded] = standin.apiCommits();
    expect(recorded).toMatchObject({ repo: REPO, branch: BRANCH, oid: commit.oid, parent: BASE, headline: "Add, do not increment", body: "sum(2, 2) was 5.", author: "agent-think[bot]", signed: true, deletions: [{ path: "old.txt" }] });
    expect(recorded!.additions.map((addition) => [addition.path, addition.contents.toString("utf8")])).toEqual([["src/sum.js", "a + b\n"]]);
    // The branch moved: the heads query reads the new commit, and the default branch has its (made-up) first commit.
    const heads = await post(standin.url, { query: HEADS, variables: { owner: "acme", name: "widgets", ref: `refs/heads/${BRANCH}` } });
    expect(heads.body).toEqual({ data: { repository: { defaultBranchRef: { name: "main", target: { oid: expect.stringMatching(/^[0-9a-f]{40}$/) } }, ref: { target: { oid: commit.oid } } } } });
    // The record keeps each file's size, not its contents; nothing was refused.
    const record = standin.records().find((entry) => entry.operation === "graphql mutation createCommitOnBranch")!;
    expect(JSON.stringify(record.body)).toContain("<base64 of 6 bytes>");
    expect(standin.refusals()).toEqual([]);
  });

  it("refuses a query GitHub's schema does not have, a variable of the wrong type, and a document that does not parse: 200 with errors, each a refusal", async () => {
    const standin = await start();
    const unknown = await post(standin.url, { query: 'query { repository(owner: "acme", name: "widgets") { signedCommits } }' });
    expect(unknown).toEqual({ status: 200, body: { errors: [{ message: 'Cannot query field "signedCommits" on type "Repository".', locations: [{ line: 1, column: 54 }] }] } });
    const badOid = await post(standin.url, { query: MUTATION, variables: { input: input("not-an-oid") } });
    expect(badOid.body.errors?.[0]?.message).toMatch(/^Variable "\$input" got invalid value "not-an-oid" at "input\.expectedHeadOid"; .* is not a git object id/);
    const badBase64 = await post(standin.url, { query: MUTATION, variables: { input: input(BASE, { additions: [{ path: "a", contents: "aGk" }] }) } });
    expect(badBase64.body.errors?.[0]?.message).toMatch(/at "input\.fileChanges\.additions\[0\]\.contents"; "aGk" is not RFC 4648 base64/);
    const noHeadline = await post(standin.url, { query: MUTATION, variables: { input: { ...input(BASE), message: {} } } });
    expect(noHeadline.body.errors?.[0]?.message).toMatch(/Field "headline" of required type "String!" was not provided/);
    const broken = await post(standin.url, { query: "query { repository(" });
    expect(broken.body.errors?.[0]?.message).toMatch(/^Syntax Error/);
    const none = await post(standin.url, { variables: {} });
    expect(none.body).toEqual({ errors: [{ message: "A query attribute must be specified and must be a string." }] });
    expect(standin.refusals().map((record) => [record.path, record.refused!.status])).toEqual([
      ["/graphql", 200],
      ["/graphql", 200],
      ["/graphql", 200],
      ["/graphql", 200],
      ["/graphql", 200],
      ["/graphql", 200]
    ]);
    expect(standin.apiCommits()).toEqual([]);
  });

  it("refuses a commit whose expected head is stale, in GitHub's words and type, and moves nothing", async () => {
    const standin = await start();
    standin.seedBranch({ repo: REPO, branch: BRANCH, sha: BASE });
    const stale = "c".repeat(40);
    const refused = await post(standin.url, { query: MUTATION, variables: { input: input(stale) } });
    expect(refused.status).toBe(200);
    expect(refused.body.data).toEqual({ createCommitOnBranch: null });
    expect(refused.body.errors).toEqual([
      { type: "STALE_DATA", message: `Expected branch to point to "${stale}" but it did not. Pull and try again.`, locations: [{ line: 1, column: 55 }], path: ["createCommitOnBranch"] }
    ]);
    expect(standin.refusals().map((record) => record.refused!.message)).toEqual([`STALE_DATA: Expected branch to point to "${stale}" but it did not. Pull and try again.`]);
    // A branch GitHub does not have, a path twice: refused too.
    const missing = await post(standin.url, { query: MUTATION, variables: { input: { ...input(BASE), branch: { repositoryNameWithOwner: REPO, branchName: "nope" } } } });
    expect(missing.body.errors?.[0]).toMatchObject({ type: "NOT_FOUND" });
    const twice = await post(standin.url, { query: MUTATION, variables: { input: input(BASE, { additions: [{ path: "a", contents: b64("1") }], deletions: [{ path: "a" }] }) } });
    expect(twice.body.errors?.[0]).toMatchObject({ type: "UNPROCESSABLE" });
    expect(standin.apiCommits()).toEqual([]);
    const heads = await post(standin.url, { query: HEADS, variables: { owner: "acme", name: "widgets", ref: `refs/heads/${BRANCH}` } });
    expect((heads.body.data!.repository as { ref: { target: { oid: string } } }).ref.target.oid).toBe(BASE);
  });

  it("answers a field it does not model with a 501, recorded as a refusal, never a silent null", async () => {
    const standin = await start();
    const asked = await post(standin.url, { query: 'query { repository(owner: "acme", name: "widgets") { isPrivate } }' });
    expect(asked.status).toBe(501);
    expect(asked.body.message).toBe("The GitHub stand-in does not model Repository.isPrivate");
    expect(standin.refusals()).toHaveLength(1);
  });

  it("serves an Enterprise Server's /api/graphql beside /api/v3", async () => {
    const standin = await start({ description: "ghes-3.19" });
    standin.seedBranch({ repo: REPO, branch: BRANCH, sha: BASE });
    const made = await post(standin.url, { query: MUTATION, variables: { input: input(BASE) } }, "/api/graphql");
    expect(made.body.errors).toBeUndefined();
    expect(standin.apiCommits()).toHaveLength(1);
    expect(standin.refusals()).toEqual([]);
  });
});

describe("the stand-in's branches over REST", () => {
  it("answers a branch's seeded rules (a name with a slash, as Octokit sends it) and none for another branch", async () => {
    const standin = await start();
    standin.seedRules({ repo: REPO, branches: [BRANCH, "main"], rules: [{ type: "required_signatures" }] });
    const octokit = new Octokit({ baseUrl: standin.url, auth: "ghs_run" });
    const rules = await octokit.rest.repos.getBranchRules({ owner: "acme", repo: "widgets", branch: BRANCH });
    expect(rules.data).toEqual([{ type: "required_signatures", ruleset_source_type: "Repository", ruleset_source: REPO, ruleset_id: 1 }]);
    expect(description().checkResponse("repos/get-branch-rules", rules.status, rules.data)).toEqual([]);
    expect((await octokit.rest.repos.getBranchRules({ owner: "acme", repo: "widgets", branch: "feature" })).data).toEqual([]);
    expect(standin.refusals()).toEqual([]);
  });

  it("creates a branch at a commit with git/create-ref, and answers GitHub's 422 when it exists", async () => {
    const standin = await start();
    const octokit = new Octokit({ baseUrl: standin.url, auth: "ghs_run" });
    const created = await octokit.rest.git.createRef({ owner: "acme", repo: "widgets", ref: `refs/heads/${BRANCH}`, sha: BASE });
    expect(created.status).toBe(201);
    expect(created.data).toMatchObject({ ref: `refs/heads/${BRANCH}`, object: { type: "commit", sha: BASE } });
    expect(description().checkResponse("git/create-ref", created.status, created.data)).toEqual([]);
    await expect(octokit.rest.git.createRef({ owner: "acme", repo: "widgets", ref: `refs/heads/${BRANCH}`, sha: BASE })).rejects.toMatchObject({ status: 422, message: expect.stringContaining("Reference already exists") });
    const made = await post(standin.url, { query: MUTATION, variables: { input: input(BASE) } });
    expect(made.body.errors).toBeUndefined();
  });
});

describe(`with a bare repository behind the branches${needs("git-http-backend")}`, { skip: lacks("git-http-backend") }, () => {
  it("makes real commits: the added file plain and non-executable, the deleted one gone, the parent the branch's head; a deletion of a missing path refused", async () => {
    const root = mkdtempSync(join(tmpdir(), "standin-git-"));
    dirs.push(root);
    const git = (args: string[], cwd = root) => {
      const result = spawnSync("git", args, { cwd, encoding: "utf8", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@e", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@e" } });
      if (result.status !== 0) throw new Error(result.stderr);
      return result.stdout.trim();
    };
    git(["init", "-q", "--bare", "-b", "main", "bare.git"]);
    git(["clone", "-q", "bare.git", "work"]);
    const work = join(root, "work");
    spawnSync("bash", ["-c", "printf 'old\\n' > old.txt && printf 'x\\n' > keep.txt && git add . && git commit -qm first && git push -q origin HEAD:main"], { cwd: work, env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@e", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@e" } });
    const base = git(["rev-parse", "main"], join(root, "bare.git"));
    const standin = await start();
    standin.seedGit({ repo: REPO, dir: join(root, "bare.git") });
    const octokit = new Octokit({ baseUrl: standin.url, auth: "ghs_run" });
    await octokit.rest.git.createRef({ owner: "acme", repo: "widgets", ref: `refs/heads/${BRANCH}`, sha: base });
    const missing = await post(standin.url, { query: MUTATION, variables: { input: input(base, { deletions: [{ path: "nope.txt" }] }) } });
    expect(missing.body.errors?.[0]).toMatchObject({ type: "UNPROCESSABLE", message: `A path was requested for deletion which does not exist as of commit oid \`${base}\`` });
    const made = await post(standin.url, { query: MUTATION, variables: { input: input(base, { additions: [{ path: "bin/data.bin", contents: b64(Buffer.from([0, 255, 10, 13])) }], deletions: [{ path: "old.txt" }] }) } });
    expect(made.body.errors, JSON.stringify(made.body)).toBeUndefined();
    const oid = (made.body.data!.createCommitOnBranch as { commit: { oid: string } }).commit.oid;
    git(["fetch", "-q", "origin", BRANCH], work);
    expect(git(["rev-parse", "FETCH_HEAD"], work)).toBe(oid);
    expect(git(["rev-parse", "FETCH_HEAD^"], work)).toBe(base);
    expect(git(["ls-tree", "-r", "FETCH_HEAD"], work).split("\n").map((line) => line.replace(/ [0-9a-f]{40}\t/, " "))).toEqual(["100644 blob bin/data.bin", "100644 blob keep.txt"]);
    expect(git(["log", "-1", "--format=%an|%s|%b|%cn", "FETCH_HEAD"], work)).toBe("agent-think[bot]|Add, do not increment|sum(2, 2) was 5.\n|GitHub");
    expect(spawnSync("git", ["cat-file", "blob", `FETCH_HEAD:bin/data.bin`], { cwd: work }).stdout).toEqual(Buffer.from([0, 255, 10, 13]));
  });
});
