/**
 * A thread page's runs, newest first: each run's part of the transcript
 * (from its envelope message to the next) joined by position with what the
 * command center knows of it (`GET /api/command-center/threads/:session`);
 * the newest may be in one list before the other while it is dispatched.
 * The latest run shows expanded with the header's status, each older one a
 * line; either says what the egress gateway refused it (blocked.ts) and
 * which private registries it used (private-sources.ts). Pure:
 * `now` is a parameter. docs/dashboard.md, "The thread page".
 */
import type { GitHubContinuation, RunSummary, ThreadSummary } from "../../shared/command-center";
import { OUTCOME_LABELS } from "../../shared/outcomes";
import { blockedView, type BlockedView } from "./blocked";
import { privateSourcesView, type PrivateSourcesView } from "./private-sources";
import { costView, formatCount, formatDuration, formatRelativeTime, formatTimestamp, type CostView } from "./format";
import type { ThreadStatusView } from "./thread";
import type { Tone } from "./threads";
import type { TranscriptItem } from "./transcript";

type RunMarker = Extract<TranscriptItem, { kind: "run" }>;

/** One run's part of the transcript: its envelope marker (absent for messages before any envelope) and what followed it. */
export type TranscriptRun = { marker?: RunMarker; items: TranscriptItem[] };

/**
 * The transcript cut at each run's envelope, oldest first. Anything before
 * the first envelope joins the first run; a transcript without envelopes is
 * one run without a marker (none when it is empty).
 */
export function splitRuns(items: readonly TranscriptItem[]): TranscriptRun[] {
  const runs: TranscriptRun[] = [];
  const leading: TranscriptItem[] = [];
  for (const item of items) {
    if (item.kind === "run") runs.push({ marker: item, items: runs.length === 0 ? leading.splice(0) : [] });
    else if (runs.length === 0) leading.push(item);
    else runs.at(-1)!.items.push(item);
  }
  if (runs.length === 0 && leading.length > 0) runs.push({ items: leading });
  return runs;
}

/** How a run reads; a queued one is waiting for the turn before it on this issue. */
export type RunStatus = RunSummary["status"] | "stale" | "unknown";

const RUN_STATUS: Record<RunSummary["status"], { label: string; tone: Tone; title?: string }> = {
  queued: { label: "queued", tone: "neutral", title: "Dispatched, waiting for its turn: runs on one issue go one at a time." },
  running: { label: "running", tone: "info" },
  recovering: { label: "recovering", tone: "warn", title: "The run's turn was interrupted; Think's chat recovery is resuming it." },
  done: { label: "done", tone: "good" },
  error: { label: "failed", tone: "bad" },
  cancelled: { label: "cancelled", tone: "neutral" }
};

export const SCRIPTED_LABEL = "scripted demonstration — no model ran";
/** The tag on a reporter-tier run, and what it means. */
export const PROOF_TITLE = "The reproduction's check, re-run by agent-think on the base and on the pull request's head: proven when it failed before and passes after.";
export const REPORTER_LABEL = "reporter";
export const REPORTER_TITLE = "A reporter-tier run: the issue's author asked for a reproduction without write access; it could push nothing, and its spend counts against REPORTER_DAILY_BUDGET.";

/** The models that served a run, in the order they first did: "gpt-5.5", or "claude-opus-4-5 then gpt-5.5" after a fallback. */
export function modelsText(models: readonly string[]): string {
  return models.join(" then ");
}

