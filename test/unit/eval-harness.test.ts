import { Octokit } from "@octokit/rest";
import { describe, expect, it } from "vitest";
import { parseEvalArgs } from "../../scripts/lib/eval/args";
import { parseCase, type EvalCase } from "../../scripts/lib/eval/case";
import { parseClosing } from "../../scripts/lib/eval/github-target";
import { guardReplays } from "../../scripts/lib/eval/replay-repo";
import { byExpected, compare, expectedRows, falseReproductions, parseReport, totals, type CaseResult, type Report } from "../../scripts/lib/eval/report";
import { caseInstruction, runEval } from "../../scripts/lib/eval/runner";
import { summary } from "../../scripts/lib/eval/summary";
import { NO_FIGURES, type CaseRun, type EvalTarget, type RunRequest } from "../../scripts/lib/eval/target";
import { hasContainer } from "../../scripts/lib/eval/thread-figures";
import { closingNotice } from "../../src/report/notices";
import { type RunRef } from "../../src/report/run-ref";

function evalCase(id: string, overrides: Partial<EvalCase> = {}): EvalCase {
  return parseCase(
    `evals/cases/${id}.json`,
    JSON.stringify({
      id,
      source: `https://github.com/acme/widgets/issues/${id.length}`,
      repo: "acme/widgets",
      version: "1.0.0",
      issue: { title: `Widget ${id} wobbles`, body: "Steps: spin it." },
      instruction: "reproduce this issue",
      expected: "reproduced",
      limits: { minutes: 5, usd: 2 },
      scripted: ["TEST: result reproduced It wobbles.", "TEST: reply done"],
      ...overrides
    })
  );
}

/** A target that answers each case as `answer` says, and records what it was asked. */
class FakeTarget implements EvalTarget {
  readonly kind = "local" as const;
  readonly against = "http://127.0.0.1:0";
  readonly asked: RunRequest[] = [];
  readonly cleaned: string[] = [];
  running = 0;
  mostAtOnce = 0;
  constructor(private readonly answer: (request: RunRequest) => Promise<CaseRun> | CaseRun) {}
  async run(request: RunRequest): Promise<CaseRun> {
    this.asked.push(request);
    this.running++;
    this.mostAtOnce = Math.max(this.mostAtOnce, this.running);
    try {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const run = await this.answer(request);
      return { ...run, cleanup: async (result) => void this.cleaned.push(`${result.id}:${result.verdict}`) };
    } finally {
      this.running--;
    }
  }
  async fetchPage(url: string): Promise<Response> {
    return new Response("<!doctype html>", { status: url.endsWith("/missing/") ? 404 : 200, headers: { "content-type": "text/html; charset=utf-8" } });
  }
}

const ended = (outcome: CaseRun["figures"]["outcome"], usd = 0.5, extra: Partial<CaseRun["figures"]> = {}): CaseRun => ({
  kind: "ended",
  figures: { ...NO_FIGURES, status: "done", outcome, cost: { usd, complete: true }, timeToStartMs: 800, timeToCloseMs: 30_000, toolCalls: 7, ...extra }
});

describe("eval cases", () => {
  it("refuses a bad case naming the file and every field", () => {
    expect(() => parseCase("evals/cases/x.json", "{")).toThrow(/evals\/cases\/x.json: not JSON/);
    expect(() => parseCase("evals/cases/x.json", JSON.stringify({ id: "x", repo: "nope", expected: "fixed", extra: 1 }))).toThrow(
      /evals\/cases\/x.json: source: .*repo: must be "owner\/name".*expected: .*\(the case\): Unrecognized key: "extra"/
    );
    expect(() => evalCase("x", { id: "y" } as Partial<EvalCase>)).toThrow(/id: is "y", the file is named "x.json"/);
    // Every case names the release its report was made against.
    expect(() => evalCase("x", { version: undefined } as unknown as Partial<EvalCase>)).toThrow(/version: /);
  });

  it("asks the scripted model with the directives, a real one without", () => {
    const one = evalCase("a");
    expect(caseInstruction(one, false)).toBe("reproduce this issue");
    expect(caseInstruction(one, true)).toBe("reproduce this issue\nTEST: result reproduced It wobbles.\nTEST: reply done");
  });
});

