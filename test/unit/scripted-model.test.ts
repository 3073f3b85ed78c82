import type { LanguageModelV4Prompt, LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { formatRunMessage } from "../../src/run/envelope";
import { readProgress, ScriptedModel } from "../../src/model/scripted";

const runText = (instruction: string) =>
  formatRunMessage({
    repository: "a/b",
    issue: { number: 1, url: "https://github.com/a/b/issues/1" },
    instruction,
    session: "a-b-1",
    submittedAt: "2026-01-01T00:00:00.000Z"
  });

const user = (text: string) => ({ role: "user" as const, content: [{ type: "text" as const, text }] });
const toolResult = (id: string) => ({
  role: "tool" as const,
  content: [{ type: "tool-result" as const, toolCallId: id, toolName: "exec", output: { type: "text" as const, value: "ok" } }]
});

async function parts(model: ScriptedModel, prompt: LanguageModelV4Prompt) {
  const { stream } = await model.doStream({ prompt });
  const out: LanguageModelV4StreamPart[] = [];
  for await (const part of stream as unknown as AsyncIterable<LanguageModelV4StreamPart>) out.push(part);
  return out;
}

describe("readProgress", () => {
  it("reads the instruction from the envelope and counts tool results since", () => {
    const prompt: LanguageModelV4Prompt = [user(runText("TEST: run a\nTEST: run b")), toolResult("1"), toolResult("2")];
    expect(readProgress(prompt)).toMatchObject({ instruction: "TEST: run a\nTEST: run b", toolResults: 2 });
  });

  it("counts on past a recovery's plain 'continue' message", () => {
    const prompt: LanguageModelV4Prompt = [user(runText("TEST: run a")), toolResult("1"), user("Continue where you left off.")];
    expect(readProgress(prompt)).toMatchObject({ instruction: "TEST: run a", toolResults: 1 });
  });

  it("starts over for a new run in the same session", () => {
    const prompt: LanguageModelV4Prompt = [user(runText("first")), toolResult("1"), user(runText("TEST: reply second"))];
    expect(readProgress(prompt)).toMatchObject({ instruction: "TEST: reply second", toolResults: 0 });
  });
});

describe("ScriptedModel", () => {
  it("plays the next step as a tool call with a per-run call id", async () => {
    const model = new ScriptedModel();
    const first = await parts(model, [user(runText("TEST: run echo 1\nTEST: reply done"))]);
    const call = first.find((part) => part.type === "tool-call");
    expect(call).toMatchObject({ toolName: "bash", input: JSON.stringify({ command: "echo 1", backend: "shell" }) });
    expect(first.at(-1)).toMatchObject({ type: "finish", finishReason: { unified: "tool-calls" } });

    const other = await parts(model, [user(runText("TEST: run echo 1\nTEST: reply other"))]);
    expect(other.find((part) => part.type === "tool-call")).not.toMatchObject({
      toolCallId: (call as { toolCallId: string }).toolCallId
    });
  });

  it("replies once the tool steps are done, deterministically", async () => {
    const prompt: LanguageModelV4Prompt = [user(runText("TEST: run echo 1\nTEST: reply done")), toolResult("x")];
    const [a, b] = [await parts(new ScriptedModel(), prompt), await parts(new ScriptedModel(), prompt)];
    expect(a).toEqual(b);
    expect(a.filter((part) => part.type === "text-delta")).toEqual([{ type: "text-delta", id: "t", delta: "done" }]);
    expect(a.at(-1)).toMatchObject({ finishReason: { unified: "stop" } });
  });

  it("fails the request on a fail directive", async () => {
    await expect(new ScriptedModel().doStream({ prompt: [user(runText("TEST: fail boom"))] })).rejects.toThrow("boom");
  });

  it("honours an abort while sleeping", async () => {
    const controller = new AbortController();
    const pending = new ScriptedModel().doStream({
      prompt: [user(runText("TEST: sleep 5000\nTEST: reply late"))],
      abortSignal: controller.signal
    });
    controller.abort(new Error("cancelled"));
    await expect(pending).rejects.toThrow("cancelled");
  });
});
