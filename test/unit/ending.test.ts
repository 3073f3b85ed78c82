/**
 * How a run ended: the classification behind the closing message and the
 * command center's status, the report_result input, and the final text of
 * a run that ended without a result.
 */
import { describe, expect, it } from "vitest";
import { describeEnding, endingError, finalAssistantText, runResultSchema, type EndingFacts } from "../../src/run/ending";

const facts = (overrides: Partial<EndingFacts>): EndingFacts => ({
  status: "completed",
  interrupted: false,
  finalText: "",
  steps: 3,
  maxSteps: 250,
  ...overrides
});

describe("describeEnding", () => {
  it("prefers the structured result of a completed run, then its final text", () => {
    const result = { outcome: "reproduced" as const, summary: "It throws." };
    expect(describeEnding(facts({ result, finalText: "bye" }))).toEqual({ kind: "result", result });
    expect(describeEnding(facts({ finalText: "bye" }))).toEqual({ kind: "finished", text: "bye" });
  });

  it("gives the issue the page the run published, whatever URL the model wrote", () => {
    const published = "https://bot.test/repro/0123456789abcdef0123456789abcdef/";
    const result = { outcome: "reproduced" as const, summary: "s", reproductionUrl: "https://bot.test/repro/acme-widgets-7/" };
    expect(describeEnding(facts({ result, reproductionUrl: published }))).toEqual({ kind: "result", result: { ...result, reproductionUrl: published } });
    expect(describeEnding(facts({ finalText: "bye", reproductionUrl: published }))).toEqual({ kind: "finished", text: "bye", reproductionUrl: published });
  });

  it("calls a completed run budget exhausted when the token budget stopped it, or the cap cut it mid-work", () => {
    expect(describeEnding(facts({ budgetHit: { used: 120, budget: 100 } }))).toEqual({
      kind: "budget",
      limit: { kind: "tokens", used: 120, budget: 100 }
    });
    expect(describeEnding(facts({ steps: 250, lastFinishReason: "tool-calls" }))).toEqual({
      kind: "budget",
      limit: { kind: "steps", steps: 250 }
    });
    // Reaching the cap with a final answer is a finished run.
    expect(describeEnding(facts({ steps: 250, lastFinishReason: "stop", finalText: "done" })).kind).toBe("finished");
  });

  it("tells an exhausted recovery from an error, and a cancel from both", () => {
    expect(describeEnding(facts({ status: "error", error: "boom" }))).toEqual({ kind: "failed", error: "boom" });
    expect(describeEnding(facts({ status: "error", error: "x", interrupted: true }))).toEqual({ kind: "interrupted" });
    expect(describeEnding(facts({ status: "aborted", cancelReason: "stopped by @a" }))).toEqual({ kind: "cancelled", reason: "stopped by @a" });
    expect(describeEnding(facts({ status: "skipped" }))).toEqual({ kind: "cancelled" });
  });

  it("gives the command center an error line for every ending but a success", () => {
    expect(endingError({ kind: "finished", text: "" })).toBeUndefined();
    expect(endingError({ kind: "result", result: { outcome: "no-pr", summary: "s" } })).toBeUndefined();
    expect(endingError({ kind: "failed", error: "boom" })).toBe("boom");
    expect(endingError({ kind: "interrupted" })).toBe("interrupted: recovery exhausted");
    expect(endingError({ kind: "cancelled", reason: "stopped by @a" })).toBe("cancelled: stopped by @a");
    expect(endingError({ kind: "budget", limit: { kind: "steps", steps: 9 } })).toBe("budget exhausted: step cap of 9");
  });

  it("says why a setup step could not run (its backend's answer), and only then", () => {
    const unavailable = "container backend unavailable: the Sandbox Durable Object has no container\nmore";
    expect(endingError({ kind: "setup-failed", failure: { kind: "checkout", command: "gh repo clone acme/widgets", output: unavailable } })).toBe(
      "setup failed: `gh repo clone acme/widgets` could not run: container backend unavailable: the Sandbox Durable Object has no container"
    );
    expect(endingError({ kind: "setup-failed", failure: { kind: "checkout", command: "gh repo clone acme/widgets", exitCode: 1, output: "not found" } })).toBe(
      "setup failed: `gh repo clone acme/widgets` failed (exit 1)"
    );
    const step = { kind: "step" as const, file: ".github/agent-think.yml", index: 1, of: 1, command: "npm ci" };
    expect(endingError({ kind: "setup-failed", failure: { ...step, output: "x".repeat(1_000) } })).toHaveLength("setup failed: step 1 of 1 `npm ci` could not run: ".length + 300);
    expect(endingError({ kind: "setup-failed", failure: { ...step, timedOut: true, output: "slow" } })).toBe("setup failed: step 1 of 1 `npm ci` timed out");
  });
});