describe("runEval", () => {
  it("passes a case that reports what it expects, with its checks", async () => {
    const target = new FakeTarget(() => ended("reproduced", 0.5, { reproductionUrl: "https://bot.example/repro/abc/" }));
    const report = await runEval({ cases: [evalCase("a", { checks: { reproductionPage: true } })], target, scripted: true, concurrency: 2, costCapUsd: 10 });
    expect(report.cases[0]).toMatchObject({ id: "a", verdict: "pass", outcome: "reproduced", checks: [{ name: "reproduction page", ok: true }] });
    expect(report.totals).toMatchObject({ cases: 1, ran: 1, passed: 1, resolveRate: 1, totalCost: { usd: 0.5, complete: true } });
    expect(target.cleaned).toEqual(["a:pass"]);
  });

  it("fails a case whose outcome differs, and one whose page is missing, saying why", async () => {
    const target = new FakeTarget((request) =>
      request.case.id === "differs" ? ended("not-reproduced") : ended("reproduced", 0.5, { reproductionUrl: "https://bot.example/repro/missing/" })
    );
    const report = await runEval({
      cases: [evalCase("differs"), evalCase("no-page", { checks: { reproductionPage: true } })],
      target,
      scripted: false,
      concurrency: 1,
      costCapUsd: 10
    });
    expect(report.cases.map((result) => [result.id, result.verdict, result.reason])).toEqual([
      ["differs", "fail", "the run reported not-reproduced, expected reproduced"],
      ["no-page", "fail", "reproduction page: https://bot.example/repro/missing/ answered 404 text/html"]
    ]);
    expect(report.totals.resolveRate).toBe(0);
  });

  it("skips a case that needs a container on a target without one, saying so, and runs it on a target with one", async () => {
    const needing = evalCase("proof", { expected: "pr-opened", needs: ["container"] });
    const bare = Object.assign(new FakeTarget(() => ended("pr-opened", 0.5, { proven: true })), { has: async () => false });
    const skipped = await runEval({ cases: [needing, evalCase("plain")], target: bare, scripted: true, concurrency: 1, costCapUsd: 10 });
    expect(skipped.cases.map((result) => [result.id, result.verdict])).toEqual([["proof", "skipped"], ["plain", "fail"]]);
    expect(skipped.cases[0]!.reason).toBe("it needs a container, which http://127.0.0.1:0 does not have (its health report's containers line is not ok)");
    expect(bare.asked.map((request) => request.case.id)).toEqual(["plain"]);
    const equipped = Object.assign(new FakeTarget(() => ended("pr-opened", 0.5, { proven: true })), { has: async () => true });
    const ran = await runEval({ cases: [needing], target: equipped, scripted: true, concurrency: 1, costCapUsd: 10 });
    expect(ran.cases[0]).toMatchObject({ verdict: "pass", proven: true });
    expect(ran.totals.fixes).toEqual({ proven: 1, unproven: 0, unchecked: 0 });
  });

  it("asks the Worker's health report whether it has a container, with the target's headers", async () => {
    const asked: Array<{ url: string; headers: unknown }> = [];
    const answering = (containers: string, status = 200) =>
      (async (url: string | URL | Request, init?: RequestInit) => {
        asked.push({ url: String(url), headers: init?.headers });
        return new Response(JSON.stringify({ status: "warn", checks: [{ id: "model", status: "ok" }, { id: "containers", status: containers }] }), { status });
      }) as typeof fetch;
    const reader = { baseUrl: "https://bot.example", headers: { "cf-access-client-id": "id" } };
    expect(await hasContainer({ ...reader, fetch: answering("ok") })).toBe(true);
    expect(await hasContainer({ ...reader, fetch: answering("warn") })).toBe(false);
    // A blocking report answers 503 and still says which line.
    expect(await hasContainer({ ...reader, fetch: answering("block", 503) })).toBe(false);
    expect(await hasContainer({ ...reader, fetch: (async () => new Response("<html>Access</html>")) as typeof fetch })).toBe(false);
    expect(asked[0]).toEqual({ url: "https://bot.example/api/health", headers: { "cf-access-client-id": "id" } });
  });

  it("marks a case whose time ran out as timed out, and still tidies up after it", async () => {
    const target = new FakeTarget(() => ({ kind: "timed-out", figures: { ...NO_FIGURES, timeToStartMs: 900 } }));
    const report = await runEval({ cases: [evalCase("slow", { limits: { minutes: 0.05, usd: 1 } })], target, scripted: true, concurrency: 1, costCapUsd: 10 });
    expect(report.cases[0]).toMatchObject({ verdict: "timed-out", reason: "no closing comment within 3 s", timeToStartMs: 900, timeToCloseMs: null, cost: null });
    expect(target.asked[0]!.timeLimitMs).toBe(3_000);
    expect(target.cleaned).toEqual(["slow:timed-out"]);
    // An unknown cost is never a zero.
    expect(report.totals.totalCost).toEqual({ usd: 0, complete: false });
  });

  it("starts no case once the runs cost the cap, and says so", async () => {
    const target = new FakeTarget(() => ended("reproduced", 1.5));
    const cases = ["a", "b", "c", "d", "e"].map((id) => evalCase(id));
    const report = await runEval({ cases, target, scripted: true, concurrency: 1, costCapUsd: 3 });
    expect(report.cases.map((result) => result.verdict)).toEqual(["pass", "pass", "skipped", "skipped", "skipped"]);
    expect(report.cases[2]!.reason).toBe("the total cost cap of $3.00 was reached ($3.00 spent) before it started");
    expect(report.stoppedBy).toBe("cost-cap");
    expect(target.asked).toHaveLength(2);
    expect(report.totals).toMatchObject({ cases: 5, ran: 2, passed: 2, resolveRate: 1, totalCost: { usd: 3, complete: true } });
    expect(summary(report)).toContain("resolved    2 of 2 (100%), 3 skipped — stopped by the cost cap");
  });

  it("runs at most `concurrency` cases at a time and keeps the cases' order", async () => {
    const target = new FakeTarget(async (request) => {
      await new Promise((resolve) => setTimeout(resolve, request.case.id === "a" ? 40 : 1));
      return ended("reproduced", 0.1);
    });
    const cases = ["a", "b", "c", "d", "e", "f"].map((id) => evalCase(id));
    const report = await runEval({ cases, target, scripted: true, concurrency: 3, costCapUsd: 100 });
    expect(target.mostAtOnce).toBe(3);
    expect(report.cases.map((result) => result.id)).toEqual(["a", "b", "c", "d", "e", "f"]);
  });

  it("judges an over-budget run, an error run, a refusal and a harness failure", async () => {
    const answers: Record<string, () => CaseRun> = {
      costly: () => ended("reproduced", 2.5),
      broke: () => ({ kind: "ended", figures: { ...NO_FIGURES, status: "error", error: "model unavailable" } }),
      refused: () => ({ kind: "refused", reason: "the dispatch was refused: repo: must be \"owner/name\"", figures: NO_FIGURES }),
      unreachable: () => {
        throw new Error("cannot reach http://127.0.0.1:0");
      }
    };
    const target = new FakeTarget((request) => answers[request.case.id]!());
    const report = await runEval({ cases: Object.keys(answers).map((id) => evalCase(id)), target, scripted: true, concurrency: 1, costCapUsd: 100 });
    expect(report.cases.map((result) => [result.verdict, result.reason])).toEqual([
      ["over-budget", "it cost $2.50, over the case's $2.00"],
      ["fail", "the run ended in error: model unavailable"],
      ["error", 'the dispatch was refused: repo: must be "owner/name"'],
      ["error", "the harness could not drive it: cannot reach http://127.0.0.1:0"]
    ]);
  });

  it("does not count a check it could not run against the case", async () => {
    const target = new FakeTarget(() => ended("pr-opened"));
    const report = await runEval({
      cases: [evalCase("fix", { expected: "pr-opened", checks: { command: { run: "npm test", failsBefore: true, passesAfter: true } } })],
      target,
      scripted: true,
      concurrency: 1,
      costCapUsd: 10
    });
    expect(report.cases[0]).toMatchObject({ verdict: "pass", checks: [{ name: "command", ok: false, notRun: true }] });
  });
});

