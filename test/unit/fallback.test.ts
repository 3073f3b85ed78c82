import { APICallError, type LanguageModelV4StreamPart } from "@ai-sdk/provider";
import { MockLanguageModelV4 } from "ai/test";
import { describe, expect, it } from "vitest";
import { withFallback, type FallbackEvent } from "../../src/model/fallback";

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 }
};

function streamOf(parts: LanguageModelV4StreamPart[]) {
  return {
    stream: new ReadableStream<LanguageModelV4StreamPart>({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      }
    })
  };
}

const textParts = (text: string): LanguageModelV4StreamPart[] => [
  { type: "stream-start", warnings: [] },
  { type: "text-start", id: "1" },
  { type: "text-delta", id: "1", delta: text },
  { type: "text-end", id: "1" },
  { type: "finish", usage, finishReason: { unified: "stop", raw: "stop" } }
];

async function collect(result: { stream: ReadableStream<LanguageModelV4StreamPart> }) {
  const parts: LanguageModelV4StreamPart[] = [];
  for await (const part of result.stream as unknown as AsyncIterable<LanguageModelV4StreamPart>) parts.push(part);
  return parts.filter((part) => part.type === "text-delta").map((part) => (part as { delta: string }).delta).join("");
}

const callOptions = { prompt: [{ role: "user" as const, content: [{ type: "text" as const, text: "hi" }] }] };

function apiError(status: number, message: string) {
  return new APICallError({ message, url: "https://x.test", requestBodyValues: {}, statusCode: status, isRetryable: status >= 500 });
}

describe("withFallback", () => {
  it("uses the primary when it answers", async () => {
    const primary = new MockLanguageModelV4({ doStream: streamOf(textParts("primary")) });
    const fallback = new MockLanguageModelV4({ doStream: streamOf(textParts("fallback")) });
    expect(await collect(await withFallback(primary, fallback).doStream(callOptions))).toBe("primary");
    expect(fallback.doStreamCalls).toHaveLength(0);
  });

  it("falls back when the primary request throws, and reports it", async () => {
    const events: FallbackEvent[] = [];
    const primary = new MockLanguageModelV4({
      doStream: async () => {
        throw apiError(500, "primary down");
      }
    });
    const fallback = new MockLanguageModelV4({ modelId: "backup", doStream: streamOf(textParts("fallback")) });
    const model = withFallback(primary, fallback, (event) => events.push(event));
    expect(await collect(await model.doStream(callOptions))).toBe("fallback");
    expect(events).toMatchObject([{ from: "mock-provider:mock-model-id", to: "mock-provider:backup" }]);
  });

  it("falls back when the primary stream errors before any content", async () => {
    const primary = new MockLanguageModelV4({
      doStream: streamOf([{ type: "stream-start", warnings: [] }, { type: "error", error: new Error("overloaded") }])
    });
    const fallback = new MockLanguageModelV4({ doStream: streamOf(textParts("fallback")) });
    expect(await collect(await withFallback(primary, fallback).doStream(callOptions))).toBe("fallback");
  });

  it("keeps an error that arrives after content with the primary", async () => {
    const primary = new MockLanguageModelV4({
      doStream: streamOf([
        { type: "stream-start", warnings: [] },
        { type: "text-start", id: "1" },
        { type: "text-delta", id: "1", delta: "partial" },
        { type: "error", error: new Error("cut off") }
      ])
    });
    const fallback = new MockLanguageModelV4({ doStream: streamOf(textParts("fallback")) });
    const result = await withFallback(primary, fallback).doStream(callOptions);
    const parts: LanguageModelV4StreamPart[] = [];
    for await (const part of result.stream as unknown as AsyncIterable<LanguageModelV4StreamPart>) parts.push(part);
    expect(parts.map((part) => part.type)).toEqual(["stream-start", "text-start", "text-delta", "error"]);
    expect(fallback.doStreamCalls).toHaveLength(0);
  });

  it("does not fall back from an aborted request", async () => {
    const controller = new AbortController();
    controller.abort();
    const primary = new MockLanguageModelV4({
      doStream: async () => {
        throw new Error("aborted");
      }
    });
    const fallback = new MockLanguageModelV4({ doStream: streamOf(textParts("fallback")) });
    await expect(withFallback(primary, fallback).doStream({ ...callOptions, abortSignal: controller.signal })).rejects.toThrow("aborted");
    expect(fallback.doStreamCalls).toHaveLength(0);
  });

  it("names both failures and keeps the fallback's retryability", async () => {
    const primary = new MockLanguageModelV4({
      doGenerate: async () => {
        throw apiError(500, "primary down");
      }
    });
    const fallback = new MockLanguageModelV4({
      modelId: "backup",
      doGenerate: async () => {
        throw apiError(401, "bad key");
      }
    });
    const error = await Promise.resolve(withFallback(primary, fallback).doGenerate(callOptions)).catch((caught: unknown) => caught);
    expect(APICallError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      message: "mock-provider:mock-model-id failed: primary down; mock-provider:backup failed: bad key",
      statusCode: 401,
      isRetryable: false
    });
  });
});
