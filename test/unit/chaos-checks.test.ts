/**
 * The chaos suite's judgement over collected data: the five checks on
 * runs observed after settling, the status mapping the command center must
 * follow, counting closing comments in the stand-in's records, reading the
 * counter file and the steps' results out of a transcript, and where a run
 * stood when a kill landed (from the Worker's log lines).
 */
import { describe, expect, it } from "vitest";
import type { TranscriptMessage } from "../../scripts/lib/dev-api";
import {
  checkRun,
  countClosingComments,
  countProgressComments,
  expectedThreadStatus,
  failuresByCheck,
  findTokens,
  formatFailure,
  type RunObservation
} from "../../scripts/lib/chaos/checks";
import { END_OF_COUNTER, planChaos, READ_COUNTER_COMMAND } from "../../scripts/lib/chaos/plan";
import { formatStage, logEvents, runStage } from "../../scripts/lib/chaos/timeline";
import { counterLines, interruptedSteps, stepResults } from "../../scripts/lib/chaos/transcript";
import { noticeId, noticeMarker } from "../../src/report/notices";

const LINES = ["chaos-1-r1-s1", "chaos-1-r1-s2"];

function observed(overrides: Partial<RunObservation> = {}): RunObservation {
  return {
    runId: "r1",
    session: "acme-widgets-1",
    submissionId: "sub-1",
    status: "completed",
    thread: { status: "done", submissionId: "sub-1" },
    closingComments: 1,
    lines: LINES,
    stepResults: new Map(LINES.map((line) => [line, 1])),
    interrupted: [],
    counter: [...LINES],
    ...overrides
  };
}

const checksOf = (run: RunObservation) => checkRun(run).map((failure) => failure.check);

describe("expectedThreadStatus", () => {
  it("maps as the agent reports endings", () => {
    expect(expectedThreadStatus("completed")).toBe("done");
    expect(expectedThreadStatus("error")).toBe("error");
    expect(expectedThreadStatus("aborted")).toBe("cancelled");
    expect(expectedThreadStatus("skipped")).toBe("cancelled");
    expect(expectedThreadStatus("running")).toBeNull();
    expect(expectedThreadStatus("pending")).toBeNull();
  });
});

describe("checkRun", () => {
  it("passes a run that ended once, consistently", () => {
    expect(checkRun(observed())).toEqual([]);
    expect(checkRun(observed({ status: "error", thread: { status: "error", submissionId: "sub-1" }, stepResults: new Map(), counter: [] }))).toEqual([]);
  });

  it("1: a run still running, or unknown, is not terminal", () => {
    expect(checksOf(observed({ status: "running", thread: { status: "running", submissionId: "sub-1" } }))).toEqual(["terminal"]);
    expect(checksOf(observed({ status: null }))).toContain("terminal");
  });

  it("2: the command center must show the run's submission in the mapped status", () => {
    expect(checksOf(observed({ thread: { status: "recovering", submissionId: "sub-1" } }))).toEqual(["center-status"]);
    expect(checksOf(observed({ thread: { status: "running", submissionId: "sub-1" } }))).toEqual(["center-status"]);
    expect(checksOf(observed({ thread: { status: "error", submissionId: "sub-1" } }))).toEqual(["center-status"]);
    expect(checksOf(observed({ thread: { status: "done", submissionId: "sub-0" } }))).toEqual(["center-status"]);
    expect(checksOf(observed({ thread: null }))).toEqual(["center-status"]);
    expect(checksOf(observed({ status: "aborted", thread: { status: "cancelled", submissionId: "sub-1" } }))).toEqual([]);
  });

  it("3: exactly one closing comment", () => {
    expect(checksOf(observed({ closingComments: 0 }))).toEqual(["one-closing"]);
    expect(checkRun(observed({ closingComments: 2 }))[0]!.detail).toContain("2 closing comments");
  });

  it("3: at most one progress comment (none is fine: progress: false, or a run with no GitHub)", () => {
    expect(checksOf(observed({ progressComments: 0 }))).toEqual([]);
    expect(checksOf(observed({ progressComments: 1 }))).toEqual([]);
    expect(checkRun(observed({ progressComments: 2 }))[0]).toMatchObject({ check: "one-closing", detail: expect.stringContaining("2 progress comments") });
  });

  it("4: a line twice, a stray line, a step run without its line, a completed run missing a step", () => {
    expect(checkRun(observed({ counter: [LINES[0]!, LINES[0]!, LINES[1]!] }))).toEqual([
      { check: "once-only", runId: "r1", detail: `step ${LINES[0]} ran 2 times (its line is in the counter file 2 times)` }
    ]);
    expect(checksOf(observed({ counter: [...LINES, "chaos-1-r2-s1"] }))).toEqual(["once-only"]);
    expect(checksOf(observed({ status: "error", thread: { status: "error", submissionId: "sub-1" }, counter: [LINES[0]!] }))).toEqual(["once-only"]);
    expect(checksOf(observed({ counter: [LINES[0]!], stepResults: new Map([[LINES[0]!, 1]]) }))).toEqual(["once-only"]);
    expect(checksOf(observed({ stepResults: new Map([[LINES[0]!, 2], [LINES[1]!, 1]]) }))).toEqual(["once-only"]);
    expect(checksOf(observed({ counter: null }))).toEqual(["once-only"]);
  });

  it("4: a step answered as interrupted by a restart ran at most once: its line once, or not at all", () => {
    const interrupted = { interrupted: [LINES[1]!], stepResults: new Map([[LINES[0]!, 1], [LINES[1]!, 0]]) };
    expect(checkRun(observed({ ...interrupted, counter: [LINES[0]!] }))).toEqual([]);
    expect(checkRun(observed({ ...interrupted, counter: [...LINES] }))).toEqual([]);
    expect(checksOf(observed({ ...interrupted, counter: [LINES[0]!, LINES[1]!, LINES[1]!] }))).toEqual(["once-only"]);
  });

  it("4: a run that errored before a step need not have run it", () => {
    expect(checkRun(observed({ status: "error", thread: { status: "error", submissionId: "sub-1" }, counter: [LINES[0]!], stepResults: new Map([[LINES[0]!, 1]]) }))).toEqual([]);
  });
});

