/**
 * What follows an issue's session in the name of its reporter session
 * (src/shared/session-name.ts): on its own, so the dashboard can tell one
 * apart without taking the session-name parser into its first paint. Pure.
 */
export const REPORTER_SESSION_SUFFIX = ".reporter";

/** Whether `session` names an issue's reporter session (no issue's own session ends so: it ends in the number). */
export function isReporterSession(session: string): boolean {
  return session.endsWith(REPORTER_SESSION_SUFFIX);
}
