/**
 * Where each run was when a kill landed, read from the Worker's structured
 * log lines (`agent-think {json}`, src/run/log.ts) in the runtime's output
 * so far: not started, in its turn after n of its steps, or ended. Only for
 * the suite's printout (so a seed's kills can be told apart: mid-turn,
 * between steps, after the end); no check depends on it, since a line the
 * kill cut off is simply missing. Pure.
 */
import { LOG_PREFIX } from "../../../src/run/log";

export type LogEvent = { event: string; session?: string; submissionId?: string; tool?: string; [field: string]: unknown };

export function logEvents(output: string): LogEvent[] {
  const events: LogEvent[] = [];
  const marker = `${LOG_PREFIX}{`;
  for (const line of output.split("\n")) {
    const start = line.indexOf(marker);
    if (start < 0) continue;
    try {
      const value: unknown = JSON.parse(line.slice(start + LOG_PREFIX.length));
      if (typeof value === "object" && value !== null && typeof (value as LogEvent).event === "string") events.push(value as LogEvent);
    } catch {
      // Cut by the kill, or not ours.
    }
  }
  return events;
}

const TERMINAL_EVENTS = new Set(["turn:done", "turn:error", "turn:aborted", "turn:skipped"]);

export type RunStage = { kind: "waiting" } | { kind: "in-turn"; stepsDone: number; steps: number; recoveries: number } | { kind: "ended"; event: string };

/** Where one run (a session and its submission) stood, by the events logged so far. */
export function runStage(events: readonly LogEvent[], run: { session: string; submissionId: string; steps: number }): RunStage {
  const mine = events.filter((event) => event.session === run.session);
  const ended = mine.find((event) => event.submissionId === run.submissionId && TERMINAL_EVENTS.has(event.event));
  if (ended) return { kind: "ended", event: ended.event };
  if (!mine.some((event) => event.event === "turn:start")) return { kind: "waiting" };
  return {
    kind: "in-turn",
    stepsDone: mine.filter((event) => event.event === "tool" && event.tool === "bash" && event.ok === true).length,
    steps: run.steps,
    recoveries: mine.filter((event) => event.event === "recovery").length
  };
}

export function formatStage(stage: RunStage): string {
  switch (stage.kind) {
    case "waiting":
      return "not started";
    case "ended":
      return `ended (${stage.event})`;
    case "in-turn":
      return `in its turn, ${stage.stepsDone} of ${stage.steps} steps logged${stage.recoveries ? `, ${stage.recoveries} recoveries` : ""}`;
  }
}
