import { describe, expect, it } from "vitest";
import { bashOutputView, isToolPart, splitLeftOut, toolCallView } from "../../../src/ui/view-models/tool-call";

const LOG = "/temp/agent-think/logs/abc.stdout";
const cutText = `head line\n… [agent-think: 99000 bytes of 100000 (2000 lines) left out here; the whole stdout is in ${LOG}] …\ntail line`;

const bashOutput = {
  backend: "shell",
  exitCode: 3,
  stdout: { text: cutText, totalBytes: 100_000, totalLines: 2_000, log: LOG },
  stderr: { text: "", totalBytes: 0, totalLines: 0 },
  durationMs: 1_250
};

describe("splitLeftOut", () => {
  it("splits a cut stream around its note", () => {
    const split = splitLeftOut(cutText);
    expect(split.head).toBe("head line");
    expect(split.tail).toBe("tail line");
    expect(split.note).toEqual({ omittedBytes: 99_000, totalBytes: 100_000, totalLines: 2_000, stream: "stdout", log: LOG });
  });

  it("leaves a whole stream alone", () => {
    expect(splitLeftOut("all of it\n")).toEqual({ head: "all of it\n", tail: "" });
  });
});

describe("bashOutputView", () => {
  it("shows the exit code, both streams, the left-out note and the log path", () => {
    const view = bashOutputView(bashOutput)!;
    expect(view).toMatchObject({ kind: "bash", backend: "shell", exitCode: 3, timedOut: false, duration: "1.2 s" });
    const [stdout, stderr] = view.streams;
    expect(stdout).toMatchObject({
      name: "stdout",
      head: "head line",
      tail: "tail line",
      log: LOG,
      leftOut: `99,000 bytes of 100,000 (2,000 lines) left out; the whole stdout is in ${LOG}`,
      size: "98 KB · 2,000 lines",
      empty: false
    });
    expect(stderr).toMatchObject({ name: "stderr", empty: true, leftOut: undefined });
  });

  it("reads a backend that could not run the command", () => {
    expect(bashOutputView({ backend: "container", error: "the container backend is unavailable" })).toMatchObject({
      kind: "bash",
      error: "the container backend is unavailable",
      streams: []
    });
  });

  it("is null for a shape that is not a bash result", () => {
    expect(bashOutputView("text")).toBeNull();
    expect(bashOutputView({ stdout: "x" })).toBeNull();
  });
});

describe("toolCallView", () => {
  it("reads a finished bash call: command as summary and input, exit code as state", () => {
    const view = toolCallView(
      {
        type: "tool-bash",
        toolCallId: "call-1",
        state: "output-available",
        input: { command: "npm test\necho done", backend: "shell", timeoutMs: 120_000 },
        output: bashOutput
      },
      "fallback"
    );
    expect(view).toMatchObject({
      toolCallId: "call-1",
      toolName: "bash",
      summary: "npm test …",
      stateLabel: "exit 3",
      tone: "warn",
      done: true,
      input: { text: "npm test\necho done", language: "shell", details: ["backend shell", "timeout 2 min 00 s"] }
    });
    expect(view.output?.kind).toBe("bash");
  });

  it("labels exit 0 good, a timeout bad, a running call running", () => {
    const call = (output: object, state = "output-available") =>
      toolCallView({ type: "tool-bash", toolCallId: "c", state, input: { command: "ls" }, output }, "f");
    expect(call({ ...bashOutput, exitCode: 0 })).toMatchObject({ stateLabel: "exit 0", tone: "good" });
    expect(call({ ...bashOutput, exitCode: 124, timedOut: true })).toMatchObject({ stateLabel: "timed out", tone: "bad" });
    const running = toolCallView({ type: "tool-bash", toolCallId: "c", state: "input-available", input: { command: "ls" } }, "f");
    expect(running).toMatchObject({ stateLabel: "running", done: false, output: null });
  });

  it("shows another tool's input and output as compact JSON, and names a dynamic tool", () => {
    const view = toolCallView(
      { type: "dynamic-tool", toolName: "read", toolCallId: "c2", state: "output-available", input: { path: "/workspace/README.md" }, output: { content: "# hi", lines: 1 } },
      "f"
    );
    expect(view).toMatchObject({ toolName: "read", summary: "/workspace/README.md", stateLabel: "done", tone: "good" });
    expect(view.input).toMatchObject({ text: '{"path":"/workspace/README.md"}', language: "json" });
    expect(view.output).toMatchObject({ kind: "json", body: { text: '{"content":"# hi","lines":1}' } });
  });

  it("shows a tool's error text", () => {
    const view = toolCallView({ type: "tool-write", toolCallId: "c3", state: "output-error", input: { path: "/x" }, errorText: "EACCES" }, "f");
    expect(view).toMatchObject({ stateLabel: "error", tone: "bad", output: { kind: "error", text: "EACCES" } });
  });

  it("uses the fallback id and an empty summary when the part has neither", () => {
    const view = toolCallView({ type: "tool-list", state: "input-streaming" }, "m1:3");
    expect(view).toMatchObject({ toolCallId: "m1:3", summary: "", stateLabel: "preparing", input: { text: "" } });
  });

  it("tells tool parts from others", () => {
    expect(isToolPart({ type: "tool-bash" })).toBe(true);
    expect(isToolPart({ type: "dynamic-tool" })).toBe(true);
    expect(isToolPart({ type: "text" })).toBe(false);
  });
});
