/**
 * A LanguageModelV4 that asks a primary model and, when that request fails
 * before it produced anything, asks a fallback model instead.
 *
 * "Fails" means the request threw (an HTTP error, a refused connection) or its
 * stream errored before its first content part; once the primary has streamed
 * content, an error belongs to the turn and Think's recovery handles it. An
 * aborted request is never retried elsewhere.
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult
} from "@ai-sdk/provider";

export type FallbackEvent = { from: string; to: string; error: unknown };

const describe = (model: LanguageModelV4) => `${model.provider}:${model.modelId}`;

/** Read parts until the first content part, so an early error can still fall back. */
async function primeStream(result: LanguageModelV4StreamResult): Promise<LanguageModelV4StreamResult> {
  const reader = result.stream.getReader();
  const buffered: LanguageModelV4StreamPart[] = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (value.type === "error") {
      reader.releaseLock();
      throw value.error;
    }
    buffered.push(value);
    if (value.type !== "stream-start" && value.type !== "response-metadata" && value.type !== "raw") break;
  }
  const stream = new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      for (const part of buffered) controller.enqueue(part);
    },
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    }
  });
  return { ...result, stream };
}

export function withFallback(
  primary: LanguageModelV4,
  fallback: LanguageModelV4,
  onFallback: (event: FallbackEvent) => void = () => {}
): LanguageModelV4 {
  const attempt = async <T>(options: LanguageModelV4CallOptions, run: (model: LanguageModelV4) => Promise<T>) => {
    try {
      return await run(primary);
    } catch (error) {
      if (options.abortSignal?.aborted) throw error;
      onFallback({ from: describe(primary), to: describe(fallback), error });
      return run(fallback);
    }
  };
  return {
    specificationVersion: "v4",
    provider: primary.provider,
    modelId: primary.modelId,
    supportedUrls: primary.supportedUrls,
    doGenerate: (options) => attempt(options, async (model) => model.doGenerate(options)),
    doStream: (options) => attempt(options, async (model) => primeStream(await model.doStream(options)))
  };
}
