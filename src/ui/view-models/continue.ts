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
