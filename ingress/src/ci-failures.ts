/**
 * What failed, for a CI follow-up's dispatch (`ci.failures`), read from
 * GitHub with the run's installation token after the webhook answered: a
 * check suite's failing check runs, or a workflow run's failing jobs, each
 * with its name, conclusion, page, a short summary and its log's last lines.
 * All of it is the repository's CI's text, so it is bounded here and shown
 * to the model as untrusted data. An unreadable log is a note, never a
 * reason not to start; never throws. docs/ingress.md, "CI follow-ups".
 */
import { z } from "zod";
import {
  MAX_CI_EXCERPT_CHARS,
  MAX_CI_FAILURES,
  MAX_CI_NAME_CHARS,
  MAX_CI_SUMMARY_CHARS,
  MAX_CI_URL_CHARS,
  type CiFailure,
  type CiFailingConclusion
} from "../../src/shared/dispatch";
import { redactSecrets } from "../../src/run/redact";
import { failingConclusion, type CiEvent } from "./ci-trigger";
import { describeGitHubError, type InstallationClient, type RepoRef } from "./github/app-client";
import type { Logger } from "./log";

/** The last lines of a log an excerpt keeps (and then its last MAX_CI_EXCERPT_CHARS characters). */
export const LOG_EXCERPT_LINES = 60;
/** How much of a log is read at most, and how much of its end is kept while reading. */
export const MAX_LOG_BYTES_READ = 16 * 1024 * 1024;
const LOG_TAIL_BYTES = 64 * 1024;
export const LOG_DOWNLOAD_TIMEOUT_MS = 5_000;

const checkRunSchema = z.object({
  id: z.number(),
  name: z.string(),
  conclusion: z.string().nullable(),
  html_url: z.string().nullable().optional(),
  details_url: z.string().nullable().optional(),
  output: z.object({ title: z.string().nullable().optional(), summary: z.string().nullable().optional() }).optional()
});
const jobSchema = z.object({
  id: z.number(),
  name: z.string(),
  conclusion: z.string().nullable(),
  html_url: z.string().nullable().optional(),
  steps: z.array(z.object({ name: z.string(), conclusion: z.string().nullable() })).optional()
});

type Found = { failure: CiFailure; jobId?: number };

export type CiFailuresDeps = {
  log: Logger;
  /** Fetches a log's download address (no token: GitHub signed it). */
  fetch(url: string, init: RequestInit): Promise<Response>;
};

/** `github`: a client with the CI reading token; null when none could be minted (the failure the payload names, with a note). */
export async function readCiFailures(ci: CiEvent, repo: RepoRef, github: InstallationClient | null, deps: CiFailuresDeps, where: Record<string, unknown>): Promise<CiFailure[]> {
  if (github === null) return [payloadFailure(ci, "The webhook app could not get a token to read checks and actions (the App needs Checks and Actions: read); read the failures on the pull request.")];
  let found: Found[];
  try {
    found = ci.event === "check_suite" ? await fromCheckRuns(ci, repo, github) : await fromJobs(ci, repo, github);
  } catch (error) {
    deps.log("ci:failures-unreadable", { ...where, error: describeGitHubError(error) });
    found = [];
  }
  if (found.length === 0) return [payloadFailure(ci, "GitHub did not list which checks failed; read them on the pull request.")];
  const shown = found.slice(0, MAX_CI_FAILURES);
  return await Promise.all(
    shown.map(async ({ failure, jobId }) => {
      if (jobId === undefined) return failure;
      const excerpt = await logExcerpt(repo, jobId, github, deps, where);
      return { ...failure, excerpt: excerpt.slice(-MAX_CI_EXCERPT_CHARS) };
    })
  );
}

async function fromCheckRuns(ci: CiEvent, repo: RepoRef, github: InstallationClient): Promise<Found[]> {
  const actions = ci.appSlug === "github-actions";
  return (await github.checkRunsForSuite(repo, ci.sourceId)).flatMap((entry): Found[] => {
    const run = checkRunSchema.safeParse(entry);
    if (!run.success || !failingConclusion(run.data.conclusion)) return [];
    const { title, summary } = run.data.output ?? {};
    const said = [title, summary].filter((text): text is string => typeof text === "string" && text.trim() !== "").join("\n");
    return [
      {
        failure: failureOf(run.data.name, run.data.conclusion, run.data.html_url ?? run.data.details_url, said),
        // GitHub Actions' check run is its job, by the same id.
        ...(actions ? { jobId: run.data.id } : {})
      }
    ];
  });
}

