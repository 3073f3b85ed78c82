/**
 * GitHub as the App sees it, through Octokit: the App itself (its JWT), to
 * mint an installation token scoped to one repository and to ask `GET /app`;
 * and one installation token, to react, comment, read a pull request and
 * `.github/agent-think.yml`, and ask a commenter's permission. Errors are
 * TokenMintError with a public message, never a token, a key or GitHub's
 * body. Every request has a deadline, and the calls before the webhook's
 * answer are tried once with a shorter one (BEFORE_ANSWER). docs/ingress.md,
 * "Tokens".
 */
import { createAppAuth } from "@octokit/auth-app";
import type { Octokit } from "@octokit/rest";
import type { Logger } from "../log";
import type { CollaboratorPermission } from "../permission";
import type { RepoFile } from "../repo-triggers";
import { GitHubOctokit, patienceOptions, type Patience } from "./octokit";
import { PrivateKeyError, toPkcs8Pem } from "./private-key";
import type { ReactionContent } from "../../../src/github/client";

export const GITHUB_REQUEST_TIMEOUT_MS = 4_000;
/** It is made before the webhook answers (after a token mint; the token it uses is the run's), so it gets less of the ten seconds. */
export const PERMISSION_REQUEST_TIMEOUT_MS = 3_000;
/**
 * How the calls before the webhook's answer are made: once, within
 * PERMISSION_REQUEST_TIMEOUT_MS. The installation lookup (only for a payload
 * without an installation), the mint and the permission check then take at
 * most 9 of GitHub's 10 seconds; a retry would not fit.
 */
export const BEFORE_ANSWER = { retries: 0, timeoutMs: PERMISSION_REQUEST_TIMEOUT_MS } as const;
/** How many tries and how long each may take, when not the defaults (DEFAULT_RETRIES, GITHUB_REQUEST_TIMEOUT_MS). */
export type CallPatience = { retries?: number; timeoutMs?: number };

export type RepoRef = { owner: string; name: string };
export type RepoToken = { token: string; expiresAt: string };
/** `retryBaseMs`: the unit of every retry and rate-limit wait (github/octokit.ts); 1000 unless the tests shrink it. */
export type AppCredentials = { appId: string; privateKey: string; apiUrl: string; retryBaseMs?: number };
/** GitHub's reaction contents (the agent Worker's client names them); ❌ is not one of them (see docs/ingress.md). */
export type { ReactionContent } from "../../../src/github/client";

export type TokenMintErrorCode = "config" | "not_installed" | "app_auth" | "github";

export class TokenMintError extends Error {
  override readonly name = "TokenMintError";
  constructor(
    readonly code: TokenMintErrorCode,
    message: string
  ) {
    super(message);
  }
}

/**
 * Exactly what the bot does with a token, so a permission added to the App
 * later never reaches the model's container: react and comment on issues
 * (issues), clone and push branches (contents), read pull requests, react on
 * their review comments and open them (pull_requests), read the repository and ask a commenter's permission
 * (metadata). GitHub refuses a mint that asks for more than the
 * installation was granted (422), which is a misconfigured App, not a
 * reason to mint a broader token.
 */
export const TOKEN_PERMISSIONS = {
  issues: "write",
  contents: "write",
  pull_requests: "write",
  metadata: "read"
} as const;

/**
 * What a read-only token asks for: the agent's container gets one when its
 * run may write nothing (someone else's pull request, a fork's), so code
 * from that pull request, which the run builds and tests, cannot push; and
 * a reporter-tier run gets one as its only token (http/start-run.ts).
 */
export const READ_ONLY_TOKEN_PERMISSIONS = {
  issues: "read",
  contents: "read",
  pull_requests: "read",
  metadata: "read"
} as const;

/**
 * What a token that only reports asks for: enough to ask a commenter's
 * permission (metadata), then react and comment on the issue. The report
 * of a failed mint (http/start-run.ts), when the bot's full set was refused
 * (an installation that has not accepted a permission); everything the
 * webhook app posts for a reporter-tier delivery; and the broker's
 * `{ access: "report" }`, with which the agent Worker posts a reporter
 * run's comments. Never a run's own token.
 */
export const REPORT_TOKEN_PERMISSIONS = { issues: "write", metadata: "read" } as const;

/**
 * What reading a CI follow-up's failures asks for (http/ci-event.ts): a
 * check suite's check runs (checks), a workflow run's jobs and their logs
 * (actions). Used by the webhook app alone, after the answer, and never
 * given to a run: the run's token keeps TOKEN_PERMISSIONS.
 */
