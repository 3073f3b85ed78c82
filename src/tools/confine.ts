/**
 * Tool results with no token in them. Every tool of a turn (ours, Think's
 * file and skill tools, anything merged in) is wrapped so its result, and
 * the message of an error it throws, pass through `redact` before the AI
 * SDK sees them: the model, the transcript and the sockets' stream frames
 * are all fed from that one value. A `gh auth token` in the container, a
 * `cat` of a file holding a token, a `read` of it: each comes back as
 * `[redacted]`. ThinkAgent returns the wrapped set from `beforeTurn`, which
 * Think merges over its own. Pure.
 */
import type { Tool, ToolSet } from "ai";

export type Redact = <T>(value: T) => T;

export function confineTools(tools: ToolSet, redact: Redact): ToolSet {
  const confined: ToolSet = {};
  for (const [name, tool] of Object.entries(tools)) confined[name] = confineTool(tool, redact);
  return confined;
}

type Execute = (input: unknown, options: unknown) => unknown;

function confineTool(tool: Tool, redact: Redact): Tool {
  const execute = tool.execute as Execute | undefined;
  if (typeof execute !== "function") return tool;
  // A generator stays a generator: Think streams its preliminary results only then.
  if (execute.constructor?.name === "AsyncGeneratorFunction") {
    return {
      ...tool,
      execute: async function* (input: unknown, options: unknown) {
        yield* redactStream(execute(input, options) as AsyncIterable<unknown>, redact);
      } as unknown as Tool["execute"]
    };
  }
  const wrapped = (input: unknown, options: unknown): unknown => {
    let result: unknown;
    try {
      result = execute(input, options);
    } catch (error) {
      throw redactError(error, redact);
    }
    if (isAsyncIterable(result)) return redactStream(result, redact);
    return Promise.resolve(result).then(
      (value) => (isAsyncIterable(value) ? redactStream(value, redact) : redact(value)),
      (error: unknown) => {
        throw redactError(error, redact);
      }
    );
  };
  return { ...tool, execute: wrapped as Tool["execute"] };
}

async function* redactStream(source: AsyncIterable<unknown>, redact: Redact): AsyncGenerator<unknown> {
  try {
    for await (const part of source) yield redact(part);
  } catch (error) {
    throw redactError(error, redact);
  }
}

/** An error whose message holds a secret becomes a plain Error with the redacted message (its stack and fields stay behind). */
function redactError(error: unknown, redact: Redact): unknown {
  const message = error instanceof Error ? error.message : typeof error === "string" ? error : undefined;
  if (message === undefined) return error;
  const clean = redact(message);
  if (clean === message) return error;
  const replacement = new Error(clean);
  if (error instanceof Error) replacement.name = error.name;
  return replacement;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return value !== null && typeof value === "object" && Symbol.asyncIterator in value;
}
