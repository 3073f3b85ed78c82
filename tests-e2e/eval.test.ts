/**
 * `npm run eval` end to end, offline: the real CLI against the real Workers
 * under `wrangler dev` on the scripted model, with the GitHub stand-in.
 *   - `--target local` drives the agent Worker through the dispatch
 *     contract: a case that passes (its reproduction page answers), one whose
 *     outcome differs, one whose time runs out, and a total cost cap that
 *     stops the run (the scripted model is priced through MODEL_PRICES here,
 *     so the runs' own figures cost something).
 *   - `--target github` takes the real path: the harness opens the issue and
 *     comments the mention on the stand-in as a maintainer, the stand-in
 *     delivers the signed webhook to the webhook app, which starts the run;
 *     the harness follows 🚀 and the closing comment, reads the run's figures
 *     from the dashboard API, then closes and labels the issues. It is
 *     compared with the local report.
 */
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEBHOOK_PATH } from "../scripts/lib/ingress-dev";
import { parseReport, type Report } from "../scripts/lib/eval/report";
import type { ThreadDetail } from "../src/shared/command-center";
import { startChain, type Chain } from "./support/chain";

const ROOT = resolve(import.meta.dirname, "..");
const SANDBOX = "acme/sandbox";
const MAINTAINER_TOKEN = "ghp_evalMaintainer0000000000000000000000";
const START_TIMEOUT_MS = 120_000;
const CLI_TIMEOUT_MS = 120_000;
// $10 per million tokens for the scripted model: its runs report a few thousand tokens each.
const PRICES = JSON.stringify({ scripted: { input: 10, cachedInput: 10, output: 10 } });

let chain: Chain;
let dir: string;

const reproduce = [
  "TEST: skill reproduce",
  "TEST: write /workspace/repro/index.html <!doctype html><title>repro</title><p>It wobbles.</p>",
  "TEST: publish /workspace/repro",
  "TEST: result reproduced It wobbles on every spin.",
  "TEST: reply Reproduced."
];
const CASES: Record<string, object> = {
  passes: { expected: "reproduced", checks: { reproductionPage: true }, scripted: reproduce },
  differs: { expected: "reproduced", scripted: ["TEST: result not-reproduced Spins fine on main.", "TEST: reply Not reproduced."] },
  slow: { expected: "reproduced", limits: { minutes: 0.1, usd: 1 }, scripted: ["TEST: sleep 30000", "TEST: reply late"] },
  also: { expected: "needs-info", scripted: ["TEST: result needs-info Which version?", "TEST: reply Asked."] },
  third: { expected: "needs-info", scripted: ["TEST: result needs-info Which browser?", "TEST: reply Asked."] }
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "agent-think-eval-"));
  for (const [id, fields] of Object.entries(CASES)) {
    const evalCase = {
      id,
      source: "https://github.com/acme/widgets/issues/1",
      repo: SANDBOX,
      issue: { title: `Widget ${id}`, body: "Spin the widget: it wobbles." },
      instruction: "reproduce this issue",
      limits: { minutes: 1, usd: 5 },
      ...fields
    };
    await writeFile(join(dir, `${id}.json`), JSON.stringify(evalCase));
  }
  chain = await startChain({ allowedRepos: SANDBOX, agentVars: { MODEL_PRICES: PRICES } });
  chain.standin.setWebhook({ url: `${chain.ingress.url}${WEBHOOK_PATH}`, secret: chain.secret });
}, START_TIMEOUT_MS);

