/**
 * The GitHub calls that make a run's commits through the API, as the App with the run's write
 * token (docs/verified-commits.md): the heads of the default branch and the push branch (one
 * GraphQL query), creating the push branch (REST `git/refs`), and one `createCommitOnBranch`
 * per commit, its body streamed (commit-mutation.ts). GitHub signs what the mutation makes.
 * A refusal is a GitHubCallError whose message says what GitHub refused, in its words.
 */
import { commitBody, type CommitRequest } from "../run/commit-mutation";
import { callGitHub, GitHubCallError, octokitFor, ownerAndName, toCallError, type GitHubClientOptions } from "./client";

export type BranchHeads = { defaultBranch: { name: string; oid: string }; branch: { oid: string } | null };

export interface CommitClient {
  /** The default branch and its head, and the head of `branch` (null when GitHub has no such branch). */
  heads(repo: string, branch: string): Promise<BranchHeads>;
  /** Creates `branch` at `oid`. */
  createBranch(repo: string, branch: string, oid: string): Promise<void>;
  /** Appends one commit to `request.branch`, which must be at `request.expectedHeadOid`; the new commit's id. */
  commitOnBranch(request: CommitRequest): Promise<{ oid: string }>;
}

const HEADS_QUERY = `query AgentThinkHeads($owner: String!, $name: String!, $ref: String!) {
  repository(owner: $owner, name: $name) {
    defaultBranchRef { name target { oid } }
    ref(qualifiedName: $ref) { target { oid } }
  }
}`;

/** A commit's body can take a while to send: one large file is tens of MiB. */
const COMMIT_TIMEOUT_MS = 120_000;

/** The GraphQL endpoint of a REST base, as Octokit finds it: `…/api/v3` → `…/api/graphql`, else `<base>/graphql`. */
export function graphqlUrl(baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  return /\/api\/v3$/.test(base) ? `${base.slice(0, -"/v3".length)}/graphql` : `${base}/graphql`;
}

export function createCommitClient(options: Omit<GitHubClientOptions, "botLogin">): CommitClient {
  const octokit = octokitFor(options);
  const send = options.fetch ?? ((input: RequestInfo, init?: RequestInit) => fetch(input, init));
  return {
    async heads(repo, branch) {
      const { owner, name } = ownerAndName(repo);
      type Answer = { repository: { defaultBranchRef: { name: string; target: { oid: string } | null } | null; ref: { target: { oid: string } | null } | null } | null };
      let data: Answer;
      try {
        data = await octokit.graphql<Answer>(HEADS_QUERY, { owner, name, ref: `refs/heads/${branch}` });
      } catch (error) {
        throw graphqlError("read the branches", error);
      }
      const found = data.repository;
      if (!found?.defaultBranchRef?.target) throw new GitHubCallError(`GitHub read the branches: ${repo} has no default branch with a commit`, "rejected");
      const head = found.ref?.target?.oid;
      return { defaultBranch: { name: found.defaultBranchRef.name, oid: found.defaultBranchRef.target.oid }, branch: head ? { oid: head } : null };
    },

    async createBranch(repo, branch, oid) {
      const { owner, name } = ownerAndName(repo);
      await callGitHub(`create the branch ${branch}`, () => octokit.rest.git.createRef({ owner, repo: name, ref: `refs/heads/${branch}`, sha: oid }));
    },

    async commitOnBranch(request) {
      const { stream, length } = commitBody(request);
      const headers: Record<string, string> = {
        "content-type": "application/json; charset=utf-8",
        "content-length": String(length),
        accept: "application/vnd.github+json",
        "user-agent": "agent-think"
      };
      if (options.token) headers.authorization = `token ${options.token}`;
      // workerd sends a stream of known length as such only through its FixedLengthStream (Node takes the header).
      const Fixed = (globalThis as { FixedLengthStream?: new (length: number) => TransformStream<Uint8Array, Uint8Array> }).FixedLengthStream;
      const body = Fixed ? stream.pipeThrough(new Fixed(length)) : stream;
      const init: RequestInit & { duplex: "half" } = { method: "POST", headers, body, duplex: "half", signal: AbortSignal.timeout(COMMIT_TIMEOUT_MS) };
      let response: Response;
      try {
        response = await send(graphqlUrl(options.baseUrl), init);
      } catch (error) {
        throw toCallError("make the commit", error);
      }
      const text = await response.text();
      let answer: { data?: { createCommitOnBranch?: { commit?: { oid?: string } | null } | null }; errors?: Array<{ message?: string; type?: string }>; message?: string } = {};
      try {
        answer = JSON.parse(text) as typeof answer;
      } catch {
        // Not JSON: said below with the status.
      }
      if (!response.ok) {
        throw toCallError("make the commit", { status: response.status, response: { headers: Object.fromEntries(response.headers), data: { message: answer.message ?? text.slice(0, 200) } } });
      }
      const oid = answer.data?.createCommitOnBranch?.commit?.oid;
      if (answer.errors?.length || !oid) {
        const said = (answer.errors ?? []).map((error) => `${error.type ? `${error.type}: ` : ""}${error.message ?? "?"}`).join("; ");
        throw new GitHubCallError(`GitHub refused the commit: ${said || "it answered no commit"}`.slice(0, 600), "rejected", response.status);
      }
      return { oid };
    }
  };
}

/** A GraphQL answer with errors (Octokit's GraphqlResponseError) in GitHub's words; any other failure as client.ts words it. */
function graphqlError(what: string, error: unknown): GitHubCallError {
  const errors = (error as { name?: unknown; errors?: Array<{ message?: unknown }> })?.errors;
  if ((error as { name?: unknown })?.name !== "GraphqlResponseError" || !Array.isArray(errors)) return toCallError(what, error);
  const said = errors.map((entry) => String(entry.message ?? "?")).join("; ");
  return new GitHubCallError(`GitHub ${what}: ${said}`.slice(0, 600), "rejected");
}
