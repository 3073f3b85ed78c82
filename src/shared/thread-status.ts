/**
 * A thread's statuses and which of them are active. Its own module, free of
 * zod, so the dashboard's view-models can use the rule itself rather than a
 * copy (the wire schemas in command-center.ts re-export it). Pure.
 *
 * `recovering`: the run's turn was interrupted (an eviction, a restart, a
 * deploy) and Think's chat recovery is resuming it; it is `running` again
 * once the resumed turn starts. Both are active: neither has ended.
 * `cancelled`: the run was stopped (a maintainer's `stop`, `AgentThink.cancel`).
 * Not a failure: it is not continued and does not count against the success rate.
 */
export const THREAD_STATUSES = ["running", "recovering", "done", "error", "cancelled"] as const;
export type ThreadStatus = (typeof THREAD_STATUSES)[number];
/** The statuses of a run that has not ended. */
export type ActiveStatus = "running" | "recovering";
export type EndedStatus = Exclude<ThreadStatus, ActiveStatus>;

export function isActiveStatus(status: ThreadStatus): status is ActiveStatus {
  return status === "running" || status === "recovering";
}