afterAll(async () => {
  await chain?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

type CliResult = { code: number | null; stdout: string; stderr: string };

function evalCli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return new Promise((done, fail) => {
    // What `npm run eval` runs, without npx's own start (about 0.4 CPU seconds a run).
    const child = spawn(join(ROOT, "node_modules", ".bin", "tsx"), ["scripts/eval.ts", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`, AGENT_THINK_URL: "", GITHUB_TOKEN: "", ...env },
      timeout: CLI_TIMEOUT_MS
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.once("error", fail);
    child.once("close", (code) => done({ code, stdout, stderr }));
  });
}

async function readReport(out: string): Promise<Report> {
  return parseReport("report.json", await readFile(join(out, "report.json"), "utf8"));
}

const byId = (report: Report) => Object.fromEntries(report.cases.map((result) => [result.id, result]));
const explain = (cli: CliResult) => `${cli.stdout}\n${cli.stderr}\n${chain.logs()}`;

describe("npm run eval --target local", () => {
  it("passes a case, fails one whose outcome differs, and times out a slow one, in one report", async () => {
    const out = join(dir, "local");
    const cli = await evalCli(["--target", "local", "--url", chain.agent.url, "--cases", dir, "--case", "passes", "--case", "differs", "--case", "slow", "--scripted", "--concurrency", "3", "--out", out]);
    expect(cli.code, explain(cli)).toBe(1);
    const report = await readReport(out);
    const cases = byId(report);
    expect(report).toMatchObject({ target: "local", against: chain.agent.url, scripted: true });
    expect(cases.passes).toMatchObject({ verdict: "pass", outcome: "reproduced", scripted: true, checks: [{ name: "reproduction page", ok: true }] });
    // Local dispatches carry no repository visibility, so the page is a private one (its check fetched it all the same).
    expect(cases.passes!.reproductionUrl).toMatch(/\/repro\/private\/[0-9a-f]{32}\/$/);
    expect(cases.passes!.toolCalls).toBeGreaterThanOrEqual(3);
    expect(cases.passes!.tokens?.input).toBeGreaterThan(0);
    // The run's own figure, priced by the Worker's table: known, and not zero.
    expect(cases.passes!.cost).toMatchObject({ complete: true });
    expect(cases.passes!.cost!.usd).toBeGreaterThan(0);
    expect(cases.passes!.timeToStartMs).not.toBeNull();
    expect(cases.passes!.timeToCloseMs!).toBeGreaterThanOrEqual(cases.passes!.timeToStartMs!);
    expect(cases.differs).toMatchObject({ verdict: "fail", outcome: "not-reproduced", reason: "the run reported not-reproduced, expected reproduced" });
    expect(cases.slow).toMatchObject({ verdict: "timed-out", reason: "no closing comment within 6 s", timeToCloseMs: null });
    // It was told to stop: the run is cancelled, well before its 30 s sleep would have ended.
    const session = cases.slow!.threadUrl!.split("/").at(-1)!;
    const latest = async () => ((await (await fetch(`${chain.agent.url}/api/command-center/threads/${session}`)).json()) as ThreadDetail).runs[0]?.status;
    await expect.poll(latest, { timeout: 10_000 }).toBe("cancelled");
    expect(report.totals).toMatchObject({ cases: 3, ran: 3, passed: 1 });
    expect(cli.stdout).toContain("resolved    1 of 3 (33%)");
    const html = await readFile(join(out, "report.html"), "utf8");
    expect(html).toContain("scripted demonstration: no model ran");
  });

  it("starts no case once the runs cost the cap", async () => {
    const out = join(dir, "capped");
    const cli = await evalCli(["--target", "local", "--url", chain.agent.url, "--cases", dir, "--case", "also", "--case", "third", "--case", "passes", "--scripted", "--concurrency", "1", "--cost-cap", "0.000001", "--out", out]);
    expect(cli.code, explain(cli)).toBe(1);
    const report = await readReport(out);
    expect(report.stoppedBy).toBe("cost-cap");
    // Cases run in the order of their files.
    expect(report.cases.map((result) => [result.id, result.verdict])).toEqual([["also", "pass"], ["passes", "skipped"], ["third", "skipped"]]);
    expect(cli.stdout).toContain("stopped by the cost cap");
  });
});

describe("the starter cases", () => {
  it("each play through the Worker on the scripted model and pass", async () => {
    const out = join(dir, "starter");
    // Against the sandbox, as an operator replays them: the Worker's own GitHub calls stay on it.
    const cli = await evalCli(["--target", "local", "--url", chain.agent.url, "--repo", SANDBOX, "--scripted", "--concurrency", "4", "--cost-cap", "1000", "--out", out]);
    const report = await readReport(out);
    // A fix's proof needs a container, which this wrangler dev has none of: those cases are skipped, and say why.
    const needsContainer = (result: Report["cases"][number]) => result.verdict === "skipped" && /^it needs a container, which /.test(result.reason ?? "");
    expect(report.cases.filter((result) => result.verdict !== "pass" && !needsContainer(result)).map((result) => `${result.id}: ${result.reason}`), explain(cli)).toEqual([]);
    expect(report.cases.filter(needsContainer).map((result) => result.id)).toEqual(["dequal-nested-set-proven-fix", "dequal-nested-set-unproven-fix"]);
    expect(report.cases.length).toBeGreaterThanOrEqual(10);
    expect(cli.code).toBe(0);
  });
});

describe("npm run eval --target github", () => {
  it("opens each case's issue on the sandbox, follows the bot's signals, reports, compares, and closes and labels the issues", async () => {
    const out = join(dir, "github");
    const since = Date.now();
    const cli = await evalCli(
      ["--target", "github", "--repo", SANDBOX, "--dashboard", chain.agent.url, "--github-api", chain.standin.url, "--cases", dir, "--case", "passes", "--case", "differs", "--case", "slow", "--concurrency", "3", "--scripted", "--out", out, "--compare", join(dir, "local", "report.json")],
      { GITHUB_TOKEN: MAINTAINER_TOKEN }
    );
    expect(cli.code, explain(cli)).toBe(1);
    const report = await readReport(out);
    const cases = byId(report);
    expect(report).toMatchObject({ target: "github", against: SANDBOX });
    expect(cases.passes, `${cases.passes?.reason}\n${explain(cli)}`).toMatchObject({ verdict: "pass", outcome: "reproduced", checks: [{ name: "reproduction page", ok: true }] });
    expect(cases.passes!.issueUrl).toMatch(/\/acme\/sandbox\/issues\/\d+$/);
    expect(cases.passes!.threadUrl).toMatch(/\/thread\/acme-sandbox-\d+$/);
    // 🚀 and the closing comment, timed by GitHub's own timestamps.
    expect(cases.passes!.timeToStartMs).not.toBeNull();
    expect(cases.passes!.timeToCloseMs!).toBeGreaterThanOrEqual(cases.passes!.timeToStartMs!);
    expect(cases.passes!.cost!.usd).toBeGreaterThan(0);
    expect(cases.differs).toMatchObject({ verdict: "fail", outcome: "not-reproduced" });
    // The slow one started (🚀) and was told to stop when its time ran out, so it spends nothing more.
    expect(cases.slow).toMatchObject({ verdict: "timed-out", timeToCloseMs: null });
    expect(cases.slow!.timeToStartMs).not.toBeNull();
    const slowIssue = Number(cases.slow!.issueUrl!.split("/").at(-1));
    const comments = (await (await fetch(`${chain.standin.url}/repos/${SANDBOX}/issues/${slowIssue}/comments`)).json()) as { body: string; user: { login: string } }[];
    expect(comments.filter((comment) => comment.body === "@agent-think stop").map((comment) => comment.user.login)).toEqual(["octocat"]);
    expect(cli.stdout).toMatch(/compared    with .*fixed none; broken none/);

    // The issues it opened: one per case, by the maintainer, closed and labelled with the verdict.
    const records = chain.standin.records().filter((record) => record.at >= since);
    const created = records.filter((record) => record.operation === "issues/create");
    expect(created).toHaveLength(3);
    for (const result of [cases.passes!, cases.differs!, cases.slow!]) {
      const number = Number(result.issueUrl!.split("/").at(-1));
      const issue = (await (await fetch(`${chain.standin.url}/repos/${SANDBOX}/issues/${number}`, { headers: { authorization: `token ${MAINTAINER_TOKEN}` } })).json()) as {
        state: string;
        user: { login: string };
        labels: { name: string }[];
      };
      expect(issue.state).toBe("closed");
      expect(issue.labels.map((label) => label.name).sort()).toEqual(["agent-think-eval", `agent-think-eval:${result.verdict}`]);
    }
    // Each mention reached the webhook app as GitHub would send it; nothing the harness or the Workers sent was refused.
    // (the slow case's two: its mention and its stop)
    // The mentions: the verdict labels the harness adds go out as issues.labeled too, which the webhook app answers 204 (not its label).
    expect(chain.standin.deliveries().filter((delivery) => delivery.event === "issue_comment").map((delivery) => delivery.status)).toEqual([202, 202, 202, 202]);
    expect(chain.standin.refusals()).toEqual([]);
    // Nothing about any repository but the sandbox.
    expect(records.filter((record) => record.path.startsWith("/repos/") && !record.path.startsWith(`/repos/${SANDBOX}/`))).toEqual([]);
  });
});
