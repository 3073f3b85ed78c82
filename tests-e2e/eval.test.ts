/**
 * `npm run eval` end to end, offline: the real CLI against the real Workers
 * under `wrangler dev` on the scripted model, with the GitHub stand-in.
 *   - `--target local` opens each case's issue on the stand-in and dispatches
 *     the maintainer's words: a pass (its page answers), an outcome that
 *     differs, a timeout, and a total cost cap (the scripted model is priced
 *     through MODEL_PRICES here, so the runs cost something).
 *   - `--target github` creates each case's repository (pushed with real git
 *     to a bare repository: the stand-in has no git server), opens the issue
 *     and comments the mention as a maintainer; the stand-in delivers the
 *     webhook, the harness follows 🚀 and the closing comment and the run's
 *     figures, then deletes the repositories. Compared with the local report.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WEBHOOK_PATH } from "../scripts/lib/ingress-dev";
import { parseReport, type Report } from "../scripts/lib/eval/report";
import type { ThreadDetail } from "../src/shared/command-center";
import { sessionName } from "../src/shared/session-name";
import { startChain, type Chain } from "./support/chain";

const ROOT = resolve(import.meta.dirname, "..");
const SANDBOX = "acme/sandbox";
/** The GitHub target's repositories for the cases it plays (scripts/lib/eval/replay.ts). */
const REPLAYS = ["passes", "differs", "slow"].map((id) => `acme/agent-think-eval-${id}`);
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
      version: "1.0.0",
      issue: { title: `Widget ${id}`, body: "Spin the widget: it wobbles." },
      instruction: "reproduce this issue",
      limits: { minutes: 1, usd: 5 },
      ...fields
    };
    await writeFile(join(dir, `${id}.json`), JSON.stringify(evalCase));
  }
  // The cases' source repository, for the GitHub target to push from.
  const work = join(dir, "source");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: dir, stdio: "ignore" });
  git("init", "--quiet", "--initial-branch", "main", work);
  await writeFile(join(work, "README.md"), "# widgets\n");
  git("-C", work, "add", "README.md");
  git("-C", work, "-c", "user.name=Eval", "-c", "user.email=eval@example.com", "commit", "--quiet", "-m", "widgets");
  git("clone", "--bare", "--quiet", work, join(dir, "sources", "acme", "sandbox.git"));
  chain = await startChain({ allowedRepos: [SANDBOX, ...REPLAYS].join(","), agentVars: { MODEL_PRICES: PRICES } });
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
    const cli = await evalCli(["--target", "local", "--url", chain.agent.url, "--standin", chain.standin.url, "--cases", dir, "--case", "passes", "--case", "differs", "--case", "slow", "--scripted", "--concurrency", "3", "--out", out]);
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
    const cli = await evalCli(["--target", "local", "--url", chain.agent.url, "--standin", chain.standin.url, "--cases", dir, "--case", "also", "--case", "third", "--case", "passes", "--scripted", "--concurrency", "1", "--cost-cap", "0.000001", "--out", out]);
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
    const cli = await evalCli(["--target", "local", "--url", chain.agent.url, "--standin", chain.standin.url, "--repo", SANDBOX, "--scripted", "--concurrency", "4", "--cost-cap", "1000", "--out", out]);
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
  it("sets up each case's own repository, opens its issue, follows the bot's signals, reports, compares, and deletes the repositories", async () => {
    const out = join(dir, "github");
    const since = Date.now();
    const cli = await evalCli(
      [
        ...["--target", "github", "--owner", "acme", "--dashboard", chain.agent.url, "--github-api", chain.standin.url],
        ...["--source-git", join(dir, "sources"), "--git-cache", join(dir, "mirrors"), "--push-to", join(dir, "pushed")],
        ...["--cases", dir, "--case", "passes", "--case", "differs", "--case", "slow", "--concurrency", "3", "--scripted", "--out", out, "--compare", join(dir, "local", "report.json")]
      ],
      { GITHUB_TOKEN: MAINTAINER_TOKEN }
    );
    expect(cli.code, explain(cli)).toBe(1);
    const report = await readReport(out);
    const cases = byId(report);
    expect(report).toMatchObject({ target: "github", against: "acme/agent-think-eval-*" });
    expect(cases.passes, `${cases.passes?.reason}\n${explain(cli)}`).toMatchObject({ verdict: "pass", outcome: "reproduced", checks: [{ name: "reproduction page", ok: true }] });
    expect(cases.passes!.issueUrl).toMatch(/\/acme\/agent-think-eval-passes\/issues\/1$/);
    expect(cases.passes!.threadUrl).toBe(`${chain.agent.url}/thread/${sessionName("acme/agent-think-eval-passes", 1)}`);
    // 🚀 and the closing comment, timed by GitHub's own timestamps.
    expect(cases.passes!.timeToStartMs).not.toBeNull();
    expect(cases.passes!.timeToCloseMs!).toBeGreaterThanOrEqual(cases.passes!.timeToStartMs!);
    expect(cases.passes!.cost!.usd).toBeGreaterThan(0);
    expect(cases.differs).toMatchObject({ verdict: "fail", outcome: "not-reproduced" });
    // The slow one started (🚀) and was told to stop when its time ran out, so it spends nothing more.
    expect(cases.slow).toMatchObject({ verdict: "timed-out", timeToCloseMs: null });
    expect(cases.slow!.timeToStartMs).not.toBeNull();
    const records = chain.standin.records().filter((record) => record.at >= since);
    const comments = records.filter((record) => record.operation === "issues/create-comment" && record.path === "/repos/acme/agent-think-eval-slow/issues/1/comments");
    expect(comments.map((record) => (record.body as { body: string }).body).filter((body) => body === "@agent-think stop")).toHaveLength(1);
    expect(cli.stdout).toMatch(/compared    with .*fixed none; broken none/);

    // One repository per case: created, Actions off, pushed from the source at its commit, one issue, then deleted whatever the verdict.
    const source = execFileSync("git", ["rev-parse", "HEAD"], { cwd: join(dir, "sources", "acme", "sandbox.git"), encoding: "utf8" }).trim();
    for (const repo of REPLAYS) {
      const about = records.filter((record) => record.path === `/repos/${repo}` || record.path.startsWith(`/repos/${repo}/`)).map((record) => record.operation);
      expect(about.filter((operation) => operation !== undefined && /^(actions\/set-github-actions-permissions-repository|repos\/delete|issues\/create)$/.test(operation)), repo).toEqual([
        "actions/set-github-actions-permissions-repository",
        "issues/create",
        "repos/delete"
      ]);
      expect(execFileSync("git", ["rev-parse", "main"], { cwd: join(dir, "pushed", `${repo}.git`), encoding: "utf8" }).trim()).toBe(source);
      expect((await fetch(`${chain.standin.url}/repos/${repo}`)).status).toBe(404);
    }
    expect(records.filter((record) => record.operation === "repos/create-in-org").map((record) => (record.body as { name: string }).name).sort()).toEqual(REPLAYS.map((repo) => repo.split("/")[1]).sort());
    // The issue is the report alone: no link back to the original, no label.
    const opened = records.find((record) => record.operation === "issues/create" && record.path === "/repos/acme/agent-think-eval-passes/issues")!.body;
    expect(opened).toEqual({ title: "Widget passes", body: "Spin the widget: it wobbles." });
    // Each mention reached the webhook app as GitHub would send it (the slow case's two: its mention and its stop); nothing the harness or the Workers sent was refused.
    expect(chain.standin.deliveries().filter((delivery) => delivery.event === "issue_comment").map((delivery) => delivery.status)).toEqual([202, 202, 202, 202]);
    expect(chain.standin.refusals()).toEqual([]);
    // Nothing about any repository but the cases' own.
    expect(records.filter((record) => record.path.startsWith("/repos/") && !REPLAYS.some((repo) => record.path.startsWith(`/repos/${repo}`)))).toEqual([]);
  });
});
