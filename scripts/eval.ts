/**
 * `npm run eval -- --target local|github ...`: runs the eval cases
 * (`evals/cases/*.json`) against the local Worker or a deployed bot and
 * writes what happened as `report.json` and a self-contained
 * `report.html`; with `--compare previous.json`, what changed since. The
 * options are in `scripts/lib/eval/args.ts` (`--help`), the method in
 * docs/eval.md. Exit codes: 0 every case that ran passed, and the only
 * cases skipped were ones the target lacks what they need for (a
 * container); 1 some did not pass, or the cost cap stopped the run; 2 a
 * bad argument or case file.
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseEvalArgs, USAGE, type EvalArgs } from "./lib/eval/args";
import { loadCases } from "./lib/eval/case";
import { GitHubTarget } from "./lib/eval/github-target";
import { renderReportHtml } from "./lib/eval/html";
import { LocalTarget } from "./lib/eval/local-target";
import { bareRepositoryUnder, ReplayGit } from "./lib/eval/replay-git";
import { compare, parseReport, type Report } from "./lib/eval/report";
import { runEval } from "./lib/eval/runner";
import { summary } from "./lib/eval/summary";
import type { EvalTarget } from "./lib/eval/target";

async function main(): Promise<number> {
  const parsed = parseEvalArgs(process.argv.slice(2), process.env);
  if (!parsed.ok) {
    console.error(`eval: ${parsed.error}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.kind === "help") {
    console.log(USAGE);
    return 0;
  }
  const { args } = parsed;
  let previous: Report | undefined;
  let cases;
  try {
    cases = await loadCases(args.cases, args.only);
    if (args.compare) previous = parseReport(args.compare, await readFile(args.compare, "utf8"));
  } catch (error) {
    console.error(`eval: ${(error as Error).message}`);
    return 2;
  }
  const log = (line: string) => console.log(line);
  const target = targetFor(args, log);
  console.log(`eval: ${cases.length} case${cases.length === 1 ? "" : "s"} against ${target.against} (${args.target}${args.scripted ? ", scripted" : ""}${args.model ? `, on ${args.model}` : ""}), ${args.concurrency} at a time, cost cap $${args.costCapUsd.toFixed(2)}`);
  let report: Report;
  try {
    report = await runEval({ cases, target, scripted: args.scripted, ...(args.model ? { model: args.model } : {}), concurrency: args.concurrency, costCapUsd: args.costCapUsd, log });
  } catch (error) {
    // Only choosing the model can fail before any case (a sandbox the token cannot write, an unreachable stand-in).
    console.error(`eval: ${(error as Error).message}`);
    return 2;
  }
  const comparison = previous ? compare(previous, report) : undefined;

  const out = resolve(args.out ?? join("eval-results", report.startedAt.replace(/[:.]/g, "-")));
  await mkdir(out, { recursive: true });
  await writeFile(join(out, "report.json"), `${JSON.stringify(report, null, 2)}\n`);
  await writeFile(join(out, "report.html"), renderReportHtml(report, comparison));
  console.log("");
  console.log(summary(report, comparison));
  console.log(`report      ${join(out, "report.json")}`);
  console.log(`            ${join(out, "report.html")}`);
  const { passed, ran } = report.totals;
  return ran > 0 && passed === ran && report.stoppedBy === undefined ? 0 : 1;
}

function targetFor(args: EvalArgs, log: (line: string) => void): EvalTarget {
  if (args.target === "local") return new LocalTarget({ baseUrl: args.url, ...(args.repo ? { repo: args.repo } : {}), standinUrl: args.standin! });
  const pushTo = args.pushTo;
  return new GitHubTarget({
    owner: args.owner!,
    token: args.token!,
    git: new ReplayGit({ sourceBase: args.sourceGit, cacheDir: resolve(args.gitCache ?? join(tmpdir(), "agent-think-eval-sources")) }),
    ...(pushTo ? { pushUrl: (repo: string) => bareRepositoryUnder(resolve(pushTo), repo) } : {}),
    apiUrl: args.githubApi,
    dashboardUrl: args.dashboard!,
    ...(args.accessHeaders ? { accessHeaders: args.accessHeaders } : {}),
    mention: args.mention,
    keepOpen: args.keepOpen,
    log
  });
}

process.exitCode = await main();
