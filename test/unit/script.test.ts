import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_BLOCKED_HOST, DEMO_PAGE_DIR, DEMO_REPRO_DIR, DEMO_SUMMARY_PREFIX, planScript } from "../../src/model/script";

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
      // `run` names the shell: bash's own default is the container where there is one.
      { kind: "tool", toolName: "bash", input: { command: "echo hi", backend: "shell" }, say: "Running `echo hi`." },
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

  it("fills a one-line result with the fields its outcome requires, each saying it is scripted", () => {
    const [reproduced] = planScript("TEST: result reproduced It happens.");
    expect(reproduced).toMatchObject({ toolName: "report_result", input: { outcome: "reproduced", summary: "It happens.", evidence: expect.stringMatching(/^scripted: /) } });
    const [question] = planScript("TEST: result needs-info Which version?");
    expect(question).toMatchObject({ input: { outcome: "needs-info", missing: [expect.stringMatching(/^scripted: /)] } });
    const [noPr] = planScript("TEST: result no-pr Nothing changed.");
    expect(noPr).toMatchObject({ input: { outcome: "no-pr", summary: "Nothing changed." } });
    expect(Object.keys((noPr as { input: object }).input)).toEqual(["outcome", "summary"]);
  });

  it("adds a closing reply when directives end without one", () => {
    expect(planScript("TEST: run true").at(-1)).toEqual({ kind: "reply", text: "Scripted run finished after 1 tool call(s)." });
  });

  it("answers an unknown directive instead of guessing", () => {
    expect(planScript("TEST: dance")).toEqual([{ kind: "reply", text: 'Unknown TEST directive "dance".' }]);
  });

  const toolsOf = (plan: ReturnType<typeof planScript>) => plan.map((step) => (step.kind === "tool" ? step.toolName : step.kind));
  const resultOf = (plan: ReturnType<typeof planScript>) =>
    (plan.find((step) => step.kind === "tool" && step.toolName === "report_result") as unknown as { input: { outcome: string; summary: string; steps?: string[] } }).input;

  it("ticks a plan with update_plan as the demonstration goes, its last one with every step but the result done", () => {
    const updates = planScript("reproduce this issue").flatMap((step) =>
      step.kind === "tool" && step.toolName === "update_plan" ? [(step.input as { steps: Array<{ status: string }> }).steps.map((s) => s.status)] : []
    );
    expect(updates).toEqual([
      ["in_progress", "pending", "pending", "pending"],
      ["done", "in_progress", "pending", "pending"],
      ["done", "done", "in_progress", "pending"],
      ["done", "done", "done", "in_progress"]
    ]);
  });

  it("plays TEST: plan as update_plan, with an object or a bare array of steps", () => {
    const steps = [{ text: "Reproduce", status: "in_progress" }];
    expect(planScript(`TEST: plan ${JSON.stringify({ steps })}`)[0]).toMatchObject({ kind: "tool", toolName: "update_plan", input: { steps } });
    expect(planScript(`TEST: plan ${JSON.stringify(steps)}`)[0]).toMatchObject({ kind: "tool", toolName: "update_plan", input: { steps } });
    expect(planScript("TEST: plan {nope")[0]).toMatchObject({ kind: "reply" });
  });

  it("plays a whole reproduction without directives: skill, files, a shell check, a refused request, a page, reproduced", () => {
    // The plan's updates are their own test: here, the work.
    const plan = planScript("reproduce this issue").filter((step) => !(step.kind === "tool" && step.toolName === "update_plan"));
    expect(toolsOf(plan)).toEqual([
      "activate_skill",
      "ls",
      "bash",
      "write",
      "write",
      "bash",
      "bash",
      "write",
      "publish_reproduction",
      "report_result",
      "reply"
    ]);
    expect(plan[0]).toMatchObject({ input: { name: "reproduce" } });
    // Every file it writes exists first (the bash step touches them), under the published directory's parent.
    const setup = (plan[2] as unknown as { input: { command: string } }).input.command;
    const written = plan.flatMap((step) => (step.kind === "tool" && step.toolName === "write" ? [(step.input as { path: string }).path] : []));
    expect(written).toEqual([`${DEMO_REPRO_DIR}/bug.js`, `${DEMO_REPRO_DIR}/check.sh`, `${DEMO_PAGE_DIR}/index.html`]);
    for (const path of written) expect(setup).toContain(path);
    // The gateway's refusal, shown without any network: a host on no allowlist.
    expect(plan[6]).toMatchObject({ toolName: "bash", input: { command: `curl -s https://${DEMO_BLOCKED_HOST}/` } });
    expect(plan[8]).toMatchObject({ input: { directory: DEMO_PAGE_DIR } });
    // No backend named: the default (shell), never the container.
    expect(plan.filter((step) => step.kind === "tool" && step.toolName === "bash").map((step) => (step as { input: object }).input)).not.toContainEqual(
      expect.objectContaining({ backend: "container" })
    );
    const result = resultOf(plan);
    expect(result.outcome).toBe("reproduced");
    expect(result.summary.startsWith(`${DEMO_SUMMARY_PREFIX} no model ran`)).toBe(true);
    expect(result.steps!.length).toBeGreaterThan(0);
    expect(result.summary).toContain(`Its request to ${DEMO_BLOCKED_HOST}, a host outside the sandbox's network allowlist, was refused`);
    expect(plan.at(-1)).toMatchObject({ kind: "reply", text: expect.stringContaining("scripted demonstration") });
  });

  it("writes a check that keeps every check's rule: exit 1 while actual differs from expected, 0 once they match", () => {
    const written = (name: string) =>
      (planScript("reproduce this issue").find((step) => step.kind === "tool" && step.toolName === "write" && (step.input as { path: string }).path.endsWith(name)) as unknown as {
        input: { content: string };
      }).input.content;
    // The files as the demonstration writes them, in a directory of this test's own.
    const dir = mkdtempSync(join(tmpdir(), "demo-check-"));
    const check = written("check.sh").replaceAll(`${DEMO_REPRO_DIR}/`, `${dir}/`);
    writeFileSync(join(dir, "check.sh"), check);
    const run = (bug: string) => {
      writeFileSync(join(dir, "bug.js"), bug);
      try {
        return { code: 0, out: execFileSync("sh", [join(dir, "check.sh")], { encoding: "utf8" }) };
      } catch (error) {
        const failed = error as { status: number; stdout: string };
        return { code: failed.status, out: failed.stdout };
      }
    };
    expect(run(written("bug.js"))).toEqual({ code: 1, out: "pageCount(101, 10): expected 11, actual 10\nreproduced: the last, partial page is missing\n" });
    expect(run(written("bug.js").replace("Math.floor(total / perPage)", "Math.floor((total + perPage - 1) / perPage)"))).toEqual({
      code: 0,
      out: "pageCount(101, 10): expected 11, actual 11\nnot reproduced\n"
    });
  });

  it("writes a page that holds index.html and says it is a scripted demonstration", () => {
    const page = planScript("reproduce this issue").find(
      (step) => step.kind === "tool" && step.toolName === "write" && (step.input as { path: string }).path.endsWith("index.html")
    ) as unknown as { input: { content: string } };
    expect(page.input.content).toMatch(/^<!doctype html>/);
    expect(page.input.content).toContain("Scripted demonstration:");
  });

  it("plays the reproduction for any instruction that does not ask for a change", () => {
    expect(resultOf(planScript("look into this please")).outcome).toBe("reproduced");
    expect(resultOf(planScript("reproduce and fix this")).outcome).toBe("reproduced");
  });

  it("opens nothing for an instruction that asks for a pull request, a fix or review changes", () => {
    for (const instruction of ["open a PR fixing this", "please fix this", "open a pull request", "address this review"]) {
      const plan = planScript(instruction);
      expect(toolsOf(plan)).toEqual(["activate_skill", "ls", "report_result", "reply"]);
      expect(plan[0]).toMatchObject({ input: { name: "open-pr" } });
      const result = resultOf(plan);
      expect(result.outcome).toBe("no-pr");
      expect(result.summary.startsWith(DEMO_SUMMARY_PREFIX)).toBe(true);
      expect(result.summary).toContain("no model ran");
    }
  });

  it("is the same plan for the same instruction", () => {
    expect(planScript("reproduce this issue")).toEqual(planScript("reproduce this issue"));
    expect(resultOf(planScript("reproduce this issue")).summary).toContain('"reproduce this issue"');
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
