import { describe, expect, it } from "vitest";
import { formatRunMessage, type RunEnvelope } from "../../../src/run/envelope";
import { envelope } from "./fixtures";
import type { TranscriptMessage } from "../../../src/shared/dispatch";
import { envelopeOf, threadHeader, transcriptItems } from "../../../src/ui/view-models/transcript";



const user = (id: string, env: RunEnvelope): TranscriptMessage => ({ id, role: "user", parts: [{ type: "text", text: formatRunMessage(env) }] });

const assistant: TranscriptMessage = {
  id: "a1",
  role: "assistant",
  parts: [
    { type: "step-start" },
    { type: "reasoning", text: "Let me look.", state: "done" },
    { type: "tool-bash", toolCallId: "t1", state: "output-available", input: { command: "ls" }, output: { backend: "shell", exitCode: 0, stdout: { text: "a\n", totalBytes: 2, totalLines: 1 }, stderr: { text: "", totalBytes: 0, totalLines: 0 }, durationMs: 5 } },
    { type: "text", text: "", state: "done" },
    { type: "text", text: "Reproduced: the stream stalls.", state: "done" }
  ]
};

describe("transcriptItems", () => {
  it("turns a run into a run marker, reasoning, tool call and text, skipping empty parts", () => {
    const items = transcriptItems([user("u1", envelope()), assistant]);
    expect(items.map((item) => item.kind)).toEqual(["run", "reasoning", "tool", "text"]);
    expect(items[0]).toMatchObject({ kind: "run", runNumber: 1, envelope: { instruction: "reproduce this issue" } });
    expect(items[2]).toMatchObject({ kind: "tool", key: "a1:t1", call: { toolName: "bash", stateLabel: "exit 0" } });
    expect(items[3]).toMatchObject({ kind: "text", text: "Reproduced: the stream stalls.", streaming: false });
  });

  it("marks the last part of the last assistant message while a turn streams", () => {
    const streaming: TranscriptMessage = { id: "a2", role: "assistant", parts: [{ type: "text", text: "Looking" }] };
    expect(transcriptItems([streaming], true).at(-1)).toMatchObject({ kind: "text", streaming: true });
    expect(transcriptItems([streaming], false).at(-1)).toMatchObject({ kind: "text", streaming: false });
    const partState: TranscriptMessage = { id: "a3", role: "assistant", parts: [{ type: "text", text: "Hi", state: "streaming" }] };
    expect(transcriptItems([partState]).at(-1)).toMatchObject({ streaming: true });
  });

  it("shows a user message without an envelope as plain text, and skips system messages", () => {
    const items = transcriptItems([
      { id: "s", role: "system", parts: [{ type: "text", text: "You are…" }] },
      { id: "u", role: "user", parts: [{ type: "text", text: "continue where you stopped" }] }
    ]);
    expect(items).toEqual([{ kind: "user", key: "u:user", text: "continue where you stopped" }]);
  });

  it("numbers the runs of a thread", () => {
    const items = transcriptItems([user("u1", envelope()), assistant, user("u2", envelope({ instruction: "open a PR" }))]);
    expect(items.filter((item) => item.kind === "run").map((item) => item.kind === "run" && item.runNumber)).toEqual([1, 2]);
  });

  it("notes files and sources", () => {
    const items = transcriptItems([{ id: "a", role: "assistant", parts: [{ type: "file", mediaType: "image/png", filename: "shot.png", url: "data:," }] }]);
    expect(items).toEqual([{ kind: "note", key: "a:0", text: "file: shot.png" }]);
  });
});

describe("threadHeader and envelopeOf", () => {
  it("takes the latest run's envelope, counting runs and tool calls", () => {
    const header = threadHeader([user("u1", envelope()), assistant, user("u2", envelope({ instruction: "open a PR", submittedAt: "2026-11-29T11:58:00.000Z" }))]);
    expect(header.envelope?.instruction).toBe("open a PR");
    expect(header).toMatchObject({ runs: 2, toolCalls: 1, firstSubmittedAt: Date.parse("2026-11-29T11:50:00.000Z") });
  });

  it("finds no envelope in assistant text, a late envelope or none", () => {
    expect(envelopeOf({ id: "a", role: "assistant", parts: [{ type: "text", text: formatRunMessage(envelope()) }] })).toBeNull();
    expect(envelopeOf({ id: "u", role: "user", parts: [{ type: "text", text: `hi ${formatRunMessage(envelope())}` }] })).toBeNull();
    expect(threadHeader([])).toEqual({ envelope: null, runs: 0, toolCalls: 0, firstSubmittedAt: null });
  });
});
