/**
 * Branches, their rules, and commits made through the API, as the GitHub stand-in models them
 * (docs/github-standin.md, "Branches, rules and commits"): a branch's head is seeded
 * (`seedBranch`) or read from a bare repository seeded behind the repository (`seedGit`,
 * github-standin-git.ts), and an unseeded default branch has a made-up head; `git/create-ref`
 * creates one; `repos/get-branch-rules` answers the seeded rules (`seedRules`); GraphQL's
 * `repository { defaultBranchRef, ref }` reads heads, and `createCommitOnBranch` checks the
 * expected head, makes the commit (for real in a seeded repository), moves the branch, and
 * records it as made through the API with its file changes (`apiCommits`).
 */
import { createHash } from "node:crypto";
import { errorAnswer, notModelled, pageOf, type StandinAnswer, type StandinBasics, type StandinCall } from "./github-standin-answers";
import { StandinGitRepo } from "./github-standin-git";

export type BranchSeed = { repo: string; branch: string; sha: string };
/** Rules that apply to `branches` of `repo` (every branch when absent), as a repository ruleset's. */
export type RulesSeed = { repo: string; branches?: string[]; rules: Array<{ type: string; parameters?: Record<string, unknown> }> };
export type GitSeed = { repo: string; dir: string };

/** A commit GitHub made for a `createCommitOnBranch`: what it was asked, and what it became. */
export type ApiCommit = {
  repo: string;
  branch: string;
  oid: string;
  parent: string;
  headline: string;
  body: string;
  additions: Array<{ path: string; contents: Buffer }>;
  deletions: Array<{ path: string }>;
  /** Who it is authored by: the caller (the App's bot for an installation token). */
  author: string;
  /** GitHub signs the commits this mutation makes; the stand-in records that it would have (it has no key). */
  signed: true;
  at: string;
};

/**
 * What `createCommitOnBranch` comes to: the payload; GitHub's refusal, its `type` and message;
 * or a valid request the stand-in does not model (a 501). Returned, never thrown: an Error's
 * stack is formatted on the way to GraphQL's error, which vitest's module runner cannot do for
 * a stand-in its global setup started.
 */
export type CommitOutcome = { payload: Record<string, unknown> } | { failure: { type: string; message: string } } | { unmodelled: string };

const REFS_DOCS_URL = "https://docs.github.com/rest/git/refs#create-a-reference";

/** What branches need of the rest of the stand-in: a repository's default branch, and who a login is as a commit's author. */
export type BranchesDeps = { defaultBranch: (repo: string) => string; author: (login: string) => { name: string; email: string } };

type CommitInput = {
  branch: { repositoryNameWithOwner?: string; branchName?: string; id?: string };
  expectedHeadOid: string;
  message: { headline: string; body?: string | null };
  fileChanges?: { additions?: Array<{ path: string; contents: string }>; deletions?: Array<{ path: string }> } | null;
};

export class StandinBranches {
  readonly #basics: StandinBasics;
  readonly #deps: BranchesDeps;
  /** Heads of repositories without a git directory, by `<repo lowercase> <branch>`. */
  readonly #heads = new Map<string, string>();
  readonly #rules = new Map<string, RulesSeed[]>();
  readonly #git = new Map<string, StandinGitRepo>();
  readonly #commits: ApiCommit[] = [];

  constructor(basics: StandinBasics, deps: BranchesDeps) {
    this.#basics = basics;
    this.#deps = deps;
  }

  seedBranch(seed: BranchSeed): void {
    this.#heads.set(headKey(seed.repo, seed.branch), seed.sha);
  }

  seedRules(seed: RulesSeed): void {
    const key = seed.repo.toLowerCase();
    this.#rules.set(key, [...(this.#rules.get(key) ?? []), seed]);
  }

  seedGit(seed: GitSeed): void {
    this.#git.set(seed.repo.toLowerCase(), new StandinGitRepo(seed.dir));
  }

