import { describe, expect, it } from "vitest";
import {
  decideReservation,
  parseReporterDailyBudget,
  parseReporterMaxRunning,
  parseReporterRunCostBudget,
  reporterBudgetDetail,
  reporterLimits,
  reporterRunCapUsd,
  type Reservation,
  type ReporterSpend
} from "../../src/command-center/reporter-budget";
import {
  isReporterBudgetRefusal,
  isReporterBusyRefusal,
  REPORTER_BUSY_CODE,
  REPORTER_BUSY_REFUSAL,
  ReporterBudgetError,
  ReporterBusyError
} from "../../src/shared/reporter-budget";

const DAY = "2026-12-02";
const spend = (usd: number, runs = 1, complete = true): ReporterSpend => ({ day: DAY, runs, spent: { usd, complete } });
const held = (...amounts: number[]): Reservation[] =>
  amounts.map((usd, i) => ({ repo: "acme/widgets", session: `acme-widgets-${i}.reporter`, usd, at: i }));
const limits = (daily: string, run: string, max: string) =>
  reporterLimits({ REPORTER_DAILY_BUDGET: daily, REPORTER_RUN_COST_BUDGET: run, REPORTER_MAX_RUNNING: max });
const decide = (fields: Partial<Parameters<typeof decideReservation>[0]>) =>
  decideReservation({
    limits: limits("5", "1", "2"),
    repo: "acme/widgets",
    session: "acme-widgets-9.reporter",
    sessionHeld: false,
    held: [],
    spend: spend(0, 0),
    ...fields
  });

describe("the reporter tier's settings", () => {
  it("REPORTER_RUN_COST_BUDGET: $1 by default, a positive number of dollars, never unlimited", () => {
    expect(parseReporterRunCostBudget(undefined)).toEqual({ kind: "cap", usd: 1 });
    expect(parseReporterRunCostBudget(" ")).toEqual({ kind: "cap", usd: 1 });
    expect(parseReporterRunCostBudget("0.25")).toEqual({ kind: "cap", usd: 0.25 });
    for (const bad of ["0", "0.0", "none", "-1", "$1", "1e3", "one"]) {
      const parsed = parseReporterRunCostBudget(bad);
      expect(parsed.kind, bad).toBe("invalid");
      expect(parsed.kind === "invalid" && parsed.error).toBe(
        `REPORTER_RUN_COST_BUDGET must be a number of US dollars above 0, such as 1 (a reporter run always has a cap); got ${JSON.stringify(bad)}`
      );
    }
  });

  it("REPORTER_MAX_RUNNING: 2 by default, a whole number of runs from 1", () => {
    expect(parseReporterMaxRunning(undefined)).toEqual({ kind: "max", runs: 2 });
    expect(parseReporterMaxRunning("")).toEqual({ kind: "max", runs: 2 });
    expect(parseReporterMaxRunning(" 7 ")).toEqual({ kind: "max", runs: 7 });
    for (const bad of ["0", "1.5", "-2", "none", "two", "99999999999999999999"]) {
      expect(parseReporterMaxRunning(bad), bad).toEqual({
        kind: "invalid",
        error: `REPORTER_MAX_RUNNING must be a whole number of runs, at least 1, such as 2; got ${JSON.stringify(bad)}`
      });
    }
  });

  it("REPORTER_DAILY_BUDGET keeps its meaning: $5 by default, 0 or none for no cap", () => {
    expect(parseReporterDailyBudget(undefined)).toEqual({ kind: "cap", usd: 5 });
    expect(parseReporterDailyBudget("none")).toEqual({ kind: "none" });
    expect(parseReporterDailyBudget("0")).toEqual({ kind: "none" });
    expect(parseReporterDailyBudget("five")).toMatchObject({ kind: "invalid" });
  });

  it("reads all three, or names the first that does not parse, or a run's cap above the day's", () => {
    expect(limits("", "", "")).toEqual({ ok: true, limits: { daily: { kind: "cap", usd: 5 }, runCapUsd: 1, maxRunning: 2 } });
    expect(limits("0", "3", "4")).toEqual({ ok: true, limits: { daily: { kind: "none" }, runCapUsd: 3, maxRunning: 4 } });
    expect(limits("five", "0", "0")).toMatchObject({ ok: false, error: expect.stringMatching(/^REPORTER_DAILY_BUDGET must be/) });
    expect(limits("5", "0", "0")).toMatchObject({ ok: false, error: expect.stringMatching(/^REPORTER_RUN_COST_BUDGET must be/) });
    expect(limits("5", "1", "0")).toMatchObject({ ok: false, error: expect.stringMatching(/^REPORTER_MAX_RUNNING must be/) });
    expect(limits("0.5", "1", "2")).toEqual({
      ok: false,
      error: "REPORTER_RUN_COST_BUDGET $1.00 is more than REPORTER_DAILY_BUDGET $0.50, so no reporter run could start"
    });
  });

  it("gives the ThinkAgent a reporter run's cap, never 0 (which would be no budget there)", () => {
    expect(reporterRunCapUsd("2.5")).toBe(2.5);
    expect(reporterRunCapUsd(undefined)).toBe(1);
    expect(reporterRunCapUsd("0")).toBe(1);
    expect(reporterRunCapUsd("lots")).toBe(1);
  });
});