export type RunView = {
  key: string;
  /** 1 for the thread's first run. */
  number: number;
  latest: boolean;
  submissionId?: string;
  status: RunStatus | ThreadStatusView["status"];
  label: string;
  tone: Tone;
  statusTitle?: string;
  /** What the run cost; absent while it has not ended and reported nothing, "unknown" when it ended without a cost. */
  cost?: CostView;
  /** "@octocat asked", "continued by alice@example.com from the dashboard", "continued from GitHub by @octocat", … */
  who: string;
  /** The `continue` comment that continued the run from GitHub, which `who` links to. */
  whoUrl?: string;
  /** Who continued it from the dashboard. */
  continuedBy?: string;
  /** "continued from GitHub by @octocat", for a run a maintainer's `continue` comment continued. */
  continuedFromGitHub?: string;
  when?: string;
  whenTitle?: string;
  instruction?: string;
  /** "3 tool calls · 1,200 in / 300 out · 42 s". */
  facts: string;
  /** What the run reported with `report_result`, in words ("reproduced"). */
  outcome?: string;
  /** The collapsed line of an older run: "failed · $0.42 · gpt-5.5 · 3 tool calls · 5 min ago", with the outcome after the status when it reported one. */
  line: string;
  error?: string;
  scripted: boolean;
  /** A reporter-tier run: the author asked, read-only (shown as a tag). */
  reporter?: boolean;
  /** Its pull request's proof, when it needed one: the reproduction's check failed before and passed after, or not (shown as a tag). */
  proof?: "proven" | "not proven";
  /** The models that served its steps ("gpt-5.5", "claude-opus-4-5 then gpt-5.5"), once it ended and said. */
  model?: string;
  /** What the egress gateway refused the run, when it refused anything. */
  blocked?: BlockedView;
  /** The private registries whose credential the run's requests got, when any did. */
  privateSources?: PrivateSourcesView;
  items: TranscriptItem[];
};

const ENDED = new Set<string>(["done", "error", "cancelled"]);

/** "continued from GitHub by @octocat" (without a login, "continued from GitHub"). */
export function fromGitHubText(continuation: GitHubContinuation): string {
  return continuation.login ? `continued from GitHub by @${continuation.login}` : "continued from GitHub";
}

function whoOf(marker: RunMarker | undefined, continuedBy: string | undefined, fromGitHub: GitHubContinuation | undefined): string {
  if (fromGitHub) return fromGitHubText(fromGitHub);
  if (continuedBy) return `continued by ${continuedBy} from the dashboard`;
  if (marker?.envelope.continuationOf) return "continued from the dashboard";
  if (marker?.envelope.requestedBy) return `@${marker.envelope.requestedBy.login} asked`;
  return marker ? "a maintainer asked" : "";
}

/**
 * The runs to show, newest first. `header` is the thread's status as the
 * page header shows it: the latest run takes it when it is the thread's
 * current run (or nothing else is known of it), so both say the same.
 */
