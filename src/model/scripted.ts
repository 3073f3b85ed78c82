/**
 * The scripted model: a LanguageModelV4 with no network that plays the
 * script `planScript` (script.ts) derives from the run's instruction.
 * Stateless: the step to play is the number of tool results since the last
 * user message, so a turn recovered after an eviction carries on where the
 * transcript stands. Used by tests and by local development without model
 * credentials; a reporter-tier run with no `TEST:` line in its instruction
 * plays the block's `reporterRequest` (docs/testing.md, "The scripted model").
 */
import type {
  LanguageModelV4,
  LanguageModelV4CallOptions,
  LanguageModelV4GenerateResult,
  LanguageModelV4Prompt,
  LanguageModelV4StreamPart,
  LanguageModelV4StreamResult,
  LanguageModelV4Usage
} from "@ai-sdk/provider";
import { parseEnvelope } from "../run/envelope";
import { WORKSPACE_TAG } from "../run/envelope";
import { planScript, SCRIPTED_CALL_ID_PREFIX, type ScriptStep } from "./script";

export class ScriptedModelError extends Error {
  override readonly name = "ScriptedModelError";
}

/**
 * The instruction of the latest run and how many tool results it has had.
 * User messages without an envelope (Think's recovery asks the model to
 * "continue") do not start a run, so counting goes on past them.
 */
export function readProgress(prompt: LanguageModelV4Prompt): {
  instruction: string;
  toolResults: number;
  turnKey: string;
  continuation?: boolean;
} {
  let toolResults = 0;
  let latestUserText: string | undefined;
  for (let i = prompt.length - 1; i >= 0; i--) {
    const message = prompt[i]!;
    if (message.role === "tool" || message.role === "assistant") {
      toolResults += (message.content as Array<{ type: string }>).filter((part) => part.type === "tool-result").length;
    } else if (message.role === "user") {
      const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
      latestUserText ??= text;
      const envelope = parseEnvelope(text.trimStart());
      if (envelope) {
        return {
          instruction: DIRECTIVE_LINE.test(envelope.instruction) ? envelope.instruction : (reporterWords(text) ?? envelope.instruction),
          toolResults,
          turnKey: fnv1a(text),
          continuation: envelope.continuationOf !== undefined
        };
      }
    }
  }
  // No envelope anywhere: a bare prompt, played from its latest user text.
  return { instruction: latestUserText ?? "", toolResults: 0, turnKey: fnv1a(latestUserText ?? "") };
}

const DIRECTIVE_LINE = /^\s*TEST:/m;
const BLOCK = new RegExp(`<${WORKSPACE_TAG}>\\n([\\s\\S]*?)\\n</${WORKSPACE_TAG}>`);

/** The reporter's own words from the block that follows the envelope, when they hold a directive. */
function reporterWords(text: string): string | undefined {
  const json = BLOCK.exec(text)?.[1];
  if (json === undefined) return undefined;
  try {
    const words = (JSON.parse(json) as { reporterRequest?: { text?: unknown } }).reporterRequest?.text;
    return typeof words === "string" && DIRECTIVE_LINE.test(words) ? words : undefined;
  } catch {
    return undefined;
  }
}

/** A short stable hash, so tool call ids differ between turns of one session. */
function fnv1a(text: string): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(36);
}

const estimateTokens = (text: string) => Math.ceil(text.length / 4);

function usageFor(prompt: LanguageModelV4Prompt, output: string): LanguageModelV4Usage {
  const input = estimateTokens(JSON.stringify(prompt));
  const out = estimateTokens(output);
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: out, text: out, reasoning: 0 }
  };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), reject(signal.reason)), { once: true });
  });
}

/** The scripted model's provider name: a step from it is a demonstration, and costs nothing. */
export const SCRIPTED_PROVIDER = "agent-think.scripted";

export class ScriptedModel implements LanguageModelV4 {
  readonly specificationVersion = "v4";
  readonly provider = SCRIPTED_PROVIDER;
  readonly modelId = "scripted";
  readonly supportedUrls = {};
  #calls = 0;

  /** How many model requests this instance has served (for tests and benches). */
  get calls(): number {
    return this.#calls;
  }

  #next(options: LanguageModelV4CallOptions): { step: ScriptStep; callId: string } {
    this.#calls++;
    const { instruction, toolResults, turnKey, continuation } = readProgress(options.prompt);
    const plan = planScript(instruction, { continuation });
    const step = plan[toolResults] ?? { kind: "reply", text: plan.length === 0 ? "Nothing to do." : "Done." };
    return { step, callId: `${SCRIPTED_CALL_ID_PREFIX}${turnKey}-${toolResults + 1}` };
  }

  async doStream(options: LanguageModelV4CallOptions): Promise<LanguageModelV4StreamResult> {
    const { step, callId } = this.#next(options);
    if (step.delayMs) await sleep(step.delayMs, options.abortSignal);
    if (step.kind === "fail") throw new ScriptedModelError(step.message);
    const parts: LanguageModelV4StreamPart[] = [{ type: "stream-start", warnings: [] }];
    const text = step.kind === "reply" ? step.text : step.say;
    parts.push(
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: text },
      { type: "text-end", id: "t" }
    );
    if (step.kind === "tool") {
      parts.push({ type: "tool-call", toolCallId: callId, toolName: step.toolName, input: JSON.stringify(step.input) });
    }
    parts.push({
      type: "finish",
      usage: usageFor(options.prompt, text),
      finishReason: { unified: step.kind === "tool" ? "tool-calls" : "stop", raw: undefined }
    });
    return {
      stream: new ReadableStream({
        start(controller) {
          for (const part of parts) controller.enqueue(part);
          controller.close();
        }
      })
    };
  }

  async doGenerate(options: LanguageModelV4CallOptions): Promise<LanguageModelV4GenerateResult> {
    const { step, callId } = this.#next(options);
    if (step.delayMs) await sleep(step.delayMs, options.abortSignal);
    if (step.kind === "fail") throw new ScriptedModelError(step.message);
    const text = step.kind === "reply" ? step.text : step.say;
    return {
      content: [
        { type: "text", text },
        ...(step.kind === "tool"
          ? [{ type: "tool-call" as const, toolCallId: callId, toolName: step.toolName, input: JSON.stringify(step.input) }]
          : [])
      ],
      finishReason: { unified: step.kind === "tool" ? "tool-calls" : "stop", raw: undefined },
      usage: usageFor(options.prompt, text),
      warnings: []
    };
  }
}
