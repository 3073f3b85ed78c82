/**
 * Fire-and-forget reporting to the command center, for the ThinkAgent:
 * `CenterReports` sends each lifecycle event, redacted, inside the object's
 * `waitUntil`, through `reportSafely`, whose promise never rejects, so a
 * command center that throws or hangs can never fail or delay a run. Pure:
 * the command center, the redaction and the sinks are parameters.
 */
import type { CommandCenterEvent } from "../shared/command-center";
import type { RunContext } from "../run/run-context";

/** The command center as a reporter sees it. */
export type EventSink = { record(event: unknown): Promise<unknown> };

export type CenterReportsDeps = {
  center(): Promise<EventSink>;
  /** Applied to every event before it leaves: nothing in an event may hold the run's token. */
  redact<T>(value: T): T;
  waitUntil(promise: Promise<unknown>): void;
  onError(event: CommandCenterEvent, error: unknown): void;
};

export class CenterReports {
  readonly #deps: CenterReportsDeps;
  constructor(deps: CenterReportsDeps) {
    this.#deps = deps;
  }

  send(event: CommandCenterEvent): void {
    const redacted = this.#deps.redact(event);
    this.#deps.waitUntil(
      reportSafely(
        async () => (await this.#deps.center()).record(redacted),
        (error) => this.#deps.onError(event, error)
      )
    );
  }

  /** A run was submitted (a new dispatch or a continuation). */
  dispatched(run: RunContext, session: string, submissionId: string, at: number): void {
    this.send({
      type: "dispatched",
      session,
      repo: run.repo,
      issueNumber: run.issueNumber,
      issueTitle: run.issueTitle,
      requestedBy: run.requestedBy,
      instruction: run.instruction,
      submissionId,
      at
    });
  }
}

/** The returned promise never rejects: hand it to `ctx.waitUntil`, never `await` it on the turn's path. */
export function reportSafely(send: () => Promise<unknown>, onError: (error: unknown) => void): Promise<void> {
  return (async () => {
    try {
      await send();
    } catch (error) {
      try {
        onError(error);
      } catch {
        // A failing error sink is as harmless as a failing report.
      }
    }
  })();
}
