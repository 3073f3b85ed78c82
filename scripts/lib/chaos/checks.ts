/**
 * The five chaos checks, over what the driver collected once the runtime
 * settled after its last restart. Pure: each check is a function of plain
 * data and returns failures naming the run and why; nothing here fetches.
 *
 *   1 terminal       the agent's submission status is terminal
 *   2 center-status  the command center's thread for the session shows the
 *                    run's submission, in the status its ending maps to
 *   3 one-closing    exactly one closing comment per run on the stand-in,
 *                    and at most one progress comment
 *   4 once-only      every step's counter line is in the workspace once
 *   5 no-token       no run's fake installation token anywhere we can read
 *
 * What the checks cannot see is in docs/chaos.md.
 */
import type { SubmissionStatusValue } from "../../../src/shared/dispatch";
import { TERMINAL_STATUSES } from "../../../src/run/submission";
import { noticeId, noticeMarker } from "../../../src/report/notices";

export const CHECKS = {
  terminal: "1 every run reached a terminal state",
  "center-status": "2 the command center agrees with the agent",
  "one-closing": "3 exactly one closing comment and at most one progress comment per run",
  "once-only": "4 no tool command executed twice",
  "no-token": "5 no token anywhere"
} as const;
export type CheckName = keyof typeof CHECKS;
export const CHECK_NAMES = Object.keys(CHECKS) as CheckName[];

export type Failure = { check: CheckName; runId?: string; detail: string };

/** One run as the driver found it after settling. */
export type RunObservation = {
  runId: string;
  session: string;
  submissionId: string;
  /** The agent's own submission status; null when it does not know the submission. */
  status: SubmissionStatusValue | null;
  /** The command center's thread for the session, or null when it lists none. */
  thread: { status: string; submissionId: string } | null;
  /** Comments the stand-in created carrying this submission's closing marker. */
  closingComments: number;
  /** Comments the stand-in created carrying this submission's progress marker (absent: none counted). */
  progressComments?: number;
  /** Every step's counter line, in order. */
  lines: string[];
  /** Bash calls with a result in the transcript, by counter line. */
  stepResults: Map<string, number>;
  /** Steps the agent answered as interrupted by a restart instead of running them again: at most once, maybe never. */
  interrupted: string[];
  /** The counter file's lines as the read-back printed them; null when it could not be read. */
  counter: string[] | null;
};

/**
 * The thread status the command center must show for a terminal submission,
 * as src/agent.ts sends it: `describeEnding` (src/run/ending.ts) makes
 * aborted and skipped a cancel, an error an error (failed or interrupted),
 * and completed a success unless the budget ran out (an error; the chaos
 * runs are far below any budget).
 */
export function expectedThreadStatus(status: SubmissionStatusValue): "done" | "error" | "cancelled" | null {
  switch (status) {
    case "completed":
      return "done";
    case "error":
      return "error";
    case "aborted":
    case "skipped":
      return "cancelled";
    default:
      return null;
  }
}

export function checkRun(run: RunObservation): Failure[] {
  const failures: Failure[] = [];
  const fail = (check: CheckName, detail: string) => failures.push({ check, runId: run.runId, detail });

  if (run.status === null) fail("terminal", `the agent does not know submission ${run.submissionId}`);
  else if (!TERMINAL_STATUSES.has(run.status)) fail("terminal", `submission ${run.submissionId} is still ${run.status}`);

  const expected = run.status === null ? null : expectedThreadStatus(run.status);
  if (run.thread === null) fail("center-status", `the command center lists no thread for ${run.session}`);
  else if (run.thread.submissionId !== run.submissionId) {
    fail("center-status", `the thread shows submission ${run.thread.submissionId}, the run is ${run.submissionId}`);
  } else if (expected !== null && run.thread.status !== expected) {
    fail("center-status", `the agent says ${run.status} (so ${expected}), the command center says ${run.thread.status}`);
  }

  if (run.closingComments !== 1) fail("one-closing", `${run.closingComments} closing comments on the stand-in, not 1`);
  if ((run.progressComments ?? 0) > 1) fail("one-closing", `${run.progressComments} progress comments on the stand-in, not at most 1`);

  if (run.counter === null) {
    fail("once-only", "the counter file could not be read back");
  } else {
    const seen = new Map<string, number>();
    for (const line of run.counter) seen.set(line, (seen.get(line) ?? 0) + 1);
    for (const [line, count] of seen) {
      if (!run.lines.includes(line)) fail("once-only", `the counter file holds "${line}", which is no step of this run`);
      else if (count > 1) fail("once-only", `step ${line} ran ${count} times (its line is in the counter file ${count} times)`);
    }
    for (const line of run.lines) {
      const results = run.stepResults.get(line) ?? 0;
      if (results > 1) fail("once-only", `the transcript holds ${results} results of step ${line}`);
      if (seen.has(line)) continue;
      if (results > 0) fail("once-only", `step ${line} has a result in the transcript but no line in the counter file`);
      else if (run.status === "completed" && !run.interrupted.includes(line)) fail("once-only", `the run completed without running step ${line}`);
    }
  }
  return failures;
}