  /** The commits made through the API so far, oldest first. */
  apiCommits(): ApiCommit[] {
    return [...this.#commits];
  }

  /** Forgets the commits made (what was posted); seeded heads, rules and repositories stay. */
  clear(): void {
    this.#commits.length = 0;
  }

  /** `branch`'s head, or null; the default branch of a repository with nothing seeded has a made-up one, as every repository has a first commit. */
  head(repo: string, branch: string): string | null {
    const git = this.#git.get(repo.toLowerCase());
    if (git) return git.head(branch);
    const seeded = this.#heads.get(headKey(repo, branch));
    if (seeded) return seeded;
    return branch === this.#deps.defaultBranch(repo) ? sha1(`standin:${repo.toLowerCase()}:${branch}`) : null;
  }

  /** `repos/get-branch-rules`: the seeded rules that apply to the branch, each with its ruleset's details. */
  rules(call: StandinCall): StandinAnswer {
    const repo = `${call.params.owner}/${call.params.repo}`;
    const branch = call.params.branch!;
    const applying = (this.#rules.get(repo.toLowerCase()) ?? []).flatMap((seed, index) =>
      !seed.branches || seed.branches.includes(branch)
        ? seed.rules.map((rule) => ({ ...rule, ruleset_source_type: "Repository", ruleset_source: repo, ruleset_id: index + 1 }))
        : []
    );
    return pageOf(call, applying, this.#basics.baseUrl());
  }

  /** `git/create-ref` for a branch: 201 and the ref; GitHub's 422 when it exists or (in a seeded repository) its commit does not. */
  createRef(call: StandinCall): StandinAnswer {
    const repo = `${call.params.owner}/${call.params.repo}`;
    const { ref, sha } = call.body as { ref: string; sha: string };
    if (!ref.startsWith("refs/heads/")) return notModelled(`The GitHub stand-in creates branches only (refs/heads/…), not ${ref}`, REFS_DOCS_URL);
    const branch = ref.slice("refs/heads/".length);
    if (branch === "" || !/^[0-9a-f]{40}$/.test(sha)) return errorAnswer(422, `${ref} is not a valid ref name or ${sha} not a commit id`, REFS_DOCS_URL, "git/create-ref: not a branch and a commit id");
    if (this.head(repo, branch) !== null) return errorAnswer(422, "Reference already exists", REFS_DOCS_URL, `git/create-ref: ${ref} already exists`);
    const git = this.#git.get(repo.toLowerCase());
    if (git) {
      if (!git.hasCommit(sha)) return errorAnswer(422, "Object does not exist", REFS_DOCS_URL, `git/create-ref: ${sha} is not a commit of ${repo}`);
      if (!git.createBranch(branch, sha)) return errorAnswer(422, "Reference already exists", REFS_DOCS_URL, `git/create-ref: ${ref} already exists`);
    } else this.#heads.set(headKey(repo, branch), sha);
    return { status: 201, body: this.#refJson(repo, branch, sha), headers: { location: `${this.#basics.baseUrl()}/repos/${repo}/git/${ref}` } };
  }

  /** GraphQL's `repository(owner:, name:)`, with the fields the stand-in resolves; the rest are not modelled. */
  repository(owner: string, name: string): Record<string, unknown> {
    const repo = `${owner}/${name}`;
    const ref = (branch: string) => {
      const oid = this.head(repo, branch);
      return oid === null ? null : { name: branch, prefix: "refs/heads/", target: this.#commitNode(repo, oid) };
    };
    return {
      name,
      nameWithOwner: repo,
      defaultBranchRef: () => ref(this.#deps.defaultBranch(repo)),
      ref: ({ qualifiedName }: { qualifiedName: string }) => {
        const branch = qualifiedName.startsWith("refs/heads/") ? qualifiedName.slice("refs/heads/".length) : qualifiedName.startsWith("refs/") ? null : qualifiedName;
        return branch === null ? null : ref(branch);
      }
    };
  }

  /** GraphQL's `createCommitOnBranch`, as the caller `login`: the payload, or GitHub's refusal in its words. */
  createCommit(input: CommitInput, login: string): CommitOutcome {
    const failure = (type: string, message: string): CommitOutcome => ({ failure: { type, message } });
    if (input.branch.id !== undefined || !input.branch.repositoryNameWithOwner || !input.branch.branchName) {
      return { unmodelled: "The GitHub stand-in finds a branch by repositoryNameWithOwner and branchName only, not by id" };
    }
    const repo = input.branch.repositoryNameWithOwner;
    const branch = input.branch.branchName.replace(/^refs\/heads\//, "");
    const head = this.head(repo, branch);
    if (head === null) return failure("NOT_FOUND", `Could not resolve to a Ref with the name refs/heads/${branch} in ${repo}.`);
    if (head !== input.expectedHeadOid) return failure("STALE_DATA", `Expected branch to point to "${input.expectedHeadOid}" but it did not. Pull and try again.`);
    const headline = input.message.headline;
    if (headline.trim() === "" || headline.includes("\n")) return failure("UNPROCESSABLE", "The commit message headline must be one line that is not blank.");
    const additions = (input.fileChanges?.additions ?? []).map((addition) => ({ path: addition.path, contents: Buffer.from(addition.contents, "base64") }));
    const deletions = [...(input.fileChanges?.deletions ?? [])].map((deletion) => ({ path: deletion.path }));
    const paths = [...additions, ...deletions].map((change) => change.path);
    const twice = paths.find((path, index) => paths.indexOf(path) !== index);
    if (twice !== undefined) return failure("UNPROCESSABLE", `A path may appear only once across additions and deletions: ${twice}`);
    const bad = paths.find((path) => path === "" || path.startsWith("/") || path.split("/").some((part) => part === "" || part === "." || part === ".." || part === ".git"));
    if (bad !== undefined) return failure("UNPROCESSABLE", `Invalid path: ${JSON.stringify(bad)}`);
    const body = input.message.body ?? "";
    const git = this.#git.get(repo.toLowerCase());
    let oid: string;
    if (git) {
      const missing = deletions.find((deletion) => !git.hasPath(head, deletion.path));
      if (missing) return failure("UNPROCESSABLE", `A path was requested for deletion which does not exist as of commit oid \`${head}\``);
      const message = body ? `${headline}\n\n${body}\n` : `${headline}\n`;
      oid = git.commit({ branch, parent: head, message, additions, deletions, author: this.#deps.author(login), committer: { name: "GitHub", email: "noreply@github.com" } });
    } else {
      oid = sha1(JSON.stringify({ head, headline, body, deletions, additions: additions.map((addition) => [addition.path, sha1(addition.contents)]), n: this.#commits.length }));
      this.#heads.set(headKey(repo, branch), oid);
    }
    this.#commits.push({ repo, branch, oid, parent: head, headline, body, additions, deletions, author: login, signed: true, at: this.#basics.iso() });
    return { payload: { clientMutationId: null, commit: this.#commitNode(repo, oid), ref: { name: branch, prefix: "refs/heads/", target: this.#commitNode(repo, oid) } } };
  }

  #commitNode(repo: string, oid: string): Record<string, unknown> {
    return { __typename: "Commit", oid, abbreviatedOid: oid.slice(0, 7), url: `${this.#basics.baseUrl()}/${repo}/commit/${oid}` };
  }

  #refJson(repo: string, branch: string, sha: string): Record<string, unknown> {
    const base = this.#basics.baseUrl();
    return {
      ref: `refs/heads/${branch}`,
      node_id: `REF_${sha1(`${repo}:${branch}`).slice(0, 16)}`,
      url: `${base}/repos/${repo}/git/refs/heads/${branch}`,
      object: { type: "commit", sha, url: `${base}/repos/${repo}/git/commits/${sha}` }
    };
  }
}

const headKey = (repo: string, branch: string) => `${repo.toLowerCase()} ${branch}`;

function sha1(data: string | Buffer): string {
  return createHash("sha1").update(data).digest("hex");
}
