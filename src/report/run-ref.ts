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
import type { RunRef } from "./notices";

export type RunRefSource = {
  run: Pick<RunContext, "repo" | "issueNumber">;
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
