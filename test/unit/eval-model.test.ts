/**
 * `npm run eval -- --model X`: the flag, the config the harness writes so
 * the repository picks X (pick-model.ts), the model each case ran on in
 * the report, a case another model served judged an error, and
 * `--compare` between reports of two models.
 */
import { describe, expect, it } from "vitest";
import { parseEvalArgs } from "../../scripts/lib/eval/args";
import { parseCase, type EvalCase } from "../../scripts/lib/eval/case";
import { renderReportHtml } from "../../scripts/lib/eval/html";
import { pickModelOnStandin, withModel } from "../../scripts/lib/eval/pick-model";
import { compare, parseReport } from "../../scripts/lib/eval/report";
import { runEval } from "../../scripts/lib/eval/runner";
import { summary } from "../../scripts/lib/eval/summary";
import { NO_FIGURES, type CaseRun, type EvalTarget, type RunRequest } from "../../scripts/lib/eval/target";
import { parseRepoConfig } from "../../src/run/repo-config";

function evalCase(id: string, repo = "acme/widgets"): EvalCase {
  return parseCase(
    `evals/cases/${id}.json`,
    JSON.stringify({
      id,
      source: `https://github.com/${repo}/issues/1`,
      repo,
      version: "1.0.0",
      issue: { title: `Widget ${id} wobbles`, body: "Steps: spin it." },
      instruction: "reproduce this issue",
      expected: "reproduced",
      limits: { minutes: 5, usd: 2 },
      scripted: ["TEST: result reproduced It wobbles."]
    })
  );
}

const ended = (models: string[] | null): CaseRun => ({
  kind: "ended",
  figures: { ...NO_FIGURES, status: "done", outcome: "reproduced", cost: { usd: 0.5, complete: true }, timeToCloseMs: 1_000, toolCalls: 3, models }
});

/** A target that records the model it was asked to pick and when it was put back. */
class ModelTarget implements EvalTarget {
  readonly kind = "local" as const;
  readonly against = "http://127.0.0.1:0";
  readonly events: string[] = [];
  constructor(private readonly served: (request: RunRequest) => string[] | null) {}
  async pickModel(model: string, repos: readonly string[]) {
    this.events.push(`pick ${model} in ${repos.join(",")}`);
    return async () => void this.events.push("restore");
  }
  async run(request: RunRequest): Promise<CaseRun> {
    this.events.push(`run ${request.case.id}`);
    return ended(this.served(request));
  }
  async fetchPage(): Promise<Response> {
    return new Response("", { status: 404 });
  }
}

describe("--model", () => {
  const parse = (argv: string[]) => parseEvalArgs(argv, {});

  it("parses a model id, and refuses one that is not", () => {
    expect(parse(["--target", "local", "--model", "claude-opus-4-5", "--standin", "http://127.0.0.1:8790"])).toMatchObject({
      ok: true,
      args: { model: "claude-opus-4-5", standin: "http://127.0.0.1:8790" }
    });
    expect(parse(["--target", "local", "--model", "gpt 5"])).toEqual({ ok: false, error: "--model must be a model id, such as gpt-5.5 or claude-opus-4-5" });
    expect(parse(["--target", "local"])).toMatchObject({ ok: true, args: { scripted: false } });
    expect((parse(["--target", "local"]) as { args: object }).args).not.toHaveProperty("model");
  });

  it("seeds the stand-in npm start runs unless --standin names another, and takes --standin only locally", () => {
    expect(parse(["--target", "local", "--model", "gpt-5.4"])).toMatchObject({ ok: true, args: { standin: "http://127.0.0.1:8790" } });
    expect(parseEvalArgs(["--target", "local", "--model", "gpt-5.4"], { GITHUB_STANDIN_PORT: "9100" })).toMatchObject({ ok: true, args: { standin: "http://127.0.0.1:9100" } });
    // The local target opens each case's issue on the stand-in, --model or not.
    expect(parse(["--target", "local"])).toMatchObject({ ok: true, args: { standin: "http://127.0.0.1:8790" } });
    const github = parseEvalArgs(["--target", "github", "--owner", "me", "--dashboard", "https://bot.example", "--model", "gpt-5.4", "--standin", "http://x"], { GITHUB_TOKEN: "t" });
    expect(github).toEqual({ ok: false, error: "--standin is for --target local" });
    expect(parseEvalArgs(["--target", "github", "--owner", "me", "--dashboard", "https://bot.example", "--model", "gpt-5.4"], { GITHUB_TOKEN: "t" })).toMatchObject({
      ok: true,
      args: { model: "gpt-5.4" }
    });
  });
});

describe("withModel", () => {
  it("adds model: to a config, replaces one, and writes a new file when there is none, each one the Worker reads", () => {
    const setup = "version: 1\nsetup:\n  commands:\n    - npm ci\n";
    for (const [before, after] of [
      [null, "version: 1\nmodel: claude-opus-4-5\n"],
      ["", "version: 1\nmodel: claude-opus-4-5\n"],
      [setup, `${setup}model: claude-opus-4-5\n`],
      ["version: 1\nmodel: gpt-5.5\nprogress: false", "version: 1\nmodel: claude-opus-4-5\nprogress: false"]
    ] as const) {
      const text = withModel(before, "claude-opus-4-5");
      expect(text).toBe(after);
      expect(parseRepoConfig(text)).toMatchObject({ config: { model: "claude-opus-4-5" } });
    }
  });
});

