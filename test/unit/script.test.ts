import { describe, expect, it } from "vitest";
import { planScript } from "../../src/model/script";

describe("planScript", () => {
  it("follows directives in order and ends with the reply", () => {
    const instruction = [
      "intro",
      "TEST: run echo hi",
      "TEST: container npm test",
      "TEST: write /w/a.txt line1\\nline2",
      "TEST: edit /w/a.txt line1 => first\\nline",
      "TEST: read /w/a.txt",
      "TEST: reply bye",
      "TEST: run never"
    ].join("\n");
    expect(planScript(instruction)).toEqual([
      { kind: "tool", toolName: "bash", input: { command: "echo hi" }, say: "Running `echo hi`." },
      {
        kind: "tool",
        toolName: "bash",
        input: { command: "npm test", backend: "container" },
        say: "Running `npm test` in the container."
      },
      { kind: "tool", toolName: "write", input: { path: "/w/a.txt", content: "line1\nline2" }, say: "Writing /w/a.txt." },
      {
        kind: "tool",
        toolName: "edit",
        input: { path: "/w/a.txt", edits: [{ oldText: "line1", newText: "first\nline" }] },
        say: "Editing /w/a.txt."
      },
      { kind: "tool", toolName: "read", input: { path: "/w/a.txt" }, say: "Reading /w/a.txt." },
      { kind: "reply", text: "bye" }
    ]);
  });

  it("attaches sleeps to the next step and caps them", () => {
    const [first, second] = planScript("TEST: sleep 250\nTEST: sleep 50\nTEST: run true\nTEST: sleep 999999999");
    expect(first).toMatchObject({ toolName: "bash", delayMs: 300 });
    expect(second).toMatchObject({ kind: "reply", delayMs: 60_000 });
  });

  it("repeats a tool for `tools n` and stops at a failure", () => {
    const plan = planScript("TEST: tools 3\nTEST: fail provider exploded\nTEST: reply unreachable");
    expect(plan.map((step) => step.kind)).toEqual(["tool", "tool", "tool", "fail"]);
    expect(plan.at(-1)).toEqual({ kind: "fail", message: "provider exploded" });
  });

  it("adds a closing reply when directives end without one", () => {
    expect(planScript("TEST: run true").at(-1)).toEqual({ kind: "reply", text: "Scripted run finished after 1 tool call(s)." });
  });

  it("answers an unknown directive instead of guessing", () => {
    expect(planScript("TEST: dance")).toEqual([{ kind: "reply", text: 'Unknown TEST directive "dance".' }]);
  });

  it("plans a short demo run without directives", () => {
    const plan = planScript("reproduce this issue");
    expect(plan.map((step) => (step.kind === "tool" ? step.toolName : step.kind))).toEqual([
      "ls",
      "write",
      "edit",
      "read",
      "bash",
      "report_result",
      "reply"
    ]);
  });

  it("records a result with the outcome and summary given", () => {
    expect(planScript("TEST: result reproduced The button throws.")[0]).toMatchObject({
      kind: "tool",
      toolName: "report_result",
      input: { outcome: "reproduced", summary: "The button throws." }
    });
  });
});

describe("escapes", () => {
  it("turns \\n and \\xNN into characters the instruction does not spell", () => {
    const plan = planScript("TEST: result reproduced gh\\x73_token\\nsecond line\nTEST: reply a\\x2fb\nTEST: fail x");
    expect(plan[0]).toMatchObject({ input: { summary: "ghs_token\nsecond line" } });
    expect(plan[1]).toEqual({ kind: "reply", text: "a/b" });
    expect(planScript("TEST: fail gh\\x70_x")).toEqual([{ kind: "fail", message: "ghp_x" }]);
  });
});

describe("fail-once", () => {
  it("fails a first run and lets a continued run through", () => {
    expect(planScript("TEST: fail-once boom\nTEST: reply recovered").map((step) => step.kind)).toEqual(["fail"]);
    expect(planScript("TEST: fail-once boom\nTEST: reply recovered", { continuation: true })).toEqual([
      { kind: "reply", text: "recovered" }
    ]);
  });
});