describe("reports", () => {
  const result = (id: string, verdict: CaseResult["verdict"], usd: number | null, timeToCloseMs: number | null): CaseResult => ({
    id,
    title: id,
    source: "https://github.com/acme/widgets/issues/1",
    expected: "reproduced",
    outcome: verdict === "pass" ? "reproduced" : null,
    verdict,
    timeToStartMs: null,
    timeToCloseMs,
    toolCalls: null,
    tokens: null,
    cost: usd === null ? null : { usd, complete: true },
    scripted: false,
    reproductionUrl: null,
    threadUrl: null,
    issueUrl: null,
    checks: []
  });
  const report = (cases: CaseResult[], startedAt: string): Report => ({
    version: 1,
    target: "local",
    against: "http://127.0.0.1:8787",
    scripted: false,
    startedAt,
    finishedAt: startedAt,
    concurrency: 2,
    costCapUsd: 10,
    cases,
    totals: totals(cases)
  });

  it("takes medians over the cases that ran", () => {
    const sums = totals([result("a", "pass", 1, 10_000), result("b", "fail", 3, 30_000), result("c", "pass", null, 20_000), result("d", "skipped", null, null)]);
    expect(sums).toEqual({
      cases: 4,
      ran: 3,
      passed: 2,
      resolveRate: 2 / 3,
      medianTimeToCloseMs: 20_000,
      medianCostUsd: 2,
      totalCost: { usd: 4, complete: false },
      byExpected: [{ expected: "reproduced", cases: 3, passed: 2, reported: { reproduced: 2, none: 1 } }],
      fixes: { proven: 0, unproven: 0, unchecked: 0 }
    });
  });

  it("counts the pull requests apart by their proof: proven, not proven, and with nothing to prove them with", () => {
    const fix = (id: string, outcome: CaseResult["outcome"], proven: boolean | null, verdict: CaseResult["verdict"] = "pass") => ({
      ...result(id, verdict, 1, 1),
      expected: outcome ?? "pr-opened",
      outcome,
      proven
    });
    const cases = [
      fix("proven", "pr-opened", true),
      fix("updated", "pr-updated", true),
      fix("unproven", "pr-unproven", false),
      fix("no-reproduction", "pr-opened", null),
      fix("later", "pr-opened", true, "skipped"),
      result("plain", "pass", 1, 1)
    ];
    expect(totals(cases).fixes).toEqual({ proven: 2, unproven: 1, unchecked: 1 });
    const text = summary(report(cases, "2026-12-01T00:00:00.000Z")).split("\n");
    expect(text).toContain("fixes       2 proven, 1 not proven, 1 with no reproduction to prove it with");
    expect(summary(report([result("plain", "pass", 1, 1)], "2026-12-01T00:00:00.000Z"))).not.toContain("fixes");
  });

  it("counts, per expected outcome, what the runs reported, leaving skipped cases out", () => {
    const cases = [
      result("real", "pass", 1, 1),
      { ...result("intended", "fail", 1, 1), expected: "not-reproduced" as const, outcome: "reproduced" as const },
      { ...result("documented", "pass", 1, 1), expected: "not-reproduced" as const, outcome: "not-reproduced" as const },
      { ...result("vague", "fail", 1, 1), expected: "needs-info" as const, outcome: "reproduced" as const },
      { ...result("unchecked", "fail", 1, 1), outcome: "reproduced" as const },
      { ...result("missed", "fail", 1, 1), outcome: "not-reproduced" as const },
      { ...result("later", "skipped", null, null), expected: "pr-opened" as const }
    ];
    expect(byExpected(cases)).toEqual([
      // The right outcome with a failed check is on the diagonal but not a pass.
      { expected: "reproduced", cases: 3, passed: 1, reported: { reproduced: 2, "not-reproduced": 1 } },
      { expected: "not-reproduced", cases: 2, passed: 1, reported: { reproduced: 1, "not-reproduced": 1 } },
      { expected: "needs-info", cases: 1, passed: 0, reported: { reproduced: 1 } }
    ]);
    expect(totals(cases).byExpected).toEqual(byExpected(cases));
    expect(falseReproductions(cases).map((one) => one.id)).toEqual(["intended", "vague"]);

    const text = summary(report(cases, "2026-12-01T00:00:00.000Z")).split("\n");
    expect(text).toContain("reproduced      1 of 3 (1 reported not-reproduced, 1 reported reproduced but did not pass)");
    expect(text).toContain("not-reproduced  1 of 2 (1 reported reproduced)");
    expect(text).toContain("needs-info      0 of 1 (1 reported reproduced)");
    expect(text).toContain("warning     2 false reproductions, reported reproduced: intended (expected not-reproduced), vague (expected needs-info)");
    // The per-outcome lines come after the totals.
    expect(text.indexOf("not-reproduced  1 of 2 (1 reported reproduced)")).toBeGreaterThan(text.findIndex((line) => line.startsWith("total cost")));
    expect(summary(report([result("a", "pass", 1, 1), result("b", "fail", 1, 1)], "2026-12-01T00:00:00.000Z"))).toContain("reproduced  1 of 2 (1 reported no outcome)");
    expect(summary(report([result("a", "pass", 1, 1)], "2026-12-01T00:00:00.000Z"))).not.toContain("warning");
  });

  it("reads a report written before the per-outcome rows, and works them out from its cases", () => {
    const cases = [result("a", "pass", 1, 1), { ...result("b", "fail", 1, 1), expected: "needs-info" as const, outcome: "reproduced" as const }];
    const written = report(cases, "2026-11-01T00:00:00.000Z");
    const { byExpected: _rows, ...older } = written.totals;
    const old = parseReport("old.json", JSON.stringify({ ...written, totals: older }));
    expect(old.totals.byExpected).toBeUndefined();
    expect(expectedRows(old)).toEqual(written.totals.byExpected);
    expect(summary(old)).toContain("needs-info  0 of 1 (1 reported reproduced)");
    expect(compare(old, written).before.totals.resolveRate).toBe(0.5);
    // A row that names an outcome no run can report is refused.
    const bad = { ...written, totals: { ...written.totals, byExpected: [{ expected: "reproduced", cases: 1, passed: 1, reported: { fixed: 1 } }] } };
    expect(() => parseReport("bad.json", JSON.stringify(bad))).toThrow(/bad.json: not an eval report: totals.byExpected.0.reported/);
  });

  it("compares two reports case by case", () => {
    const before = report([result("a", "pass", 1, 10_000), result("b", "fail", 1, 10_000), result("gone", "pass", 1, 1)], "2026-11-01T00:00:00.000Z");
    const after = report([result("a", "fail", 2, 20_000), result("b", "pass", 2, 20_000), result("new", "pass", 2, 20_000)], "2026-12-01T00:00:00.000Z");
    const comparison = compare(before, after);
    expect(comparison.cases.map((change) => [change.id, change.change])).toEqual([["a", "broken"], ["b", "fixed"], ["new", "added"], ["gone", "removed"]]);
    // A case the cost cap skipped was not run: neither fixed nor broken.
    const capped = compare(before, report([result("a", "skipped", null, null)], "2026-12-02T00:00:00.000Z"));
    expect(capped.cases.map((change) => [change.id, change.change])).toEqual([["a", "not-run"], ["b", "removed"], ["gone", "removed"]]);
    expect(comparison.resolveRate).toBeCloseTo(2 / 3 - 2 / 3);
    expect(comparison.totalCostUsd).toBe(3);
    expect(summary(after, comparison)).toContain("fixed b; broken a");
    // A report written to disk reads back; anything else is refused with the field.
    expect(parseReport("r.json", JSON.stringify(after))).toEqual(after);
    expect(() => parseReport("r.json", JSON.stringify({ ...after, version: 2 }))).toThrow(/r.json: not an eval report: version/);
  });
});