describe("decideReservation", () => {
  it("reserves the run's cap while places and money remain", () => {
    expect(decide({})).toEqual({ ok: true, reservedUsd: 1 });
    expect(decide({ limits: limits("5", "0.75", "2"), held: held(0.75), spend: spend(3.5, 4) })).toEqual({ ok: true, reservedUsd: 0.75 });
  });

  it("is busy when the session holds a place, before anything else", () => {
    expect(decide({ sessionHeld: true, spend: spend(9, 9) })).toEqual({
      ok: false,
      reason: "busy",
      detail: "a reporter run is already going for acme-widgets-9.reporter, so agent-think starts the next one there once it ends"
    });
  });

  it("is busy when the repository holds REPORTER_MAX_RUNNING places", () => {
    expect(decide({ held: held(1) })).toMatchObject({ ok: true });
    expect(decide({ held: held(1, 1) })).toEqual({
      ok: false,
      reason: "busy",
      detail: "2 reporter runs going in acme/widgets, as many as REPORTER_MAX_RUNNING 2 allows, so agent-think starts another there once one ends; maintainers' runs go on"
    });
  });

  it("counts what ended today, what is held, and this run's cap against the day's cap", () => {
    const wide = limits("5", "1", "100");
    // 4 held + this one = 5: the fifth fits exactly, the sixth does not.
    expect(decide({ limits: wide, held: held(1, 1, 1, 1) })).toEqual({ ok: true, reservedUsd: 1 });
    expect(decide({ limits: wide, held: held(1, 1, 1, 1, 1) })).toEqual({
      ok: false,
      reason: "budget",
      detail: `$0.00 of REPORTER_DAILY_BUDGET $5.00 spent on ${DAY} (UTC) by 0 reporter runs in acme/widgets, $5.00 held for 5 reporter runs going, and one more may spend REPORTER_RUN_COST_BUDGET $1.00, so agent-think takes no more reporter runs there until one going ends under its cap or 00:00 UTC; maintainers' runs go on`
    });
    expect(decide({ limits: wide, spend: spend(3, 3), held: held(1) })).toMatchObject({ ok: true });
    expect(decide({ limits: wide, spend: spend(3.01, 3), held: held(1) })).toMatchObject({ ok: false, reason: "budget" });
    // A floor counts as spent.
    expect(decide({ limits: wide, spend: spend(4.5, 2, false) })).toEqual({
      ok: false,
      reason: "budget",
      detail: `at least $4.50 of REPORTER_DAILY_BUDGET $5.00 spent on ${DAY} (UTC) by 2 reporter runs in acme/widgets, and one more may spend REPORTER_RUN_COST_BUDGET $1.00, so agent-think takes no more reporter runs there until 00:00 UTC; maintainers' runs go on`
    });
  });

  it("adds decimal dollars exactly: three runs of $0.10 fit a $0.30 day", () => {
    const dimes = limits("0.3", "0.1", "100");
    expect(decide({ limits: dimes, held: held(0.1, 0.1) })).toEqual({ ok: true, reservedUsd: 0.1 });
    expect(decide({ limits: dimes, held: held(0.1, 0.1, 0.1) })).toMatchObject({ ok: false, reason: "budget" });
  });

  it("with no daily cap holds only places", () => {
    expect(decide({ limits: limits("0", "1", "3"), spend: spend(1_000, 50), held: held(1, 1) })).toEqual({ ok: true, reservedUsd: 1 });
    expect(decide({ limits: limits("none", "1", "3"), held: held(1, 1, 1) })).toMatchObject({ ok: false, reason: "busy" });
  });

  it("refuses every run while a setting does not parse, naming it", () => {
    expect(decide({ limits: limits("5", "1", "many") })).toEqual({
      ok: false,
      reason: "invalid",
      detail: `REPORTER_MAX_RUNNING must be a whole number of runs, at least 1, such as 2; got "many": every reporter run is refused until it is fixed`
    });
  });

  it("keeps the reached day's words when nothing is held", () => {
    expect(reporterBudgetDetail(5, spend(5, 5), "acme/widgets")).toBe(
      `$5.00 of REPORTER_DAILY_BUDGET $5.00 spent on ${DAY} (UTC) by 5 reporter runs in acme/widgets, so agent-think takes no more reporter runs there until 00:00 UTC; maintainers' runs go on`
    );
    expect(decide({ spend: spend(5, 1) })).toMatchObject({ detail: expect.stringContaining("spent on 2026-12-02 (UTC) by 1 reporter run in acme/widgets, so") });
  });
});

describe("the refusals across RPC", () => {
  it("a busy refusal is recognised by its words, with or without its class name before them, and is not the budget's", () => {
    const busy = new ReporterBusyError("2 reporter runs going in acme/widgets");
    expect(busy).toMatchObject({ name: "ReporterBusyError", code: REPORTER_BUSY_CODE, message: `${REPORTER_BUSY_REFUSAL} 2 reporter runs going in acme/widgets` });
    expect(REPORTER_BUSY_CODE).toBe("reporter_busy");
    expect(isReporterBusyRefusal(new Error(busy.message))).toBe(true);
    expect(isReporterBusyRefusal(new Error(`ReporterBusyError: ${busy.message}`))).toBe(true);
    expect(isReporterBusyRefusal(busy.message)).toBe(true);
    expect(isReporterBudgetRefusal(busy)).toBe(false);
    expect(isReporterBusyRefusal(new ReporterBudgetError("$5.00 of …"))).toBe(false);
    expect(isReporterBusyRefusal(new Error("something else: reporter runs busy:"))).toBe(false);
  });
});
