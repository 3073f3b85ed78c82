/** REASONING_EFFORT: its syntax and refusals, which skill a step runs under, and the provider options each step sends. */
import { describe, expect, it } from "vitest";
import { resolveModelConfig } from "../../src/model/config";
import {
  activeSkill,
  DEFAULT_REASONING_EFFORT,
  effortFor,
  parseReasoningEffort,
  stepProviderOptions,
  type StepTrail
} from "../../src/model/reasoning-effort";

const policy = (value: string | undefined) => {
  const parsed = parseReasoningEffort(value);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.policy;
};
const refusal = (value: string) => {
  const parsed = parseReasoningEffort(value);
  if (parsed.ok) throw new Error(`expected a refusal, got ${JSON.stringify(parsed.policy)}`);
  return parsed;
};

const user = (text: string) => ({ role: "user", content: [{ type: "text", text }] });
const activation = (name: unknown, toolCallId = "call") => ({
  role: "assistant",
  content: [
    { type: "text", text: "Activating." },
    { type: "tool-call", toolCallId, toolName: "activate_skill", input: { name } }
  ]
});
const toolResult = { role: "tool", content: [{ type: "tool-result", toolCallId: "call", toolName: "activate_skill", output: { type: "text", value: "ok" } }] };
const trail = (messages: StepTrail["messages"], steps: StepTrail["steps"] = []): StepTrail => ({ messages, steps });

describe("parseReasoningEffort", () => {
  it("defaults, when empty, to medium with high for open-pr and address-review", () => {
    expect(DEFAULT_REASONING_EFFORT).toBe("medium,open-pr=high,address-review=high");
    for (const value of [undefined, "", "  "]) {
      expect(policy(value)).toEqual({ base: "medium", bySkill: { "open-pr": "high", "address-review": "high" } });
    }
  });

  it("takes a set value as the whole policy: a bare effort is the default, entries the only overrides", () => {
    expect(policy("high")).toEqual({ base: "high", bySkill: {} });
    expect(policy(" low , open-pr = xhigh ")).toEqual({ base: "low", bySkill: { "open-pr": "xhigh" } });
    // No bare effort: medium, as the provider's own default.
    expect(policy("address-review=max")).toEqual({ base: "medium", bySkill: { "address-review": "max" } });
    for (const effort of ["none", "minimal", "low", "medium", "high", "xhigh", "max"]) expect(policy(effort).base).toBe(effort);
  });

  it.each([
    ["an unknown effort", "extreme", /^REASONING_EFFORT has "extreme", which is not an effort: set REASONING_EFFORT to /],
    ["an unknown skill effort", "medium,open-pr=hard", /^REASONING_EFFORT gives open-pr "hard", which is not an effort/],
    ["a case it does not fold", "HIGH", /"HIGH", which is not an effort/],
    ["two defaults", "low,high", /names a default effort twice \(low and high\)/],
    ["a skill twice", "open-pr=high,open-pr=low", /names open-pr twice/],
    ["an empty entry", "medium,,open-pr=high", /has an empty entry/],
    ["an entry that is not skill=effort", "open pr=high", /has "open pr=high", which is not <skill>=<effort>/],
    ["two equals signs", "open-pr=high=low", /which is not <skill>=<effort>/]
  ])("refuses %s, naming the variable and its syntax", (_name, value, message) => {
    const refused = refusal(value);
    expect(refused.error).toMatch(message);
    expect(refused.fix).toMatch(/^set REASONING_EFFORT to an effort \(none, minimal, low, medium, high, xhigh, max\).*"medium,open-pr=high,address-review=high"/);
  });

  it("never repeats a long entry, which may be a secret pasted in the wrong place", () => {
    const refused = refusal(`sk-${"x".repeat(60)}`);
    expect(refused.error).toContain("an entry of 63 characters");
    expect(refused.error).not.toContain("xxxx");
  });

  it("is refused with the model's configuration, in every mode", () => {
    expect(resolveModelConfig({ MODEL_PROVIDER: "scripted", REASONING_EFFORT: "loud" })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^REASONING_EFFORT has "loud"/),
      fix: expect.stringMatching(/^set REASONING_EFFORT/)
    });
    expect(resolveModelConfig({ MODEL_PROVIDER: "scripted", REASONING_EFFORT: "low,open-pr=high" })).toEqual({ ok: true, config: { kind: "scripted" } });
  });
});

describe("activeSkill", () => {
  it("is none before any activation", () => {
    expect(activeSkill(trail([user("reproduce this")]))).toBeUndefined();
  });

  it("is the latest activate_skill call since the run's envelope", () => {
    expect(activeSkill(trail([user("fix it"), activation("reproduce"), toolResult]))).toBe("reproduce");
    expect(activeSkill(trail([user("fix it"), activation("reproduce"), toolResult, activation("open-pr")]))).toBe("open-pr");
  });

  it("leaves out an earlier run's activations, before the latest user message", () => {
    expect(activeSkill(trail([user("fix it"), activation("open-pr"), toolResult, user("now reproduce the other one")]))).toBeUndefined();
  });

  it("reads this turn's steps too, which are the newest", () => {
    const steps = [{ toolCalls: [{ toolName: "activate_skill", input: { name: "address-review" } }] }];
    expect(activeSkill(trail([user("fix it"), activation("reproduce")], steps))).toBe("address-review");
    expect(activeSkill(trail([user("fix it")], [{ toolCalls: [{ toolName: "bash", input: { command: "ls" } }] }]))).toBeUndefined();
  });

  it("ignores a call with no usable name", () => {
    expect(activeSkill(trail([user("fix it"), activation("open-pr"), activation(42), activation("  ")]))).toBe("open-pr");
  });
});

describe("stepProviderOptions", () => {
  it("sends medium before a skill, high under open-pr or address-review, and the base under any other", () => {
    const fixed = policy(undefined);
    expect(effortFor(fixed, undefined)).toBe("medium");
    expect(effortFor(fixed, "open-pr")).toBe("high");
    expect(effortFor(fixed, "address-review")).toBe("high");
    expect(effortFor(fixed, "reproduce")).toBe("medium");
    expect(effortFor(fixed, "constructor")).toBe("medium");
  });

  it("is the whole object every step sends: OpenAI unstored at the step's effort, Anthropic caching the prompt", () => {
    expect(stepProviderOptions({}, trail([user("fix it")]))).toEqual({
      openai: { store: false, reasoningEffort: "medium" },
      anthropic: { cacheControl: { type: "ephemeral" } }
    });
    expect(stepProviderOptions({ REASONING_EFFORT: "" }, trail([user("fix it"), activation("open-pr")])).openai.reasoningEffort).toBe("high");
    expect(stepProviderOptions({ REASONING_EFFORT: "low" }, trail([user("fix it"), activation("open-pr")])).openai.reasoningEffort).toBe("low");
  });

  it("throws on a bad value rather than guess an effort", () => {
    expect(() => stepProviderOptions({ REASONING_EFFORT: "loud" }, trail([]))).toThrow(/^REASONING_EFFORT has "loud"/);
  });
});