describe("the GitHub target's reading and guard", () => {
  it("reads the closing comment's submission and outcome, and nothing from other comments", () => {
    const run: RunRef = { repo: "acme/widgets", issueNumber: 7, submissionId: "sub_1", threadUrl: "https://bot.example/thread/acme-widgets-7", requestedBy: "octocat" };
    const body = (notice: ReturnType<typeof closingNotice>) => notice.body ?? "";
    const closing = closingNotice(run, { kind: "result", result: { outcome: "needs-info", summary: "Which version?" } });
    expect(parseClosing(body(closing))).toEqual({ submissionId: "sub_1", outcome: "needs-info" });
    const failed = closingNotice(run, { kind: "failed", error: "model unavailable" });
    expect(parseClosing(body(failed))).toEqual({ submissionId: "sub_1", outcome: null });
    expect(parseClosing("<!-- agent-think:sub_1:rocket -->\nhello")).toBeNull();
    expect(parseClosing("### ✅ Reproduced\n")).toBeNull();
  });

  it("sends nothing but what a replay needs, and only about the owner's replay repositories", async () => {
    const sent: string[] = [];
    const octokit = new Octokit({
      auth: "ghp_test",
      request: {
        fetch: async (url: string, init: RequestInit) => {
          sent.push(`${init.method} ${url}`);
          return new Response(JSON.stringify({ number: 1, login: "me" }), { status: 201, headers: { "content-type": "application/json" } });
        }
      }
    });
    guardReplays(octokit, "Me");
    await octokit.rest.issues.create({ owner: "me", repo: "agent-think-eval-a", title: "t" });
    await octokit.rest.repos.createForAuthenticatedUser({ name: "agent-think-eval-a" });
    await octokit.rest.repos.createInOrg({ org: "me", name: "agent-think-eval-a" });
    await octokit.rest.repos.delete({ owner: "me", repo: "agent-think-eval-a" });
    await octokit.rest.users.getAuthenticated();
    await expect(octokit.rest.issues.create({ owner: "acme", repo: "widgets", title: "t" })).rejects.toThrow(
      /refused POST \/repos\/\{owner\}\/\{repo\}\/issues \(acme\/widgets\): it works only on Me's agent-think-eval-… repositories/
    );
    // A repository of the owner's that is not a replay is never written to, created or deleted.
    await expect(octokit.rest.repos.delete({ owner: "me", repo: "sandbox" })).rejects.toThrow(/refused DELETE/);
    await expect(octokit.rest.repos.delete({ owner: "other", repo: "agent-think-eval-a" })).rejects.toThrow(/refused DELETE/);
    await expect(octokit.rest.repos.createForAuthenticatedUser({ name: "sandbox" })).rejects.toThrow(/refused POST \/user\/repos/);
    await expect(octokit.rest.repos.createInOrg({ org: "other", name: "agent-think-eval-a" })).rejects.toThrow(/refused POST/);
    await expect(octokit.request("PATCH /user", { name: "x" })).rejects.toThrow(/refused PATCH \/user/);
    await expect(octokit.request("POST /repos/{owner}/{repo}/issues", { owner: "me", repo: "agent-think-eval-", title: "t" })).rejects.toThrow(/refused/);
    // Pages that paginate follows are whole URLs: the same rule, on the normalised path.
    await octokit.request("GET https://api.github.com/repos/me/agent-think-eval-a/issues/1/comments?page=2");
    for (const url of [
      "https://api.github.com/repos/me/sandbox/issues",
      "https://api.github.com/repos/me/agent-think-eval-a/../other/issues",
      "https://api.github.com/repos/me/agent-think-eval-a/%2e%2e/other/issues",
      "https://evil.example/repos/me/agent-think-eval-a/issues",
      "https://api.github.com/user/repos"
    ]) {
      await expect(octokit.request(`GET ${url}`), url).rejects.toThrow(/it works only on Me's agent-think-eval-… repositories/);
    }
    expect(sent).toEqual([
      "POST https://api.github.com/repos/me/agent-think-eval-a/issues",
      "POST https://api.github.com/user/repos",
      "POST https://api.github.com/orgs/me/repos",
      "DELETE https://api.github.com/repos/me/agent-think-eval-a",
      "GET https://api.github.com/user",
      "GET https://api.github.com/repos/me/agent-think-eval-a/issues/1/comments?page=2"
    ]);
  });
});

describe("npm run eval arguments", () => {
  const parse = (argv: string[], env: Record<string, string> = {}) => parseEvalArgs(argv, env);

  it("takes a local run with its defaults, an empty variable counting as unset", () => {
    expect(parse(["--target", "local"], { AGENT_THINK_URL: "", GITHUB_API_URL: "" })).toMatchObject({ ok: true, args: { url: "http://127.0.0.1:8787", githubApi: "https://api.github.com" } });
    expect(parse(["--target", "local", "--scripted"])).toEqual({
      ok: true,
      kind: "run",
      args: expect.objectContaining({ target: "local", url: "http://127.0.0.1:8787", cases: ["evals/cases"], scripted: true, concurrency: 2, costCapUsd: 10 })
    });
  });

  it("refuses a GitHub run without the owner, the dashboard or a token, naming what is missing", () => {
    expect(parse(["--target", "github"])).toEqual({ ok: false, error: expect.stringContaining("needs --owner NAME") });
    expect(parse(["--target", "github", "--owner", "me"])).toEqual({ ok: false, error: expect.stringContaining("needs --dashboard") });
    expect(parse(["--target", "github", "--owner", "me", "--dashboard", "https://bot.example"])).toEqual({ ok: false, error: expect.stringContaining("needs GITHUB_TOKEN") });
    expect(parse(["--target", "github", "--owner", "me", "--dashboard", "https://bot.example"], { GITHUB_TOKEN: "t", CF_ACCESS_CLIENT_ID: "id" })).toEqual({
      ok: false,
      error: "set both CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET, or neither"
    });
    const ok = parse(["--target", "github", "--owner", "me", "--dashboard", "https://bot.example/"], { GITHUB_TOKEN: "t", CF_ACCESS_CLIENT_ID: "id", CF_ACCESS_CLIENT_SECRET: "s" });
    expect(ok).toMatchObject({
      ok: true,
      args: { owner: "me", sourceGit: "https://github.com", dashboard: "https://bot.example", accessHeaders: { "CF-Access-Client-Id": "id", "CF-Access-Client-Secret": "s" } }
    });
    // The GitHub target makes a repository per case: a single sandbox is the local target's.
    expect(parse(["--target", "github", "--repo", "me/sandbox", "--owner", "me", "--dashboard", "https://bot.example"], { GITHUB_TOKEN: "t" })).toEqual({
      ok: false,
      error: "--repo is for --target local: --target github creates each case's repository under --owner"
    });
    expect(
      parse(["--target", "github", "--owner", "me", "--dashboard", "https://bot.example", "--source-git", "/srv/sources", "--git-cache", "/srv/mirrors", "--push-to", "/tmp/bare"], { GITHUB_TOKEN: "t" })
    ).toMatchObject({ ok: true, args: { sourceGit: "/srv/sources", gitCache: "/srv/mirrors", pushTo: "/tmp/bare" } });
  });

  it("refuses bad values, naming the flag", () => {
    expect(parse([])).toEqual({ ok: false, error: "--target must be local or github" });
    expect(parse(["--target", "local", "--repo", "nope"])).toEqual({ ok: false, error: '--repo must be "owner/name"' });
    expect(parse(["--target", "local", "--concurrency", "0"])).toMatchObject({ ok: false, error: expect.stringContaining("--concurrency") });
    expect(parse(["--target", "local", "--cost-cap", "-1"])).toMatchObject({ ok: false, error: expect.stringContaining("--cost-cap") });
    expect(parse(["--target", "local", "--url", "file:///etc"])).toMatchObject({ ok: false, error: "--url must be an http(s) URL" });
    expect(parse(["--target", "local", "--dashboard", "https://x"])).toMatchObject({ ok: false, error: expect.stringContaining("--target github") });
    expect(parse(["--target", "local", "--owner", "me"])).toEqual({ ok: false, error: "--owner is for --target github" });
    expect(parse(["--target", "github", "--owner", "not_an_owner"])).toEqual({ ok: false, error: "--owner must be a GitHub account or organization name" });
    expect(parse(["--target", "local", "--bogus"])).toMatchObject({ ok: false, error: expect.stringContaining("bogus") });
  });
});

describe("the starter cases (evals/cases)", () => {
  it("are at least ten valid cases from public GitHub issues, each scripted to report what it expects", async () => {
    const { loadCases } = await import("../../scripts/lib/eval/case");
    const { planScript } = await import("../../src/model/script");
    const cases = await loadCases(["evals/cases"]);
    expect(cases.length).toBeGreaterThanOrEqual(10);
    expect(new Set(cases.map((one) => one.expected))).toEqual(
      new Set(["reproduced", "not-reproduced", "not-a-bug", "answered", "fixed-upstream", "needs-info", "pr-opened", "pr-updated", "pr-unproven", "no-pr", "review-addressed", "patch-suggested"])
    );
    for (const one of cases) {
      expect(one.source, one.id).toMatch(new RegExp(`^https://github\\.com/${one.repo.replace(".", "\\.")}/issues/\\d+$`));
      const reported = planScript(caseInstruction(one, true)).flatMap((step) => (step.kind === "tool" && step.toolName === "report_result" ? [step.input.outcome] : []));
      // pr-unproven is the Worker's word, from the proof it re-ran (test/fix-proof.test.ts plays those cases).
      expect(reported, one.id).toEqual([one.expected === "pr-unproven" ? "pr-opened" : one.expected]);
    }
  });
});
