/**
 * How hard the model reasons on each step, and the provider options every
 * step sends: OpenAI's reasoning effort by the run's latest activated skill
 * (REASONING_EFFORT, `<effort>[,<skill>=<effort>...]`), and Anthropic's
 * prompt caching. ThinkAgent.beforeStep returns `stepProviderOptions`; the
 * AI SDK merges a step's options over the turn's, and these are all of them.
 * A bad value is refused with the rest of the model's configuration
 * (config.ts). Pure. docs/model-setup.md, "Reasoning effort and prompt caching".
 */

/** The efforts @ai-sdk/openai names (its `reasoningEffort`); which a model takes varies by model. */
export const REASONING_EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh", "max"] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export const DEFAULT_REASONING_EFFORT = "medium,open-pr=high,address-review=high";

export type ReasoningPolicy = {
  /** Before any skill is activated, and under a skill with no effort of its own. */
  base: ReasoningEffort;
  bySkill: Record<string, ReasoningEffort>;
};

export type ReasoningPolicyResult = { ok: true; policy: ReasoningPolicy } | { ok: false; error: string; fix: string };

/** The tool Think gives the model to load a skill, with `{ name }`. */
export const ACTIVATE_SKILL_TOOL = "activate_skill";

const SKILL_NAME = /^[a-z0-9][a-z0-9-]*$/;
const isEffort = (value: string): value is ReasoningEffort => (REASONING_EFFORTS as readonly string[]).includes(value);
const FIX = `set REASONING_EFFORT to an effort (${REASONING_EFFORTS.join(", ")}), optionally followed by <skill>=<effort> entries, e.g. "${DEFAULT_REASONING_EFFORT}", or leave it empty for that default`;

/** REASONING_EFFORT as set; empty is the default. An error names the variable and the entry it could not read. */
export function parseReasoningEffort(value: string | undefined): ReasoningPolicyResult {
  const source = value?.trim() ? value.trim() : DEFAULT_REASONING_EFFORT;
  const refuse = (problem: string): ReasoningPolicyResult => ({ ok: false, error: `REASONING_EFFORT ${problem}: ${FIX}`, fix: FIX });
  let base: ReasoningEffort | undefined;
  const bySkill: Record<string, ReasoningEffort> = {};
  for (const raw of source.split(",")) {
    const entry = raw.trim();
    const [left, right, ...extra] = entry.split("=").map((part) => part.trim());
    if (right === undefined) {
      if (!isEffort(entry)) return refuse(`has ${quoted(entry)}, which is not an effort`);
      if (base !== undefined) return refuse(`names a default effort twice (${base} and ${entry})`);
      base = entry;
      continue;
    }
    if (extra.length > 0 || !SKILL_NAME.test(left!)) return refuse(`has ${quoted(entry)}, which is not <skill>=<effort>`);
    if (!isEffort(right)) return refuse(`gives ${left} ${quoted(right)}, which is not an effort`);
    if (Object.hasOwn(bySkill, left!)) return refuse(`names ${left} twice`);
    bySkill[left!] = right;
  }
  return { ok: true, policy: { base: base ?? "medium", bySkill } };
}

/** An entry as the error may show it: a short one quoted, a long one only measured (a misplaced secret never lands in a log). */
function quoted(entry: string): string {
  if (entry === "") return "an empty entry";
  return entry.length <= 40 ? `"${entry}"` : `an entry of ${entry.length} characters`;
}

/** The parts of a step's context this reads: Think's PrepareStepContext fits. */
export type StepTrail = {
  messages: ReadonlyArray<{ role: string; content: unknown }>;
  steps: ReadonlyArray<{ toolCalls: ReadonlyArray<{ toolName: string; input: unknown }> }>;
};

/**
 * The skill of the run's latest `activate_skill` call: in the messages
 * since the last user message (the run's envelope, so an earlier run on
 * the same issue does not count), then this turn's steps, which are the
 * newest. Undefined before any.
 */
export function activeSkill(trail: StepTrail): string | undefined {
  let skill: string | undefined;
  const lastUser = trail.messages.findLastIndex((message) => message.role === "user");
  for (const message of trail.messages.slice(lastUser + 1)) {
    if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (const part of message.content as unknown[]) {
      const call = part as { type?: unknown; toolName?: unknown; input?: unknown };
      if (call.type === "tool-call" && call.toolName === ACTIVATE_SKILL_TOOL) skill = skillName(call.input) ?? skill;
    }
  }
  for (const step of trail.steps) {
    for (const call of step.toolCalls) if (call.toolName === ACTIVATE_SKILL_TOOL) skill = skillName(call.input) ?? skill;
  }
  return skill;
}

function skillName(input: unknown): string | undefined {
  const name = (input as { name?: unknown } | null)?.name;
  return typeof name === "string" && name.trim() ? name.trim() : undefined;
}

export function effortFor(policy: ReasoningPolicy, skill: string | undefined): ReasoningEffort {
  return (skill !== undefined && Object.hasOwn(policy.bySkill, skill) ? policy.bySkill[skill] : undefined) ?? policy.base;
}

/** What every model request of a step carries: OpenAI unstored at the step's effort, Anthropic caching the prompt's prefix. */
export function providerOptionsAt(effort: ReasoningEffort) {
  return {
    openai: { store: false, reasoningEffort: effort },
    anthropic: { cacheControl: { type: "ephemeral" } }
  } as const;
}

/**
 * The step's provider options, for ThinkAgent.beforeStep. A bad
 * REASONING_EFFORT never gets here in a run (dispatch refuses it, and the
 * model is not built with it), so meeting one throws rather than guess.
 */
export function stepProviderOptions(env: { REASONING_EFFORT?: string }, trail: StepTrail) {
  const parsed = parseReasoningEffort(env.REASONING_EFFORT);
  if (!parsed.ok) throw new Error(parsed.error);
  return providerOptionsAt(effortFor(parsed.policy, activeSkill(trail)));
}
