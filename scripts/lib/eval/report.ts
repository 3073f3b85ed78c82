/**
 * The eval report: one result per case and the totals an operator compares
 * between two runs (a skill edit, a model change: `--model` records the
 * model asked for, and each case the models that served it). Written as JSON (this
 * shape, `reportSchema`, so `--compare` can read an older file) and as
 * HTML (html.ts). Pure.
 */
import { z } from "zod";
import { RESULT_OUTCOMES, type ResultOutcome } from "../../../src/run/ending";

/**
 * How a case went: `pass` the run reached the expected outcome and every
 * check held; `fail` it ended otherwise (another outcome, a failed check, a
 * run that ended in error); `timed-out` no closing comment within the case's
 * minutes; `over-budget` it ended but cost more than the case's limit;
 * `skipped` never started (the total cost cap was reached first, or the
 * target lacks what the case `needs`); `error`
 * the harness could not drive it (the target refused the dispatch).
 */
export const VERDICTS = ["pass", "fail", "timed-out", "over-budget", "skipped", "error"] as const;
export type Verdict = (typeof VERDICTS)[number];

const costSchema = z.object({ usd: z.number().min(0), complete: z.boolean() });
export type EvalCost = z.infer<typeof costSchema>;

/** A check the case asked for: held or not, with what was seen; `notRun` when the harness could not run it (it then neither passes nor fails the case). */
export const checkResultSchema = z.object({ name: z.string(), ok: z.boolean(), detail: z.string(), notRun: z.boolean().optional() });
export type CheckResult = z.infer<typeof checkResultSchema>;

export const caseResultSchema = z.object({
  id: z.string(),
  title: z.string(),
  source: z.string(),
  expected: z.enum(RESULT_OUTCOMES),
  /** What the run reported (`report_result`); null when it reported none. */
  outcome: z.enum(RESULT_OUTCOMES).nullable(),
  verdict: z.enum(VERDICTS),
  /** Why it did not pass, in a sentence; absent for a pass. */
  reason: z.string().optional(),
  /** From the mention (or dispatch) to the 🚀: the run started. */
  timeToStartMs: z.number().min(0).nullable(),
  /** From the mention (or dispatch) to the closing comment (or the run's end). */
  timeToCloseMs: z.number().min(0).nullable(),
  toolCalls: z.number().int().min(0).nullable(),
  tokens: z.object({ input: z.number().int().min(0), output: z.number().int().min(0) }).nullable(),
  /** The run's own figure; null when the run reported none (unknown, never zero). */
  cost: costSchema.nullable(),
  scripted: z.boolean(),
  /** The models that served the run's steps, as the dashboard API names them; null when it did not say (absent in reports written before it existed). */
  models: z.array(z.string()).nullable().optional(),
  reproductionUrl: z.string().nullable(),
  /** Whether its pull request's proof held; null when it needed none (absent in reports written before it existed). */
  proven: z.boolean().nullable().optional(),
  threadUrl: z.string().nullable(),
  /** The issue the harness opened (github target). */
  issueUrl: z.string().nullable(),
  checks: z.array(checkResultSchema)
});
export type CaseResult = z.infer<typeof caseResultSchema>;

/** What a row counts a case under when the run reported no outcome (it ended in error, timed out, or never called `report_result`). */
export const NO_OUTCOME = "none";
export const REPORTED_KEYS = [...RESULT_OUTCOMES, NO_OUTCOME] as const;
export type ReportedKey = (typeof REPORTED_KEYS)[number];

/**
 * One row of the confusion table: the cases that expected `expected` (and
 * ran), how many passed, and what their runs reported. `reported` holds only
 * the outcomes some run reported; its `expected` count can exceed `passed`
 * (the right outcome with a failed check, or over budget).
 */
export const expectedRowSchema = z.object({
  expected: z.enum(RESULT_OUTCOMES),
  cases: z.number().int().min(1),
  passed: z.number().int().min(0),
  reported: z.partialRecord(z.enum(REPORTED_KEYS), z.number().int().min(1))
});
export type ExpectedRow = z.infer<typeof expectedRowSchema>;

/**
 * Outcomes a case can expect where a `reproduced` tells the maintainer
 * working code is broken (it does not show, or works as intended), or
 * guesses where an answer or a question was due. Not `fixed-upstream`: the
 * release it names is broken.
 */
export const FALSE_REPRODUCTION_EXPECTED: readonly ResultOutcome[] = ["not-reproduced", "not-a-bug", "answered", "needs-info"];