export function runViews(options: {
  items: readonly TranscriptItem[];
  /** The thread detail's runs, newest first; null when not (yet) known. */
  runs: readonly RunSummary[] | null;
  thread: Pick<ThreadSummary, "submissionId" | "continuedBy" | "continuedFromGitHub" | "lastError"> | undefined;
  header: ThreadStatusView;
  now: number;
}): RunView[] {
  const transcript = splitRuns(options.items);
  const summaries = options.runs ? [...options.runs].reverse() : [];
  const count = Math.max(transcript.length, summaries.length);
  const views: RunView[] = [];
  for (let index = 0; index < count; index += 1) {
    const part = transcript[index];
    const run = summaries[index];
    const latest = index === count - 1;
    const current = latest && (run === undefined || options.thread === undefined || run.submissionId === options.thread.submissionId);
    const headerKnown = options.header.status !== "unknown" && options.header.status !== "idle";

    let status: RunView["status"] = "unknown";
    let label = "";
    let tone: Tone = "neutral";
    let statusTitle: string | undefined;
    if (current && headerKnown) {
      ({ status, label, tone } = options.header);
      statusTitle = options.header.title;
    } else if (run) {
      status = run.status;
      ({ label, tone, title: statusTitle } = RUN_STATUS[run.status]);
    }

    // The run's own record first, else the thread's for its current run; a continuation came from one place or the other.
    const fromGitHub = run?.continuedFromGitHub ?? (current && !run?.continuedBy ? options.thread?.continuedFromGitHub : undefined);
    const continuedBy = fromGitHub ? undefined : (run?.continuedBy ?? (current ? options.thread?.continuedBy : undefined));
    const ended = ENDED.has(status);
    const cost = run?.cost ? costView(run.cost) : ended && run ? costView(undefined) : undefined;
    const toolCalls = run?.toolCalls ?? part?.items.filter((item) => item.kind === "tool").length ?? 0;
    const submittedAt = part?.marker ? Date.parse(part.marker.envelope.submittedAt) : NaN;
    const at = Number.isFinite(submittedAt) ? submittedAt : run?.dispatchedAt;
    const duration = run?.endedAt !== undefined && run.dispatchedAt !== undefined ? formatDuration(Math.max(0, run.endedAt - run.dispatchedAt)) : undefined;
    const outcome = run?.outcome ? OUTCOME_LABELS[run.outcome].toLowerCase() : undefined;
    const facts = [
      `${formatCount(toolCalls)} tool call${toolCalls === 1 ? "" : "s"}`,
      run?.tokens ? `${formatCount(run.tokens.input)} in / ${formatCount(run.tokens.output)} out` : null,
      duration ?? null
    ].filter((fact): fact is string => fact !== null);
    const endedWhen = run?.endedAt !== undefined ? `ended ${formatRelativeTime(run.endedAt, options.now)}` : null;
    const blocked = blockedView(run?.blocked);
    const privateSources = privateSourcesView(run?.privateSources);
    const error = status === "error" ? (run?.error ?? (current ? (options.header.detail ?? options.thread?.lastError) : undefined)) : undefined;
    views.push({
      key: run?.submissionId ?? part?.marker?.key ?? `run-${index}`,
      number: index + 1,
      latest,
      ...(run ? { submissionId: run.submissionId } : {}),
      status,
      label,
      tone,
      ...(statusTitle ? { statusTitle } : {}),
      ...(cost ? { cost } : {}),
      who: whoOf(part?.marker, continuedBy, fromGitHub),
      ...(fromGitHub?.commentUrl ? { whoUrl: fromGitHub.commentUrl } : {}),
      ...(continuedBy ? { continuedBy } : {}),
      ...(fromGitHub ? { continuedFromGitHub: fromGitHubText(fromGitHub) } : {}),
      ...(at !== undefined ? { when: formatRelativeTime(at, options.now), whenTitle: formatTimestamp(at) } : {}),
      ...(part?.marker ? { instruction: part.marker.envelope.instruction } : {}),
      facts: facts.join(" · "),
      ...(outcome ? { outcome } : {}),
      line: [label || null, outcome ?? null, cost?.text ?? null, run?.models?.length && !run.scripted ? modelsText(run.models) : null, facts[0]!, endedWhen ?? (at !== undefined ? formatRelativeTime(at, options.now) : null)]
        .filter((piece): piece is string => piece !== null)
        .join(" · "),
      ...(error ? { error } : {}),
      scripted: run?.scripted === true,
      ...(run?.tier === "reporter" ? { reporter: true } : {}),
      ...(run?.proven === undefined ? {} : { proof: run.proven ? ("proven" as const) : ("not proven" as const) }),
      ...(run?.models?.length ? { model: modelsText(run.models) } : {}),
      ...(blocked ? { blocked } : {}),
      ...(privateSources ? { privateSources } : {}),
      items: part?.items ?? []
    });
  }
  return views.reverse();
}

/**
 * The header's status with the latest run's queue: a thread the command
 * center calls running whose current run has not started its turn (and is
 * not streaming) is queued, as that run's own line says.
 */
export function headerStatus(
  view: ThreadStatusView,
  latest: RunSummary | undefined,
  thread: Pick<ThreadSummary, "submissionId"> | undefined,
  streaming: boolean
): ThreadStatusView {
  if (view.status !== "running" || streaming || latest?.status !== "queued") return view;
  if (thread && latest.submissionId !== thread.submissionId) return view;
  const queued = RUN_STATUS.queued;
  return { ...view, status: "queued", label: queued.label, tone: queued.tone, title: queued.title };
}

export type ThreadCostView = {
  /** Every run of the thread. */
  total: CostView;
  /** The latest run, when the thread has more than one and it reported a cost or ended. */
  latest?: CostView;
};

/**
 * The thread's cost for the header: the total, and the latest run's beside
 * it when there are several runs; null while nothing ended or reported a
 * cost (a first run still queued or running has no cost to show yet).
 */
export function threadCostView(
  thread: Pick<ThreadSummary, "cost" | "runCount" | "status"> | undefined,
  runs: readonly RunSummary[] | null
): ThreadCostView | null {
  const latest = runs?.[0];
  const anyEnded = runs ? runs.some((run) => ENDED.has(run.status)) : thread !== undefined && (ENDED.has(thread.status) || thread.runCount > 1);
  if (!thread?.cost && !anyEnded) return null;
  const total = costView(thread?.cost);
  const several = (runs?.length ?? thread?.runCount ?? 0) > 1;
  if (!several || !latest) return { total };
  if (latest.cost) return { total, latest: costView(latest.cost) };
  return ENDED.has(latest.status) ? { total, latest: costView(undefined) } : { total };
}