export const CI_READ_TOKEN_PERMISSIONS = { checks: "read", actions: "read", metadata: "read" } as const;

/** What the token broker mints (token-broker.ts): a run's write or read-only token, or one that only reports. */
export type TokenAccess = "write" | "read" | "report";
/** The broker's three, and the CI follow-up's reading token. */
export type MintAccess = TokenAccess | "report" | "ci";
const PERMISSIONS_BY_ACCESS = { write: TOKEN_PERMISSIONS, read: READ_ONLY_TOKEN_PERMISSIONS, report: REPORT_TOKEN_PERMISSIONS, ci: CI_READ_TOKEN_PERMISSIONS } as const;

/**
 * An installation token that can act on `repo` only, with TOKEN_PERMISSIONS
 * only (READ_ONLY_TOKEN_PERMISSIONS for `access` "read", REPORT_TOKEN_PERMISSIONS for "report", CI_READ_TOKEN_PERMISSIONS for "ci"). `installationId` is the payload's `installation.id` (signed by
 * GitHub): with it, one call; without it, `GET /repos/{owner}/{repo}/installation` first.
 */
export async function mintRepoToken(
  credentials: AppCredentials,
  repo: RepoRef,
  log: Logger,
  installationId?: number,
  access: MintAccess = "write",
  patience: CallPatience = {},
  /** Other repositories' names, of the same owner, a read token also reads (the broker's `repositories`). */
  also: readonly string[] = []
): Promise<RepoToken> {
  const full = `${repo.owner}/${repo.name}`;
  const app = appOctokit(credentials, log, patience);
  const installation =
    installationId ??
    (
      await app.rest.apps.getRepoInstallation({ owner: repo.owner, repo: repo.name }).catch((error: unknown) => {
        throw mintError(error, full, { 404: ["not_installed", `the GitHub App is not installed on ${full}`] });
      })
    ).data.id;
  const { data } = await app.rest.apps
    .createInstallationAccessToken({
      installation_id: installation,
      repositories: [repo.name, ...also],
      permissions: PERMISSIONS_BY_ACCESS[access]
    })
    .catch((error: unknown) => {
      throw mintError(error, full, {
        404: ["not_installed", `the GitHub App's installation for ${full} is gone`],
        422: ["not_installed", `the GitHub App's installation does not include ${full}, or lacks a permission ${access === "write" ? "the bot needs (issues, contents, pull_requests: write; metadata: read)" : `this token asks for (${permissionList(access)})`}`]
      });
    });
  return { token: data.token, expiresAt: data.expires_at };
}

/** `issues: write, metadata: read`: what a mint of `access` asks for, as an error names it. */
const permissionList = (access: MintAccess) =>
  Object.entries(PERMISSIONS_BY_ACCESS[access])
    .map(([name, level]) => `${name}: ${level}`)
    .join(", ");

/**
 * Octokit authenticated as the App itself (a fresh JWT per request, by
 * @octokit/auth-app). An id that is not a number or a key that is not a
 * usable PEM is a TokenMintError with code "config".
 */
export function appOctokit(credentials: AppCredentials, log: Logger, patience: CallPatience = {}): Octokit {
  if (!/^\d+$/.test(credentials.appId.trim())) throw new TokenMintError("config", "GITHUB_APP_ID must be the App's numeric id");
  let privateKey: string;
  try {
    privateKey = toPkcs8Pem(credentials.privateKey);
  } catch (error) {
    if (error instanceof PrivateKeyError) throw new TokenMintError("config", error.message);
    throw error;
  }
  return new GitHubOctokit({
    ...clientOptions(credentials.apiUrl, log, { retryBaseMs: credentials.retryBaseMs, ...patience }),
    authStrategy: createAppAuth,
    auth: { appId: credentials.appId.trim(), privateKey }
  });
}