async function fromJobs(ci: CiEvent, repo: RepoRef, github: InstallationClient): Promise<Found[]> {
  return (await github.workflowRunJobs(repo, ci.sourceId)).flatMap((entry): Found[] => {
    const job = jobSchema.safeParse(entry);
    if (!job.success || !failingConclusion(job.data.conclusion)) return [];
    const failed = (job.data.steps ?? []).filter((step) => failingConclusion(step.conclusion)).map((step) => step.name);
    const summary = failed.length > 0 ? `failed steps: ${failed.join(", ")}` : "";
    return [{ failure: failureOf(job.data.name, job.data.conclusion, job.data.html_url, summary), jobId: job.data.id }];
  });
}

/** When GitHub would not list the failures: the suite or the workflow run itself, as the payload named it. */
function payloadFailure(ci: CiEvent, note: string): CiFailure {
  const conclusion: CiFailingConclusion = failingConclusion(ci.conclusion) ? ci.conclusion : "failure";
  return failureOf(ci.sourceName, conclusion, ci.sourceUrl, note);
}

function failureOf(name: string, conclusion: CiFailingConclusion, url: string | null | undefined, summary: string): CiFailure {
  const link = url && /^https?:\/\//.test(url) && url.length <= MAX_CI_URL_CHARS && URL.canParse(url) ? url : undefined;
  const text = clean(summary).slice(0, MAX_CI_SUMMARY_CHARS);
  return {
    name: clean(name).slice(0, MAX_CI_NAME_CHARS) || "unnamed check",
    conclusion,
    ...(link ? { url: link } : {}),
    ...(text.trim() ? { summary: text } : {})
  };
}

/**
 * The last LOG_EXCERPT_LINES lines of a job's log, without GitHub's
 * timestamps and terminal colours, or a note saying why there are none.
 */
async function logExcerpt(repo: RepoRef, jobId: number, github: InstallationClient, deps: CiFailuresDeps, where: Record<string, unknown>): Promise<string> {
  let url: string;
  try {
    url = await github.jobLogUrl(repo, jobId);
  } catch (error) {
    deps.log("ci:log-unreadable", { ...where, jobId, error: describeGitHubError(error) });
    return "[the webhook app could not read this job's log from GitHub]";
  }
  try {
    const response = await deps.fetch(url, { redirect: "follow", signal: AbortSignal.timeout(LOG_DOWNLOAD_TIMEOUT_MS) });
    if (!response.ok || response.body === null) {
      await response.body?.cancel();
      throw new Error(`the log's download answered ${response.status}`);
    }
    const { text, cut } = await tailOf(response.body);
    const lines = clean(text).split("\n").map(stripTimestamp);
    while (lines.length > 0 && lines.at(-1)!.trim() === "") lines.pop();
    const kept = lines.slice(-LOG_EXCERPT_LINES).join("\n");
    return cut ? `[the log is longer than ${MAX_LOG_BYTES_READ / (1024 * 1024)} MiB: these are the last lines of its first part]\n${kept}` : kept;
  } catch (error) {
    // The address is signed and short-lived: it is not logged.
    deps.log("ci:log-unreadable", { ...where, jobId, error: error instanceof Error ? error.name === "TimeoutError" ? `no answer within ${LOG_DOWNLOAD_TIMEOUT_MS} ms` : error.message : String(error) });
    return "[the webhook app could not download this job's log]";
  }
}

/** The stream's last LOG_TAIL_BYTES, reading at most MAX_LOG_BYTES_READ. */
async function tailOf(body: ReadableStream<Uint8Array>): Promise<{ text: string; cut: boolean }> {
  const reader = body.getReader();
  let tail = new Uint8Array(0);
  let read = 0;
  let cut = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    read += value.length;
    const joined = new Uint8Array(tail.length + value.length);
    joined.set(tail);
    joined.set(value, tail.length);
    tail = joined.length > LOG_TAIL_BYTES ? joined.slice(joined.length - LOG_TAIL_BYTES) : joined;
    if (read >= MAX_LOG_BYTES_READ) {
      cut = true;
      await reader.cancel();
      break;
    }
  }
  return { text: new TextDecoder().decode(tail), cut };
}

/** Terminal colours and other control characters out, tokens redacted, line ends as `\n`. */
function clean(text: string): string {
  return redactSecrets(
    text
      .replace(/\r\n?/g, "\n")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: terminal escapes are what is removed
      .replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, "")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the other control characters but tab and newline
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, "")
  );
}

/** GitHub Actions starts every log line with its time (`2026-12-02T05:01:46.1234567Z `). */
const stripTimestamp = (line: string) => line.replace(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/, "");