describe("pickModelOnStandin", () => {
  it("seeds each repository's config with the model, and puts back what was there (a missing file as version: 1)", async () => {
    const seeded: Array<{ repo: string; path: string; content: string }> = [];
    const files: Record<string, string> = { "acme/a": "version: 1\nnetwork:\n  allow: [example.com]\n" };
    const fetcher = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(String(input));
      if (url.pathname === "/_standin/files") {
        seeded.push(JSON.parse(String(init?.body)));
        return new Response(null, { status: 204 });
      }
      const repo = url.pathname.match(/^\/repos\/([^/]+\/[^/]+)\/contents\//)![1]!;
      return files[repo] === undefined ? new Response("{}", { status: 404 }) : new Response(files[repo], { status: 200 });
    }) as typeof fetch;
    const restore = await pickModelOnStandin("http://127.0.0.1:8790", ["acme/a", "acme/b"], "gpt-5.4", fetcher);
    expect(seeded).toEqual([
      { repo: "acme/a", path: ".github/agent-think.yml", content: "version: 1\nnetwork:\n  allow: [example.com]\nmodel: gpt-5.4\n" },
      { repo: "acme/b", path: ".github/agent-think.yml", content: "version: 1\nmodel: gpt-5.4\n" }
    ]);
    await restore();
    expect(seeded.slice(2).map((seed) => [seed.repo, seed.content])).toEqual([
      ["acme/a", files["acme/a"]],
      ["acme/b", "version: 1\n"]
    ]);
  });
});

describe("runEval on a model", () => {
  it("picks the model in the cases' repositories before the first case, puts them back after the last, and records what served each case", async () => {
    const target = new ModelTarget((request) => (request.case.id === "fell-back" ? ["gpt-5.5-2026-01-01"] : ["claude-opus-4-5-20251101"]));
    const cases = [evalCase("a"), evalCase("b", "acme/gadgets"), evalCase("fell-back")];
    const report = await runEval({ cases, target, scripted: false, model: "claude-opus-4-5", concurrency: 1, costCapUsd: 10 });
    expect(target.events).toEqual(["pick claude-opus-4-5 in acme/widgets,acme/gadgets", "run a", "run b", "run fell-back", "restore"]);
    expect(report.model).toBe("claude-opus-4-5");
    // A dated snapshot of the model asked for is that model.
    expect(report.cases.map((result) => [result.id, result.verdict, result.models])).toEqual([
      ["a", "pass", ["claude-opus-4-5-20251101"]],
      ["b", "pass", ["claude-opus-4-5-20251101"]],
      ["fell-back", "error", ["gpt-5.5-2026-01-01"]]
    ]);
    expect(report.cases[2]!.reason).toMatch(/^it ran on gpt-5\.5-2026-01-01, not claude-opus-4-5, which --model asked for/);
    expect(parseReport("report.json", JSON.stringify(report))).toEqual(report);
    expect(renderReportHtml(report)).toContain('<code data-testid="report-model">claude-opus-4-5</code>');
    expect(summary(report)).toContain("model       claude-opus-4-5 (--model)");
  });

  it("compares two reports of different models case by case", async () => {
    const opus = await runEval({ cases: [evalCase("a")], target: new ModelTarget(() => ["claude-opus-4-5"]), scripted: false, model: "claude-opus-4-5", concurrency: 1, costCapUsd: 10 });
    const gpt = await runEval({ cases: [evalCase("a")], target: new ModelTarget(() => ["claude-opus-4-5"]), scripted: false, model: "gpt-5.4", concurrency: 1, costCapUsd: 10 });
    const comparison = compare(opus, gpt);
    expect(comparison.before.model).toBe("claude-opus-4-5");
    expect(comparison.after.model).toBe("gpt-5.4");
    expect(comparison.cases).toEqual([expect.objectContaining({ id: "a", change: "broken" })]);
    expect(summary(gpt, comparison)).toContain("(claude-opus-4-5 → gpt-5.4): resolve rate -100 points; fixed none; broken a");
    expect(renderReportHtml(gpt, comparison)).toContain("Model: <code>claude-opus-4-5</code> → <code>gpt-5.4</code>");
  });

  it("reads a report written before the model was recorded", async () => {
    const report = await runEval({ cases: [evalCase("a")], target: new ModelTarget(() => null), scripted: false, concurrency: 1, costCapUsd: 10 });
    expect(report).not.toHaveProperty("model");
    const old = { ...report, cases: report.cases.map(({ models: _models, ...rest }) => rest) };
    expect(parseReport("old.json", JSON.stringify(old)).cases[0]).not.toHaveProperty("models");
  });
});