export type InstallationClient = {
  /** On an issue comment (a pull request's conversation comments are issue comments). */
  react(repo: RepoRef, commentId: number, content: ReactionContent): Promise<void>;
  /** On a line comment in a pull request's diff (`POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions`). */
  reactToReviewComment(repo: RepoRef, commentId: number, content: ReactionContent): Promise<void>;
  /** On the issue itself (`POST /repos/{owner}/{repo}/issues/{issue_number}/reactions`): an assignment or a label has no comment. */
  reactToIssue(repo: RepoRef, issueNumber: number, content: ReactionContent): Promise<void>;
  /**
   * `path` on the default branch (`GET /repos/{owner}/{repo}/contents/{path}`,
   * no ref): not found (404, or not a file), its text, or its size when over
   * `maxBytes`. Asked before the webhook answers: one try within
   * PERMISSION_REQUEST_TIMEOUT_MS. Throws an Error with a public message otherwise.
   */
  fileOnDefaultBranch(repo: RepoRef, path: string, maxBytes: number): Promise<RepoFile>;
  /** GitHub's description of pull request `number` (`GET /repos/{owner}/{repo}/pulls/{number}`), unparsed. */
  pullRequest(repo: RepoRef, number: number): Promise<unknown>;
  comment(repo: RepoRef, issueNumber: number, body: string): Promise<void>;
  /** A check suite's check runs, the latest of each name (`GET /repos/{owner}/{repo}/check-suites/{check_suite_id}/check-runs`), one page of 100, unparsed. */
  checkRunsForSuite(repo: RepoRef, checkSuiteId: number): Promise<unknown[]>;
  /** A workflow run's jobs, its latest attempt's (`GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs`), one page of 100, unparsed. */
  workflowRunJobs(repo: RepoRef, runId: number): Promise<unknown[]>;
  /**
   * Where a job's log can be downloaded: GitHub answers
   * `GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs` with a 302 to a
   * short-lived address that needs no token, which is not followed here.
   */
  jobLogUrl(repo: RepoRef, jobId: number): Promise<string>;
  /**
   * `login`'s permission on `repo` (GitHub's legacy base role, and the
   * role's own name), or null when GitHub answers 404. Throws an Error with
   * a public message (status or timeout, never GitHub's body) otherwise.
   */
  collaboratorPermission(repo: RepoRef, login: string): Promise<CollaboratorPermission>;
};

/** `patience`: how every call is made when not the defaults (BEFORE_ANSWER for a client used before the webhook answers). */
export function installationClient(token: string, apiUrl: string, log: Logger, retryBaseMs?: number, patience: CallPatience = {}): InstallationClient {
  const octokit = new GitHubOctokit({ ...clientOptions(apiUrl, log, { retryBaseMs, ...patience }), auth: token });
  return {
    async react(repo, commentId, content) {
      await octokit.rest.reactions.createForIssueComment({ owner: repo.owner, repo: repo.name, comment_id: commentId, content });
    },
    async reactToReviewComment(repo, commentId, content) {
      await octokit.rest.reactions.createForPullRequestReviewComment({ owner: repo.owner, repo: repo.name, comment_id: commentId, content });
    },
    async reactToIssue(repo, issueNumber, content) {
      await octokit.rest.reactions.createForIssue({ owner: repo.owner, repo: repo.name, issue_number: issueNumber, content });
    },
    async fileOnDefaultBranch(repo, path, maxBytes) {
      const quick = new GitHubOctokit({ ...clientOptions(apiUrl, log, { ...BEFORE_ANSWER, retryBaseMs }), auth: token });
      let data: unknown;
      try {
        ({ data } = await quick.rest.repos.getContent({ owner: repo.owner, repo: repo.name, path }));
      } catch (error) {
        if (statusOf(error) === 404) return { found: false };
        throw new Error(`${describeGitHubError(error, PERMISSION_REQUEST_TIMEOUT_MS)} when asked for ${path} on ${repo.owner}/${repo.name}`);
      }
      // A directory (a list), a symlink or a submodule is no file to read.
      const file = data as { type?: unknown; size?: unknown; encoding?: unknown; content?: unknown };
      if (Array.isArray(data) || file.type !== "file") return { found: false };
      if (typeof file.size === "number" && file.size > maxBytes) return { found: true, tooLargeBytes: file.size };
      if (file.encoding !== "base64" || typeof file.content !== "string") throw new Error(`GitHub's answer for ${path} has no base64 content`);
      const bytes = Uint8Array.from(atob(file.content.replace(/\s/g, "")), (char) => char.charCodeAt(0));
      if (bytes.length > maxBytes) return { found: true, tooLargeBytes: bytes.length };
      return { found: true, text: new TextDecoder().decode(bytes) };
    },
    async pullRequest(repo, number) {
      return (await octokit.rest.pulls.get({ owner: repo.owner, repo: repo.name, pull_number: number })).data;
    },
    async comment(repo, issueNumber, body) {
      await octokit.rest.issues.createComment({ owner: repo.owner, repo: repo.name, issue_number: issueNumber, body });
    },
    async checkRunsForSuite(repo, checkSuiteId) {
      const { data } = await octokit.rest.checks.listForSuite({ owner: repo.owner, repo: repo.name, check_suite_id: checkSuiteId, filter: "latest", per_page: 100 });
      return Array.isArray(data.check_runs) ? data.check_runs : [];
    },
    async workflowRunJobs(repo, runId) {
      const { data } = await octokit.rest.actions.listJobsForWorkflowRun({ owner: repo.owner, repo: repo.name, run_id: runId, filter: "latest", per_page: 100 });
      return Array.isArray(data.jobs) ? data.jobs : [];
    },
    async jobLogUrl(repo, jobId) {
      // Not followed: the download address needs no token, and the token must not travel to it.
      const response = await octokit.rest.actions.downloadJobLogsForWorkflowRun({ owner: repo.owner, repo: repo.name, job_id: jobId, request: { redirect: "manual" } });
      const location = (response.headers as Record<string, unknown>).location;
      if (response.status !== 302 || typeof location !== "string" || !/^https?:\/\//.test(location)) {
        throw new Error(`GitHub answered ${response.status} without a download address for job ${jobId}'s log`);
      }
      return location;
    },
    async collaboratorPermission(repo, login) {
      // Asked before the webhook answers: one try, no waiting.
      const quick = new GitHubOctokit({ ...clientOptions(apiUrl, log, { ...BEFORE_ANSWER, retryBaseMs }), auth: token });
      let data: { permission?: unknown; role_name?: unknown };
      try {
        ({ data } = await quick.rest.repos.getCollaboratorPermissionLevel({ owner: repo.owner, repo: repo.name, username: login }));
      } catch (error) {
        if (statusOf(error) === 404) return null;
        throw new Error(`${describeGitHubError(error, PERMISSION_REQUEST_TIMEOUT_MS)} when asked for ${login}'s permission on ${repo.owner}/${repo.name}`);
      }
      if (typeof data.permission !== "string") throw new Error(`GitHub's answer about ${login}'s permission names none`);
      return { permission: data.permission, roleName: typeof data.role_name === "string" ? data.role_name : null };
    }
  };
}

