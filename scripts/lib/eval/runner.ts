/**
 * Runs the cases against a target: at most `concurrency` at a time, each
 * until its closing comment or its time limit, its checks after it ends;
 * and no case starts once the runs so far have cost the total cap (the
 * cases already running finish, and are counted). The report keeps the
 * cases' order whatever order they finish in. With a model (`--model`),
 * the target first makes the cases' repositories pick it, and puts them
 * back after the last case.
 */
import type { EvalCase } from "./case";
import { caseResult, skippedResult } from "./judge";
import { totals, type CaseResult, type CheckResult, type Report } from "./report";
import { NO_FIGURES, type CaseRun, type EvalTarget } from "./target";

export type EvalOptions = {
  cases: readonly EvalCase[];
  target: EvalTarget;
  /** Append each case's scripted directives to its instruction (the offline scripted model). */
  scripted: boolean;
  /** Run every case on this model (`--model`): the target makes the cases' repositories pick it first. */
  model?: string;
  concurrency: number;
  costCapUsd: number;
  /** A line of progress per case. */
  log?: (line: string) => void;
  now?: () => number;
};

/** What the bot is asked for a case. */
export function caseInstruction(evalCase: EvalCase, scripted: boolean): string {
  return scripted ? `${evalCase.instruction}\n${evalCase.scripted.join("\n")}` : evalCase.instruction;
}

export async function runEval(options: EvalOptions): Promise<Report> {
  const { cases, target, scripted, costCapUsd } = options;
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => {});
  const startedAt = new Date(now()).toISOString();
  const model = options.model;
  if (model !== undefined && !target.pickModel) throw new Error(`--model: the ${target.kind} target cannot choose a model`);
  const restore = model === undefined ? null : await target.pickModel!(model, [...new Set(cases.map((evalCase) => target.repoFor?.(evalCase) ?? evalCase.repo))]);
  const results: (CaseResult | undefined)[] = new Array(cases.length);
  let spent = 0;
  let capped = false;
  let next = 0;

  const worker = async () => {
    for (;;) {
      const index = next++;
      if (index >= cases.length) return;
      const evalCase = cases[index]!;
      if (spent >= costCapUsd) {
        capped = true;
        results[index] = skippedResult(evalCase, `the total cost cap of $${costCapUsd.toFixed(2)} was reached ($${spent.toFixed(2)} spent) before it started`);
        log(`- ${evalCase.id}: skipped (cost cap)`);
        continue;
      }
      const missing = await missingNeed(evalCase, target);
      if (missing) {
        results[index] = skippedResult(evalCase, missing);
        log(`- ${evalCase.id}: skipped (${missing})`);
        continue;
      }
      const result = await runCase(evalCase, target, scripted, log, model);
      results[index] = result;
      spent += result.cost?.usd ?? 0;
      log(progressLine(result));
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(options.concurrency, cases.length)) }, () => worker());
  try {
    await Promise.all(workers);
  } finally {
    await restore?.().catch((error: Error) => log(`! could not put the repositories' .github/agent-think.yml back: ${error.message}`));
  }

  const finished = results as CaseResult[];
  return {
    version: 1,
    target: target.kind,
    against: target.against,
    scripted,
    ...(model === undefined ? {} : { model }),
    startedAt,
    finishedAt: new Date(now()).toISOString(),
    concurrency: options.concurrency,
    costCapUsd,
    ...(capped ? { stoppedBy: "cost-cap" as const } : {}),
    cases: finished,
    totals: totals(finished)
  };
}

/** Why the target cannot run the case (it lacks what the case needs), or null. */
async function missingNeed(evalCase: EvalCase, target: EvalTarget): Promise<string | null> {
  for (const need of evalCase.needs ?? []) {
    if (target.has && !(await target.has(need))) {
      if (need === "pull-request") return `it needs a pull request opened before the mention, which the ${target.kind} target cannot open`;
      return `it needs a ${need}, which ${target.against} does not have (its health report's containers line is not ok)`;
    }
  }
  return null;
}

async function runCase(evalCase: EvalCase, target: EvalTarget, scripted: boolean, log: (line: string) => void, model?: string): Promise<CaseResult> {
  let run: CaseRun;
  try {
    run = await target.run({ case: evalCase, instruction: caseInstruction(evalCase, scripted), timeLimitMs: evalCase.limits.minutes * 60_000 });
  } catch (error) {
    // The harness could not drive it (the target unreachable, an answer it did not expect).
    return caseResult(evalCase, { kind: "refused", reason: `the harness could not drive it: ${(error as Error).message}`, figures: NO_FIGURES }, [], model);
  }
  const checks = run.kind === "ended" ? await runChecks(evalCase, run, target) : [];
  const result = caseResult(evalCase, run, checks, model);
  try {
    await run.cleanup?.(result);
  } catch (error) {
    log(`! ${evalCase.id}: could not tidy up after it: ${(error as Error).message}`);
  }
  return result;
}

/** The case's checks on a run that ended. */
export async function runChecks(evalCase: EvalCase, run: CaseRun, target: EvalTarget): Promise<CheckResult[]> {
  const checks: CheckResult[] = [];
  if (evalCase.checks.reproductionPage) checks.push(await reproductionPageCheck(run.figures.reproductionUrl, target));
  if (evalCase.checks.command) {
    checks.push({
      name: "command",
      ok: false,
      notRun: true,
      detail: `not run: the harness does not yet check out the run's pull request to run \`${evalCase.checks.command.run}\` (docs/eval.md)`
    });
  }
  return checks;
}

async function reproductionPageCheck(url: string | null, target: EvalTarget): Promise<CheckResult> {
  const name = "reproduction page";
  if (url === null) return { name, ok: false, detail: "the run published no reproduction page" };
  try {
    const response = await target.fetchPage(url);
    const type = response.headers.get("content-type") ?? "";
    await response.body?.cancel();
    const ok = response.status === 200 && type.startsWith("text/html");
    return { name, ok, detail: `${url} answered ${response.status}${type ? ` ${type.split(";")[0]}` : ""}` };
  } catch (error) {
    return { name, ok: false, detail: `${url} could not be fetched: ${(error as Error).message}` };
  }
}

function progressLine(result: CaseResult): string {
  const mark = result.verdict === "pass" ? "✓" : "✗";
  const time = result.timeToCloseMs === null ? "" : ` ${(result.timeToCloseMs / 1000).toFixed(1)} s`;
  const cost = result.cost === null ? " cost unknown" : ` ${result.cost.complete ? "" : "≥ "}$${result.cost.usd.toFixed(2)}`;
  return `${mark} ${result.id}: ${result.verdict}${result.reason ? ` (${result.reason})` : ""}${time}${cost}`;
}
