/**
 * Where a run's messages go, and what their first line says: the issue,
 * the thread page, the hosts a comment may link to, and, from the
 * submission's metadata, who asked and whether (and from where) the run was
 * continued. Pure: the agent passes its run context and configuration.
 */
import type { RunContext } from "../run/run-context";
import { ciFailuresSchema } from "../shared/dispatch";
import { parseGitHubApiUrl } from "../shared/github-urls";
import { threadUrl } from "../shared/thread-url";
import type { LinkPolicy } from "./link-policy";
import type { BlockedRequest, Cost } from "../shared/command-center";
import type { RunTier } from "../shared/dispatch";

/** Where a run's messages go and what they say of it. */
export type RunRef = {
  repo: string;
  issueNumber: number;
  submissionId: string;
  threadUrl: string;
  /** Our own pages (PUBLIC_BASE_URL); a message links nowhere else but the run's repository. Default: where `threadUrl` lives. */
  publicBaseUrl?: string;
  /** GitHub's web host (`https://github.com`, an Enterprise Server's); without it no GitHub page counts as the run's repository. */
  githubWebUrl?: string;
  /** The login of who asked for the run (the dispatch's commenter); the closing message's first line mentions it when it may (`requesterMention`). */
  requestedBy?: string;
  /** The run was continued (`ThinkAgent.continueRun`); its closing message says so. */
  continued?: boolean;
  /** Where the continuation came from; absent: the dashboard. */
  continuedFrom?: "github";
  /** The mention that continues a run from GitHub (`@<slug>`), when the App's bot is known; shown as code, never a mention. */
  continueHandle?: string;
  /** What the run took, for the closing message's footer; absent in messages written without it. */
  stats?: RunStats;
  /** `reporter`: the issue's author asked for this run under the reporter tier; its closing message says so. */
  tier?: RunTier;
  /** A CI follow-up: the pull request's head whose checks failed, and the checks' names; its closing message says so. */
  ci?: { headSha: string; checks: string[] };
  /** The run is on a pull request's conversation, not an issue's: it gets no outcome label (notices.ts, `labelNotice`). */
  onPullRequest?: boolean;
};

/**
 * How long a run took, its tool calls, what it cost (absent: unknown), whether no model ran (the scripted model), what the
 * egress gateway refused, and the private registries (hosts) whose credential it attached to the run's requests.
 */
export type RunStats = { durationMs?: number; toolCalls: number; cost?: Cost; scripted?: boolean; models?: string[]; blocked?: BlockedRequest[]; privateSources?: string[] };

export type RunRefSource = {
  run: Pick<RunContext, "repo" | "issueNumber" | "pullRequest">;
  submissionId: string;
  /** The issue's session: the thread page's name. */
  session: string;
  publicBaseUrl: string;
  githubApiUrl: string;
  /** The App's bot (`<slug>[bot]`), whose handle continues a run from GitHub; absent when none is known. */
  botLogin?: string;
  /** The submission's metadata as stored: only `requestedBy`, `continuation`, `fromGitHub`, `tier` and `ci` are read, each only when well-formed. */
  metadata?: Record<string, unknown>;
};

/** A CI follow-up's head and failed checks' names, from the submission's `ci` (the dispatch's, validated then). */
function ciOf(value: unknown): Pick<RunRef, "ci"> {
  const parsed = ciFailuresSchema.safeParse(value);
  return parsed.success ? { ci: { headSha: parsed.data.headSha, checks: parsed.data.failures.map((failure) => failure.name) } } : {};
}

export function runRefFor({ run, submissionId, session, publicBaseUrl, githubApiUrl, botLogin, metadata }: RunRefSource): RunRef {
  const requestedBy = metadata?.requestedBy;
  // parse, not githubHost: the closing path must never throw.
  const github = parseGitHubApiUrl(githubApiUrl);
  return {
    repo: run.repo,
    issueNumber: run.issueNumber,
    submissionId,
    threadUrl: threadUrl(publicBaseUrl, session),
    // What a comment may link to: our pages and the run's repository on this deploy's GitHub.
    publicBaseUrl,
    githubWebUrl: github.ok ? github.github.web : "",
    ...(typeof requestedBy === "string" ? { requestedBy } : {}),
    ...(botLogin?.endsWith("[bot]") && botLogin.length > 5 ? { continueHandle: `@${botLogin.slice(0, -"[bot]".length)}` } : {}),
    ...(metadata?.tier === "reporter" ? { tier: "reporter" as const } : {}),
    ...(run.pullRequest ? { onPullRequest: true } : {}),
    ...ciOf(metadata?.ci),
    ...(metadata?.continuation === true ? { continued: true, ...(metadata.fromGitHub ? { continuedFrom: "github" as const } : {}) } : {})
  };
}

/** The hosts a message about `run` may link to: our pages (by default where the thread lives) and the run's repository. */
export function linkPolicy(run: RunRef): LinkPolicy {
  return {
    publicBaseUrl: run.publicBaseUrl ?? run.threadUrl.replace(/\/thread\/[^/]*$/, ""),
    githubWebUrl: run.githubWebUrl ?? "",
    repo: run.repo
  };
}