/** Where each run's token appears among the texts, keyed by where they were read. */
export function findTokens(places: Readonly<Record<string, string>>, tokens: ReadonlyArray<{ runId: string; token: string }>): Failure[] {
  const failures: Failure[] = [];
  for (const { runId, token } of tokens) {
    for (const [place, text] of Object.entries(places)) {
      if (text.includes(token)) failures.push({ check: "no-token", runId, detail: `its installation token is in ${place}` });
    }
  }
  return failures;
}

/** How many runs failed each check (a run failing one check twice counts once). */
export function failuresByCheck(failures: readonly Failure[]): Record<CheckName, number> {
  const counts = Object.fromEntries(CHECK_NAMES.map((name) => [name, 0])) as Record<CheckName, number>;
  for (const name of CHECK_NAMES) {
    counts[name] = new Set(failures.filter((failure) => failure.check === name).map((failure) => failure.runId ?? "")).size;
  }
  return counts;
}

export function formatFailure(failure: Failure): string {
  return `✗ check ${CHECKS[failure.check]}: ${failure.runId ? `run ${failure.runId}: ` : ""}${failure.detail}`;
}

/** A stand-in record, as far as counting comments goes. */
export type CommentRecord = { method: string; path: string; body: unknown; operation?: string; refused?: unknown; fault?: unknown };

/**
 * Comments the stand-in created (a create-comment call it neither refused
 * nor faulted) that carry the submission's closing marker. A call whose
 * answer the Worker never saw (killed mid-request) still created one.
 */
export function countClosingComments(records: readonly CommentRecord[], submissionId: string): number {
  return countMarkedComments(records, submissionId, "closing");
}

/** The same for the run's progress comment: its creations (its edits are PATCHes, not comments). */
export function countProgressComments(records: readonly CommentRecord[], submissionId: string): number {
  return countMarkedComments(records, submissionId, "progress");
}

function countMarkedComments(records: readonly CommentRecord[], submissionId: string, kind: "closing" | "progress"): number {
  const marker = noticeMarker(noticeId(submissionId, kind));
  return records.filter((record) => {
    if (record.method !== "POST" || record.refused !== undefined || record.fault !== undefined) return false;
    if (record.operation !== undefined ? record.operation !== "issues/create-comment" : !record.path.endsWith("/comments")) return false;
    const body = (record.body as { body?: unknown } | undefined)?.body;
    return typeof body === "string" && body.includes(marker);
  }).length;
}

/** One line per run for the printout: what each check looked at. */
export function formatObservation(run: RunObservation): string {
  const thread = run.thread === null ? "no thread" : `${run.thread.status}${run.thread.submissionId === run.submissionId ? "" : ` (of ${run.thread.submissionId})`}`;
  const counter = run.counter === null ? "unreadable" : `${run.counter.length} lines for ${run.lines.length} steps`;
  return `${run.runId}: agent ${run.status ?? "unknown"} · command center ${thread} · ${run.closingComments} closing comment(s) · ${run.progressComments ?? 0} progress comment(s) · counter ${counter}`;
}
