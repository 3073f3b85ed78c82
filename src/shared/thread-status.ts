/**
 * A thread's statuses and which of them are active. Its own module, free of zod, so the
 * dashboard's view-models use the rule itself, not a copy (the wire schemas in
 * command-center.ts re-export it). `running` and `recovering` (Think's chat recovery resuming an
 * interrupted turn) are active; `cancelled` (stopped) is not a failure: it is not continued and
 * not in the success rate. What each means: docs/command-center.md, The registry. Pure.
 */
export const THREAD_STATUSES = ["running", "recovering", "done", "error", "cancelled"] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];
/** The statuses of a run that has not ended. */
export type ActiveStatus = "running" | "recovering";
export type EndedStatus = Exclude<ThreadStatus, ActiveStatus>;

export function isActiveStatus(status: ThreadStatus): status is ActiveStatus {
  return status === "running" || status === "recovering";
}
