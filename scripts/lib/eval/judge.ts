/**
 * The verdict on one case: what the target saw against what the case
 * expects, in a sentence when it is not a pass. Pure.
 */
import type { EvalCase } from "./case";
import type { CaseResult, CheckResult, Verdict } from "./report";
import { NO_FIGURES, type CaseRun, type RunFigures } from "./target";

const usd = (amount: number) => `$${amount.toFixed(2)}`;

/** `model`: the one `--model` asked for; a run another model served first is no result for it. */
export function judge(evalCase: EvalCase, run: CaseRun, checks: CheckResult[], model?: string): { verdict: Verdict; reason?: string } {
  const { figures } = run;
  if (run.kind === "refused") return { verdict: "error", reason: run.reason };
  if (model !== undefined && !figures.scripted && figures.models !== null && !servedBy(figures.models[0]!, model)) {
    return { verdict: "error", reason: `it ran on ${figures.models.join(" then ")}, not ${model}, which --model asked for (is model: in the repository's .github/agent-think.yml read, and allowed by MODELS_ALLOWED?)` };
  }
  if (run.kind === "timed-out") {
    return { verdict: "timed-out", reason: `no closing comment within ${formatMinutes(evalCase.limits.minutes)}${figures.timeToStartMs === null ? " (it never started)" : ""}` };
  }
  if (figures.status === "error") return { verdict: "fail", reason: `the run ended in error: ${figures.error ?? "no error given"}` };
  if (figures.status === "cancelled") return { verdict: "fail", reason: "the run was cancelled" };
  if (figures.outcome === null) return { verdict: "fail", reason: `the run reported no outcome (expected ${evalCase.expected})` };
  if (figures.outcome !== evalCase.expected) return { verdict: "fail", reason: `the run reported ${figures.outcome}, expected ${evalCase.expected}` };
  const failed = checks.filter((check) => !check.ok && !check.notRun);
  if (failed.length > 0) return { verdict: "fail", reason: failed.map((check) => `${check.name}: ${check.detail}`).join("; ") };
  if (figures.cost !== null && figures.cost.usd > evalCase.limits.usd) {
    return { verdict: "over-budget", reason: `it cost ${usd(figures.cost.usd)}, over the case's ${usd(evalCase.limits.usd)}` };
  }
  return { verdict: "pass" };
}

/** A provider names a dated snapshot of the model asked for (`gpt-5.5-2026-01-01` for `gpt-5.5`). */
export function servedBy(served: string, model: string): boolean {
  return served === model || served.startsWith(`${model}-`);
}

function formatMinutes(minutes: number): string {
  return minutes < 1 ? `${Math.round(minutes * 60)} s` : `${minutes} min`;
}

/** The report's line for a case. */
export function caseResult(evalCase: EvalCase, run: CaseRun, checks: CheckResult[], model?: string): CaseResult {
  const { verdict, reason } = judge(evalCase, run, checks, model);
  return line(evalCase, run.figures, verdict, reason, checks);
}

/** A case that never started: the total cost cap was reached first. */
export function skippedResult(evalCase: EvalCase, reason: string): CaseResult {
  return line(evalCase, NO_FIGURES, "skipped", reason, []);
}

function line(evalCase: EvalCase, figures: RunFigures, verdict: Verdict, reason: string | undefined, checks: CheckResult[]): CaseResult {
  return {
    id: evalCase.id,
    title: evalCase.issue.title,
    source: evalCase.source,
    expected: evalCase.expected,
    outcome: figures.outcome,
    verdict,
    ...(reason === undefined ? {} : { reason }),
    timeToStartMs: figures.timeToStartMs,
    timeToCloseMs: figures.timeToCloseMs,
    toolCalls: figures.toolCalls,
    tokens: figures.tokens,
    cost: figures.cost,
    scripted: figures.scripted,
    models: figures.models,
    reproductionUrl: figures.reproductionUrl,
    proven: figures.proven,
    threadUrl: figures.threadUrl,
    issueUrl: figures.issueUrl,
    checks
  };
}
