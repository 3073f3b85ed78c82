/**
 * A LanguageModelV4 that asks a primary model and, when that request fails
 * before it produced anything, asks a fallback model instead.
 *
 * "Fails" means the request threw (an HTTP error, a refused connection) or its
 * stream errored before its first content part; once the primary has streamed
 * content, an error belongs to the turn and Think's recovery handles it. An
 * aborted request is never retried elsewhere.
 */
import {
  APICallError,
  type LanguageModelV4,
  type LanguageModelV4CallOptions,
  type LanguageModelV4StreamPart,
  type LanguageModelV4StreamResult
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

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * One error naming both failures, so the run's recorded error says what
 * happened. It keeps the fallback's retryability, which decides whether the
 * AI SDK tries the whole chain again.
 */
function bothFailed(primary: LanguageModelV4, primaryError: unknown, fallback: LanguageModelV4, fallbackError: unknown) {
  const message = `${describe(primary)} failed: ${messageOf(primaryError)}; ${describe(fallback)} failed: ${messageOf(fallbackError)}`;
  if (APICallError.isInstance(fallbackError)) {
    return new APICallError({
      message,
      url: fallbackError.url,
      requestBodyValues: fallbackError.requestBodyValues,
      statusCode: fallbackError.statusCode,
      responseHeaders: fallbackError.responseHeaders,
      responseBody: fallbackError.responseBody,
      isRetryable: fallbackError.isRetryable,
      cause: fallbackError
    });
  }
  return new Error(message, { cause: fallbackError });
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
      try {
        return await run(fallback);
      } catch (fallbackError) {
        throw bothFailed(primary, error, fallback, fallbackError);
      }
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