describe("report_result input", () => {
  const evidence = "README.md: dequal compares own enumerable properties only";
  it("accepts the skills' shape and refuses an unknown outcome or a bad link", () => {
    expect(runResultSchema.safeParse({ outcome: "needs-info", summary: "Which version?", missing: ["Which version of widgets?"] }).success).toBe(true);
    expect(runResultSchema.safeParse({ outcome: "fixed", summary: "x" }).success).toBe(false);
    expect(runResultSchema.safeParse({ outcome: "reproduced", summary: "x", steps: ["node check.mjs"], evidence, reproductionUrl: "not a url" }).success).toBe(false);
  });

  /** The fields the schema says are missing, by name. */
  const missingFields = (input: object) => (runResultSchema.safeParse(input).error?.issues ?? []).map((issue) => issue.path.join("."));

  it("requires each outcome's evidence: steps and evidence for a reproduction or not, what is missing for a question", () => {
    expect(missingFields({ outcome: "reproduced", summary: "It happens." })).toEqual(["steps", "evidence"]);
    expect(missingFields({ outcome: "not-reproduced", summary: "Intended.", steps: ["npm run repro"] })).toEqual(["evidence"]);
    expect(missingFields({ outcome: "not-reproduced", summary: "Intended.", steps: ["npm run repro"], evidence })).toEqual([]);
    expect(missingFields({ outcome: "needs-info", summary: "Which version?" })).toEqual(["missing"]);
    // An empty list is no evidence either.
    expect(missingFields({ outcome: "needs-info", summary: "Which version?", missing: [] })).toEqual(["missing"]);
    expect(missingFields({ outcome: "reproduced", summary: "It happens.", steps: [], evidence })).toEqual(["steps"]);
  });

  it("requires a pull request's link, its changes and how it was verified", () => {
    expect(missingFields({ outcome: "pr-opened", summary: "Fixed." })).toEqual(["pullRequestUrl", "changes", "verification"]);
    expect(
      missingFields({ outcome: "pr-opened", summary: "Fixed.", pullRequestUrl: "https://github.com/acme/widgets/pull/2", changes: ["src/a.ts: x"], verification: "npm test: 3 passed" })
    ).toEqual([]);
    expect(missingFields({ outcome: "no-pr", summary: "Could not find the cause." })).toEqual([]);
  });
});

describe("finalAssistantText", () => {
  const messages = [
    { id: "u1", role: "user", parts: [{ type: "text", text: "reproduce" }] },
    { id: "a1", role: "assistant", parts: [{ type: "text", text: "first" }, { type: "tool-bash" }, { type: "text", text: "second" }] },
    { id: "a2", role: "assistant", parts: [{ type: "text", text: " latest " }] }
  ] as never;

  it("reads the text parts of the turn's message, or of the last assistant message", () => {
    expect(finalAssistantText(messages, "a1")).toBe("first\nsecond");
    expect(finalAssistantText(messages, undefined)).toBe("latest");
    expect(finalAssistantText([], "a1")).toBe("");
  });
});
