/**
 * The few GitHub calls the agent Worker makes itself, as the App with a run's installation
 * token: a reaction on the triggering comment, a comment on the issue, and a search of the
 * issue's comments since the notice was queued for one of our markers (at most
 * MARKER_SEARCH_MAX_PAGES pages, trusting only our App's comments), so a post whose answer was
 * lost is not made twice. On @octokit/rest against GITHUB_API_URL. A failure is a
 * GitHubCallError saying whether a retry can help and when GitHub said to; its message never
 * carries the token. It does not retry itself: the outbox does, durably, since a wait inside the
 * request would hold the agent's alarm (docs/reporting.md, "Exactly once").
 */
import { Octokit } from "@octokit/rest";
import { DEFAULT_BOT_LOGIN } from "../run/bot-identity";
import { parseRepo } from "../shared/repo";

export type ReactionContent = "+1" | "-1" | "laugh" | "confused" | "heart" | "hooray" | "rocket" | "eyes";

export type PostedComment = { id: number; url: string };

export interface GitHubClient {
  react(repo: string, commentId: number, content: ReactionContent): Promise<void>;
  comment(repo: string, issueNumber: number, body: string): Promise<PostedComment>;
  /** Our comment (by `botLogin`) carrying `marker`, among the issue's comments since `since` (epoch ms); null when there is none. */
  findComment(repo: string, issueNumber: number, marker: string, since: number): Promise<PostedComment | null>;
}

export type GitHubClientOptions = {
  baseUrl: string;
  /** The installation token; empty only against the local stand-in. */
  token: string;
  /**
   * Our App's bot login (`<app-slug>[bot]`): a marker search trusts only its
   * comments. The reporter always passes the run's (run/bot-identity.ts);
   * unset is the local GitHub stand-in's bot, for tools run against it.
   */
  botLogin?: string;
  /** Per request. */
  timeoutMs?: number;
  fetch?: typeof fetch;
};

/** Why a call failed: `unauthorized` (a fresh token may help), `retryable` (later may help), `rejected` (neither). */
export type GitHubFailure = "unauthorized" | "retryable" | "rejected";

/** What GitHub's answer said about when to try again. */
export type RetryHint = {
  /** `Retry-After`, in seconds. */
  retryAfterSeconds?: number;
  /** `x-ratelimit-remaining`. */
  remaining?: number;
  /** `x-ratelimit-reset`, in seconds since the epoch. */
  resetEpochSeconds?: number;
  /** A 403 or 429 that is a rate limit (a secondary one, or the primary one spent). */
  rateLimited: boolean;
};

export class GitHubCallError extends Error {
  override readonly name = "GitHubCallError";
  constructor(
    message: string,
    readonly kind: GitHubFailure,
    readonly status?: number,
    readonly retry?: RetryHint
  ) {
    super(message);
  }
}

const DEFAULT_TIMEOUT_MS = 10_000;
/** Comments per page of a marker search (GitHub's maximum). */
const MARKER_SEARCH_PAGE_SIZE = 100;
/**
 * Pages a marker search reads at most: 1,000 comments updated since the
 * notice was queued. Past that the search gives up and the comment is posted:
 * on an issue that busy a rare duplicate costs less than no answer.
 */
export const MARKER_SEARCH_MAX_PAGES = 10;

/** An Octokit for `options`: its base URL, token and per-request timeout, silent. Shared with src/github/repo-reader.ts. */
export function octokitFor(options: Omit<GitHubClientOptions, "botLogin">): Octokit {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const send = options.fetch ?? ((input: RequestInfo, init?: RequestInit) => fetch(input, init));
  return new Octokit({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    ...(options.token ? { auth: options.token } : {}),
    userAgent: "agent-think",
    // Every request gets the timeout here, the pages paginate fetches included (it passes no signal of its own).
    request: {
      fetch: (input: RequestInfo, init?: RequestInit) => {
        const timeout = AbortSignal.timeout(timeoutMs);
        return send(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout });
      }
    },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} }
  });
}

/** `run`, with what it throws as a GitHubCallError named `what`. */
export async function callGitHub<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toCallError(what, error);
  }
}

export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const author = options.botLogin ?? DEFAULT_BOT_LOGIN;
  const octokit = octokitFor(options);
  const call = callGitHub;

  return {
    async react(repo, commentId, content) {
      const { owner, name } = ownerAndName(repo);
      await call(`react ${content}`, () => octokit.rest.reactions.createForIssueComment({ owner, repo: name, comment_id: commentId, content }));
    },

    async comment(repo, issueNumber, body) {
      const { owner, name } = ownerAndName(repo);
      const response = await call("comment", () => octokit.rest.issues.createComment({ owner, repo: name, issue_number: issueNumber, body }));
      return { id: response.data.id, url: response.data.html_url };
    },

    async findComment(repo, issueNumber, marker, since) {
      const { owner, name } = ownerAndName(repo);
      return call("list comments", async () => {
        const pages = octokit.paginate.iterator(octokit.rest.issues.listComments, {
          owner,
          repo: name,
          issue_number: issueNumber,
          since: new Date(since).toISOString(),
          per_page: MARKER_SEARCH_PAGE_SIZE
        });
        let read = 0;
        for await (const page of pages) {
          const found = page.data.find((comment) => byAuthor(comment, author) && comment.body?.includes(marker));
          if (found) return { id: found.id, url: found.html_url };
          if (++read >= MARKER_SEARCH_MAX_PAGES) break;
        }
        return null;
      });
    }
  };
}

type CommentAuthor = {
  user?: { login?: string; type?: string } | null;
  performed_via_github_app?: { slug?: string } | null;
};

/** Written by our App: its bot user, and (when GitHub names the App that acted) our App. */
export function byAuthor(comment: CommentAuthor, author: string): boolean {
  const login = author.toLowerCase();
  const user = comment.user;
  if (!user || user.type !== "Bot" || user.login?.toLowerCase() !== login) return false;
  const slug = comment.performed_via_github_app?.slug;
  return !slug || `${slug}[bot]`.toLowerCase() === login;
}

export function ownerAndName(repo: string): { owner: string; name: string } {
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
  const headers = (error as { response?: { headers?: Record<string, unknown> } }).response?.headers ?? {};
  const retryAfterSeconds = seconds(headers["retry-after"]);
  const remaining = seconds(headers["x-ratelimit-remaining"]);
  const resetEpochSeconds = seconds(headers["x-ratelimit-reset"]);
  // GitHub's documented signs of a rate limit: Retry-After, a spent primary limit, or its message.
  const rateLimited =
    (status === 403 || status === 429) && (status === 429 || retryAfterSeconds !== undefined || remaining === 0 || /rate limit/i.test(detail));
  const hint: RetryHint = {
    rateLimited,
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    ...(remaining !== undefined ? { remaining } : {}),
    ...(resetEpochSeconds !== undefined ? { resetEpochSeconds } : {})
  };
  if (rateLimited || status >= 500) return new GitHubCallError(message, "retryable", status, hint);
  return new GitHubCallError(message, "rejected", status);
}

/** A header that holds a whole number (Retry-After in its seconds form, the rate-limit counters); undefined otherwise. */
function seconds(value: unknown): number | undefined {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  return /^\d{1,12}$/.test(text) ? Number(text) : undefined;
}

function githubMessage(error: unknown): string {
  const data = (error as { response?: { data?: { message?: unknown } } })?.response?.data;
  if (typeof data?.message === "string") return data.message.slice(0, 200);
  if (error instanceof Error) return (error.name === "TimeoutError" ? "timed out" : error.message).slice(0, 200);
  return String(error).slice(0, 200);
}