export const totalsSchema = z.object({
  cases: z.number().int().min(0),
  /** Cases that ran (not skipped). */
  ran: z.number().int().min(0),
  passed: z.number().int().min(0),
  /** Passed over ran; null when nothing ran. */
  resolveRate: z.number().min(0).max(1).nullable(),
  medianTimeToCloseMs: z.number().nullable(),
  medianCostUsd: z.number().nullable(),
  totalCost: costSchema,
  /** Per expected outcome, in `RESULT_OUTCOMES` order, over the cases that ran. Always written; absent in reports written before it existed. */
  byExpected: z.array(expectedRowSchema).optional(),
  /** The pull requests the runs opened or updated, by their proof (fixesOf). Always written; absent in reports written before it existed. */
  fixes: z.object({ proven: z.number().int().min(0), unproven: z.number().int().min(0), unchecked: z.number().int().min(0) }).optional()
});
export type Totals = z.infer<typeof totalsSchema>;

export const reportSchema = z.object({
  version: z.literal(1),
  target: z.enum(["local", "github"]),
  /** The Worker (local) or the sandbox repository (github) it ran against. */
  against: z.string(),
  scripted: z.boolean(),
  /** The model the cases were asked to run on (`--model`); absent: each repository's own, else the deployment's. */
  model: z.string().optional(),
  startedAt: z.string(),
  finishedAt: z.string(),
  concurrency: z.number().int().positive(),
  costCapUsd: z.number().positive(),
  /** Set when the total cost cap stopped the run: no case started after it. */
  stoppedBy: z.literal("cost-cap").optional(),
  cases: z.array(caseResultSchema),
  totals: totalsSchema
});
export type Report = z.infer<typeof reportSchema>;

