/**
 * Continuing a failed or stale run: when the dashboard offers it, and what
 * it says about the answer of `POST /api/command-center/continue/:session`.
 * Pure: the page does the fetch and hands the status and body here.
 */
import type { ThreadSummary } from "../../shared/command-center";
import { isActiveStatus } from "../../shared/thread-status";

/**
 * A thread that failed, or is active (running or recovering) and stale, may
 * be continued; a done or cancelled one may not (the server says 409). A
 * recovering thread that is not stale is Think's to resume, not a human's.
 */
export function canContinue(thread: Pick<ThreadSummary, "status" | "stale">): boolean {
  return thread.status === "error" || (isActiveStatus(thread.status) && thread.stale);
}

export type ContinueOutcome =
  | { ok: true; submissionId: string; message: string }
  | { ok: false; reason: "not_found" | "conflict" | "forbidden" | "failed" | "network"; message: string };

export const continuePath = (session: string) => `/api/command-center/continue/${encodeURIComponent(session)}`;

/** The server's own words, when it sent some: `{ error }`, `{ message }` or short plain text. */
function serverDetail(body: unknown): string | undefined {
  if (typeof body === "string") {
    const text = body.trim();
    return text && text.length <= 300 && !text.startsWith("<") ? text : undefined;
  }
  if (body && typeof body === "object") {
    for (const key of ["error", "message", "reason"] as const) {
      const value = (body as Record<string, unknown>)[key];
      if (typeof value === "string" && value.trim()) return value.trim();
    }
  }
  return undefined;
}

const withDetail = (message: string, detail: string | undefined) => (detail ? `${message} (${detail})` : message);

export function continueOutcome(status: number, body: unknown): ContinueOutcome {
  const detail = serverDetail(body);
  if (status === 202 || status === 200) {
    const submissionId =
      body && typeof body === "object" && typeof (body as { submissionId?: unknown }).submissionId === "string"
        ? (body as { submissionId: string }).submissionId
        : "";
    return {
      ok: true,
      submissionId,
      message: submissionId ? `Continuing: submission ${submissionId} queued.` : "Continuing: submission queued."
    };
  }
  if (status === 404) {
    return { ok: false, reason: "not_found", message: withDetail("Unknown thread: the command center has no record of it.", detail) };
  }
  if (status === 409) {
    return {
      ok: false,
      reason: "conflict",
      message: withDetail("Not continued: the thread is no longer failed or stale (it may have been continued already).", detail)
    };
  }
  if (status === 403) {
    // The gate's refusals say "forbidden: …"; the operator's own settings (ALLOWED_REPOS, the month's budget) speak for themselves.
    if (detail && !detail.startsWith("forbidden")) return { ok: false, reason: "forbidden", message: `Refused: ${detail}` };
    return {
      ok: false,
      reason: "forbidden",
      message: withDetail("Refused: continuing is allowed only from the dashboard's own origin, behind Access.", detail)
    };
  }
  return { ok: false, reason: "failed", message: withDetail(`Continue failed: HTTP ${status}.`, detail) };
}

export function continueNetworkError(error: unknown): ContinueOutcome {
  const detail = error instanceof Error ? error.message : String(error);
  return { ok: false, reason: "network", message: `Continue failed: the request did not reach the server (${detail}).` };
}

/**
 * A Continue the dashboard sent, and what it followed from: the thread's
 * submission before it (to know the continued run when the answer carries
 * no submission id).
 */
export type ContinueTrack = { outcome: ContinueOutcome; previousSubmissionId?: string };

export type ContinuePhase = "refused" | "queued" | "running" | "recovering" | "stale" | "done" | "failed" | "cancelled";

export type ContinueBanner = {
  phase: ContinuePhase;
  tone: "good" | "bad" | "warn" | "info" | "neutral";
  message: string;
  /** The continued run's error, when it failed. */
  error?: string;
  /** The run ended (or the request was refused): nothing more will change. */
  settled: boolean;
};

/** "failed again (2 failures)" for a thread that failed more than once in a row; undefined otherwise. */
export function failedAgainNote(thread: Pick<ThreadSummary, "status" | "failures">): string | undefined {
  return thread.status === "error" && thread.failures !== undefined && thread.failures >= 2 ? `failed again (${thread.failures} failures)` : undefined;
}

/** Whether the thread's current run is the one this Continue started. */
function isContinuedRun(track: ContinueTrack & { outcome: { ok: true } }, thread: Pick<ThreadSummary, "submissionId">): boolean {
  if (track.outcome.submissionId) return thread.submissionId === track.outcome.submissionId;
  return track.previousSubmissionId !== undefined && thread.submissionId !== track.previousSubmissionId;
}

/**
 * What the Continue banner says: the answer to the request, then the
 * continued run as the command center reports it: queued until its turn
 * starts, running (or being recovered, or stale), then how it ended. It
 * never stays "queued" once the run has moved on. Pure.
 */
export function continueBanner(
  track: ContinueTrack,
  thread: Pick<ThreadSummary, "submissionId" | "status" | "stale" | "turnStartedAt" | "lastError" | "failures"> | undefined
): ContinueBanner {
  const { outcome } = track;
  if (!outcome.ok) return { phase: "refused", tone: "bad", message: outcome.message, settled: true };
  const id = outcome.submissionId ? `submission ${outcome.submissionId}` : "the submission";
  const queued: ContinueBanner = { phase: "queued", tone: "info", message: `Continuing: ${id} queued.`, settled: false };
  if (!thread || !isContinuedRun({ ...track, outcome }, thread)) return queued;
  switch (thread.status) {
    case "running":
    case "recovering":
      if (thread.stale) return { phase: "stale", tone: "warn", message: "The continued run went quiet: no activity for the stale window.", settled: false };
      if (thread.status === "recovering") {
        return { phase: "recovering", tone: "warn", message: "The continued run was interrupted; Think is resuming it.", settled: false };
      }
      return thread.turnStartedAt === undefined ? queued : { phase: "running", tone: "info", message: "The continued run is running.", settled: false };
    case "done":
      return { phase: "done", tone: "good", message: "The continued run finished.", settled: true };
    case "cancelled":
      return { phase: "cancelled", tone: "neutral", message: "The continued run was cancelled.", settled: true };
    case "error": {
      const again = failedAgainNote(thread);
      return {
        phase: "failed",
        tone: "bad",
        message: again ? `The continued run ${again}.` : "The continued run failed.",
        ...(thread.lastError ? { error: thread.lastError } : {}),
        settled: true
      };
    }
  }
}