describe("findTokens", () => {
  it("names the run and the place", () => {
    const failures = findTokens({ "the transcript": "x tok-a y", logs: "tok-b tok-a" }, [
      { runId: "r1", token: "tok-a" },
      { runId: "r2", token: "tok-c" }
    ]);
    expect(failures).toEqual([
      { check: "no-token", runId: "r1", detail: "its installation token is in the transcript" },
      { check: "no-token", runId: "r1", detail: "its installation token is in logs" }
    ]);
    expect(failuresByCheck(failures)["no-token"]).toBe(1);
    expect(formatFailure(failures[0]!)).toBe("✗ check 5 no token anywhere: run r1: its installation token is in the transcript");
  });
});

describe("countClosingComments", () => {
  const marker = noticeMarker(noticeId("sub-1", "closing"));
  const comment = (body: string, extra: Record<string, unknown> = {}) => ({
    method: "POST",
    path: "/repos/acme/widgets/issues/1/comments",
    operation: "issues/create-comment",
    body: { body },
    ...extra
  });
  it("counts created comments with the closing marker, not refused or faulted ones, nor other notices", () => {
    const records = [
      comment(`${marker}\ndone`),
      comment(`${marker}\nagain`),
      comment(`${marker}\nrefused`, { refused: { status: 422, message: "no" } }),
      comment(`${marker}\nlimited`, { fault: "secondary_rate_limit" }),
      comment(`${noticeMarker(noticeId("sub-1", "stale"))}\nstale`),
      comment(`${noticeMarker(noticeId("sub-2", "closing"))}\nother run`),
      { method: "GET", path: "/repos/acme/widgets/issues/1/comments", operation: "issues/list-comments", body: undefined }
    ];
    expect(countClosingComments(records, "sub-1")).toBe(2);
    expect(countClosingComments(records, "sub-3")).toBe(0);
  });

  it("counts progress comments by their creations, not their edits (PATCH)", () => {
    const progress = noticeMarker(noticeId("sub-1", "progress"));
    const records = [
      comment(`${progress}\nworking`),
      { method: "PATCH", path: "/repos/acme/widgets/issues/comments/9", operation: "issues/update-comment", body: { body: `${progress}\nfinished` } },
      comment(`${marker}\ndone`)
    ];
    expect(countProgressComments(records, "sub-1")).toBe(1);
    expect(countClosingComments(records, "sub-1")).toBe(1);
  });
});