export function median(values: number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** The sum of the runs' costs; incomplete when any ran run's cost is unknown or a floor. */
export function sumCost(results: readonly CaseResult[]): EvalCost {
  let usd = 0;
  let complete = true;
  for (const result of results) {
    if (result.verdict === "skipped") continue;
    if (result.cost === null) complete = false;
    else {
      usd += result.cost.usd;
      complete &&= result.cost.complete;
    }
  }
  return { usd, complete };
}

/** The confusion rows: for each expected outcome among the cases that ran, what their runs reported. Skipped cases are left out. */
export function byExpected(results: readonly CaseResult[]): ExpectedRow[] {
  const ran = results.filter((result) => result.verdict !== "skipped");
  return RESULT_OUTCOMES.flatMap((expected) => {
    const these = ran.filter((result) => result.expected === expected);
    if (these.length === 0) return [];
    const reported: ExpectedRow["reported"] = {};
    for (const key of REPORTED_KEYS) {
      const count = these.filter((result) => (result.outcome ?? NO_OUTCOME) === key).length;
      if (count > 0) reported[key] = count;
    }
    return [{ expected, cases: these.length, passed: these.filter((result) => result.verdict === "pass").length, reported }];
  });
}

/** The report's rows: as written, or worked out from its cases when it predates them. */
export function expectedRows(report: Report): ExpectedRow[] {
  return report.totals.byExpected ?? byExpected(report.cases);
}

/** The cases that ran and reported `reproduced` where one of FALSE_REPRODUCTION_EXPECTED was: the costliest mistake. */
export function falseReproductions(results: readonly CaseResult[]): CaseResult[] {
  return results.filter((result) => result.verdict !== "skipped" && result.outcome === "reproduced" && FALSE_REPRODUCTION_EXPECTED.includes(result.expected));
}

/** Outcomes that are a pull request the run opened or updated. */
const FIX_OUTCOMES: readonly ResultOutcome[] = ["pr-opened", "pr-updated", "pr-unproven"];

/**
 * The runs' pull requests apart, by proof: `proven` its reproduction's check
 * failed before and passed after; `unproven` it did not hold (or was not
 * run where it had to be); `unchecked` there was no reproduction to prove it
 * with.
 */
export function fixesOf(results: readonly CaseResult[]): NonNullable<Totals["fixes"]> {
  const fixes = results.filter((result) => result.verdict !== "skipped" && result.outcome !== null && FIX_OUTCOMES.includes(result.outcome));
  return {
    proven: fixes.filter((result) => result.proven === true && result.outcome !== "pr-unproven").length,
    unproven: fixes.filter((result) => result.outcome === "pr-unproven" || result.proven === false).length,
    unchecked: fixes.filter((result) => result.outcome !== "pr-unproven" && (result.proven ?? null) === null).length
  };
}

/** "2 proven, 1 not proven, 1 with no reproduction to prove it with". */
export function fixesText(fixes: NonNullable<Totals["fixes"]>): string {
  return [`${fixes.proven} proven`, `${fixes.unproven} not proven`, ...(fixes.unchecked > 0 ? [`${fixes.unchecked} with no reproduction to prove ${fixes.unchecked === 1 ? "it" : "them"} with`] : [])].join(", ");
}

export function totals(results: readonly CaseResult[]): Totals & { byExpected: ExpectedRow[] } {
  const ran = results.filter((result) => result.verdict !== "skipped");
  const passed = ran.filter((result) => result.verdict === "pass").length;
  return {
    cases: results.length,
    ran: ran.length,
    passed,
    resolveRate: ran.length === 0 ? null : passed / ran.length,
    medianTimeToCloseMs: median(ran.flatMap((result) => (result.timeToCloseMs === null ? [] : [result.timeToCloseMs]))),
    medianCostUsd: median(ran.flatMap((result) => (result.cost === null ? [] : [result.cost.usd]))),
    totalCost: sumCost(results),
    byExpected: byExpected(results),
    fixes: fixesOf(results)
  };
}

/** One case in both reports, or in one only. */
export type CaseChange = {
  id: string;
  before: CaseResult | null;
  after: CaseResult | null;
  /** Passed before and not now, or the reverse; `not-run` when either run skipped it (the cost cap); same otherwise. */
  change: "fixed" | "broken" | "same" | "added" | "removed" | "not-run";
};

export type Comparison = {
  /** `model`: what each report's cases were asked to run on (`--model`), when one was. */
  before: { startedAt: string; totals: Totals; model?: string };
  after: { startedAt: string; totals: Totals; model?: string };
  /** after − before, where both are known. */
  resolveRate: number | null;
  medianTimeToCloseMs: number | null;
  medianCostUsd: number | null;
  totalCostUsd: number;
  cases: CaseChange[];
};

const difference = (after: number | null, before: number | null) => (after === null || before === null ? null : after - before);

/** What changed from `before` to `after`, case by case (after's order, then cases only before had). */
export function compare(before: Report, after: Report): Comparison {
  const old = new Map(before.cases.map((result) => [result.id, result]));
  const cases: CaseChange[] = after.cases.map((result) => {
    const previous = old.get(result.id) ?? null;
    old.delete(result.id);
    if (previous === null) return { id: result.id, before: null, after: result, change: "added" };
    if (previous.verdict === "skipped" || result.verdict === "skipped") return { id: result.id, before: previous, after: result, change: "not-run" };
    const was = previous.verdict === "pass";
    const is = result.verdict === "pass";
    return { id: result.id, before: previous, after: result, change: was === is ? "same" : is ? "fixed" : "broken" };
  });
  for (const [id, previous] of old) cases.push({ id, before: previous, after: null, change: "removed" });
  return {
    before: { startedAt: before.startedAt, totals: before.totals, ...(before.model ? { model: before.model } : {}) },
    after: { startedAt: after.startedAt, totals: after.totals, ...(after.model ? { model: after.model } : {}) },
    resolveRate: difference(after.totals.resolveRate, before.totals.resolveRate),
    medianTimeToCloseMs: difference(after.totals.medianTimeToCloseMs, before.totals.medianTimeToCloseMs),
    medianCostUsd: difference(after.totals.medianCostUsd, before.totals.medianCostUsd),
    totalCostUsd: after.totals.totalCost.usd - before.totals.totalCost.usd,
    cases
  };
}

/** "gpt-5.5", or "claude-opus-4-5 then gpt-5.5" after a fallback: what a case ran on; "unknown" when the run did not say. */
export function modelsText(models: readonly string[] | null | undefined): string {
  return models && models.length > 0 ? models.join(" then ") : "unknown";
}

/** Reads a report written earlier (`--compare`), refusing anything else with the field. */
export function parseReport(file: string, text: string): Report {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file}: not JSON: ${(error as Error).message}`);
  }
  const parsed = reportSchema.safeParse(json);
  if (!parsed.success) {
    throw new Error(`${file}: not an eval report: ${parsed.error.issues.map((issue) => `${issue.path.join(".") || "(report)"}: ${issue.message}`).join("; ")}`);
  }
  return parsed.data;
}