/** Status and a public description of a failed GitHub call; never its body. */
export function describeGitHubError(error: unknown, timeoutMs: number = GITHUB_REQUEST_TIMEOUT_MS): string {
  const status = statusOf(error);
  if (status !== undefined) return `GitHub answered ${status}`;
  const cause = (error as { cause?: unknown } | null)?.cause;
  if ([error, cause].some((e) => e instanceof Error && (e.name === "TimeoutError" || e.name === "AbortError"))) {
    return `GitHub did not answer within ${timeoutMs} ms`;
  }
  return "GitHub could not be reached";
}

/**
 * What every Octokit here shares: GitHub's URL, our user agent, Octokit's
 * notices as log lines, a deadline on each request, and retries and rate
 * limits (github/octokit.ts).
 */
export function clientOptions(apiUrl: string, log: Logger, options: Patience & { timeoutMs?: number } = {}) {
  const timeoutMs = options.timeoutMs ?? GITHUB_REQUEST_TIMEOUT_MS;
  return {
    ...patienceOptions(log, options),
    baseUrl: apiUrl,
    userAgent: "agent-think-ingress",
    // Octokit's own notices (deprecations, clock-skew retries) as structured lines.
    log: {
      debug: () => {},
      info: () => {},
      warn: (message: string) => log("octokit:warn", { message }),
      error: (message: string) => log("octokit:error", { message })
    },
    request: {
      // Looked up on each call, so the tests' MSW interception applies.
      fetch: (url: RequestInfo | URL, init?: RequestInit) =>
        fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) })
    }
  };
}

function mintError(error: unknown, full: string, known: Record<number, [TokenMintErrorCode, string]>): TokenMintError {
  const status = statusOf(error);
  const mapped = status === undefined ? undefined : known[status];
  if (mapped) return new TokenMintError(mapped[0], mapped[1]);
  if (status === 401) {
    return new TokenMintError("app_auth", "GitHub refused the App's JWT: check GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY");
  }
  return new TokenMintError("github", `${describeGitHubError(error)} while minting a token for ${full}`);
}

/** The status GitHub answered with; undefined when it never answered (Octokit then reports a made-up 500). */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { response?: { status?: unknown } } | null)?.response?.status;
  return typeof status === "number" ? status : undefined;
}
