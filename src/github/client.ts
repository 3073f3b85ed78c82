/**
 * The few GitHub calls the agent Worker makes itself, as the App, with a
 * run's installation token: a reaction on the triggering comment, a comment
 * on the issue, and a search of the issue's recent comments for one of our
 * own markers (so a comment whose response was lost is not posted twice).
 *
 * Built on @octokit/rest against a configurable base URL (GitHub, a GitHub
 * Enterprise Server's /api/v3, or the local stand-in). Errors come back as a
 * `GitHubCallError` that says whether trying again can help; its message
 * never carries the token.
 */
import { Octokit } from "@octokit/rest";
import { parseRepo } from "../shared/repo";

export type ReactionContent = "+1" | "-1" | "laugh" | "confused" | "heart" | "hooray" | "rocket" | "eyes";

export type PostedComment = { id: number; url: string };

export interface GitHubClient {
  react(repo: string, commentId: number, content: ReactionContent): Promise<void>;
  comment(repo: string, issueNumber: number, body: string): Promise<PostedComment>;
  /** Our comment carrying `marker`, among the issue's comments since `since` (epoch ms). */
  findComment(repo: string, issueNumber: number, marker: string, since: number): Promise<PostedComment | null>;
}

export type GitHubClientOptions = {
  baseUrl: string;
  /** The installation token; empty only against the local stand-in. */
  token: string;
  /** Per request. */
  timeoutMs?: number;
  fetch?: typeof fetch;
};

/** Why a call failed: `unauthorized` (a fresh token may help), `retryable` (later may help), `rejected` (neither). */
export type GitHubFailure = "unauthorized" | "retryable" | "rejected";

export class GitHubCallError extends Error {
  override readonly name = "GitHubCallError";
  constructor(
    message: string,
    readonly kind: GitHubFailure,
    readonly status?: number
  ) {
    super(message);
  }
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** How many of the issue's newest comments a marker search reads. */
const MARKER_SEARCH_PAGE = 100;

export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const octokit = new Octokit({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    ...(options.token ? { auth: options.token } : {}),
    userAgent: "agent-think",
    request: { fetch: options.fetch ?? ((input: RequestInfo, init?: RequestInit) => fetch(input, init)) },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} }
  });
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const call = async <T>(what: string, run: (signal: AbortSignal) => Promise<T>): Promise<T> => {
    try {
      return await run(AbortSignal.timeout(timeoutMs));
    } catch (error) {
      throw toCallError(what, error);
    }
  };

  return {
    async react(repo, commentId, content) {
      const { owner, name } = ownerAndName(repo);
      await call(`react ${content}`, (signal) =>
        octokit.rest.reactions.createForIssueComment({ owner, repo: name, comment_id: commentId, content, request: { signal } })
      );
    },

    async comment(repo, issueNumber, body) {
      const { owner, name } = ownerAndName(repo);
      const response = await call("comment", (signal) =>
        octokit.rest.issues.createComment({ owner, repo: name, issue_number: issueNumber, body, request: { signal } })
      );
      return { id: response.data.id, url: response.data.html_url };
    },

    async findComment(repo, issueNumber, marker, since) {
      const { owner, name } = ownerAndName(repo);
      const response = await call("list comments", (signal) =>
        octokit.rest.issues.listComments({
          owner,
          repo: name,
          issue_number: issueNumber,
          since: new Date(since).toISOString(),
          per_page: MARKER_SEARCH_PAGE,
          request: { signal }
        })
      );
      const found = response.data.find((comment) => comment.body?.includes(marker));
      return found ? { id: found.id, url: found.html_url } : null;
    }
  };
}

function ownerAndName(repo: string): { owner: string; name: string } {
  const parsed = parseRepo(repo);
  if (!parsed.ok) throw new GitHubCallError(`not a repository: ${repo}`, "rejected");
  return { owner: parsed.owner, name: parsed.name };
}

/** Octokit's errors, reduced to what the caller decides on. Only the status and GitHub's message are kept. */
export function toCallError(what: string, error: unknown): GitHubCallError {
  const status = typeof (error as { status?: unknown })?.status === "number" ? (error as { status: number }).status : undefined;
  const detail = githubMessage(error);
  if (status === undefined) {
    // No response: a timeout or a network failure.
    return new GitHubCallError(`GitHub ${what}: ${detail}`, "retryable");
  }
  const message = `GitHub ${what}: ${status}${detail ? ` ${detail}` : ""}`;
  if (status === 401) return new GitHubCallError(message, "unauthorized", status);
  const rateLimited = status === 429 || (status === 403 && /rate limit/i.test(detail));
  if (rateLimited || status >= 500) return new GitHubCallError(message, "retryable", status);
  return new GitHubCallError(message, "rejected", status);
}

function githubMessage(error: unknown): string {
  const data = (error as { response?: { data?: { message?: unknown } } })?.response?.data;
  if (typeof data?.message === "string") return data.message.slice(0, 200);
  if (error instanceof Error) return (error.name === "TimeoutError" ? "timed out" : error.message).slice(0, 200);
  return String(error).slice(0, 200);
}