describe("reading a transcript", () => {
  const [run] = planChaos({ seed: 1, runs: 1, kills: 0 }).runs;
  const bash = (command: string, output: unknown, state = "output-available") => ({ type: "tool-bash", toolCallId: command, state, input: { command }, output });
  const ok = (text: string) => ({ backend: "shell", exitCode: 0, stdout: { text, totalBytes: text.length, totalLines: 1 }, stderr: { text: "", totalBytes: 0, totalLines: 0 }, durationMs: 3 });
  const message = (parts: unknown[]): TranscriptMessage => ({ id: "m", role: "assistant", parts: parts as TranscriptMessage["parts"] });

  it("counts each step's bash results, ignoring calls without output", () => {
    const [first, second] = run!.steps;
    const counts = stepResults(
      [message([bash(first!.command, ok("")), { type: "text", text: "hi" }, bash(first!.command, ok("")), bash(second!.command, undefined, "input-available")])],
      run!.steps
    );
    expect(counts.get(first!.line)).toBe(2);
    expect(counts.get(second!.line)).toBe(0);
  });

  it("tells an interrupted answer apart from a result", () => {
    const [first, second] = run!.steps;
    const answered = { backend: "shell", error: "interrupted by a restart", interrupted: true, replayed: true };
    const messages = [message([bash(first!.command, ok("")), bash(second!.command, answered)])];
    expect(stepResults(messages, run!.steps).get(second!.line)).toBe(0);
    expect(interruptedSteps(messages, run!.steps)).toEqual([second!.line]);
  });

  it("reads the counter lines from the last complete read-back", () => {
    const messages = [
      message([bash(READ_COUNTER_COMMAND, ok(`old\n${END_OF_COUNTER}\n`))]),
      message([bash(READ_COUNTER_COMMAND, ok(`chaos-1-r1-s1\nchaos-1-r1-s1\n\n${END_OF_COUNTER}\n`))])
    ];
    expect(counterLines(messages)).toEqual(["chaos-1-r1-s1", "chaos-1-r1-s1"]);
    expect(counterLines([message([bash(READ_COUNTER_COMMAND, ok(`${END_OF_COUNTER}\n`))])])).toEqual([]);
    expect(counterLines([message([bash(READ_COUNTER_COMMAND, ok("chaos-1-r1-s1\n"))])])).toBeNull();
    expect(counterLines([message([bash(READ_COUNTER_COMMAND, { backend: "shell", error: "unavailable" })])])).toBeNull();
    expect(counterLines([])).toBeNull();
  });
});

describe("where a run was when a kill landed", () => {
  const line = (fields: Record<string, unknown>) => `agent-think ${JSON.stringify(fields)}`;
  const run = { session: "s-1", submissionId: "sub-1", steps: 3 };
  it("reads the Worker's log lines, skipping cut and foreign ones", () => {
    const output = [
      "wrangler says hi",
      line({ event: "submitted", session: "s-1", submissionId: "sub-1" }),
      'agent-think {"event":"tool","sess',
      line({ event: "turn:start", session: "s-1", requestId: "sub-1" })
    ].join("\n");
    expect(logEvents(output).map((event) => event.event)).toEqual(["submitted", "turn:start"]);
  });

  it("tells waiting, in its turn and ended apart", () => {
    const submitted = line({ event: "submitted", session: "s-1", submissionId: "sub-1" });
    const started = line({ event: "turn:start", session: "s-1" });
    const tool = line({ event: "tool", session: "s-1", tool: "bash", ok: true });
    const recovery = line({ event: "recovery", session: "s-1" });
    const other = line({ event: "tool", session: "s-2", tool: "bash", ok: true });
    const done = line({ event: "turn:done", session: "s-1", submissionId: "sub-1" });
    expect(runStage(logEvents(submitted), run)).toEqual({ kind: "waiting" });
    const midway = runStage(logEvents([submitted, started, tool, other, recovery, started].join("\n")), run);
    expect(midway).toEqual({ kind: "in-turn", stepsDone: 1, steps: 3, recoveries: 1 });
    expect(formatStage(midway)).toBe("in its turn, 1 of 3 steps logged, 1 recoveries");
    expect(formatStage(runStage(logEvents([submitted, started, tool, done].join("\n")), run))).toBe("ended (turn:done)");
  });
});
