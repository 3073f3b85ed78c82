/**
 * What the runs cost, on the command center: the spend tiles (today, since
 * midnight UTC, and the last 7 days), the 7 days per repository, and the
 * most expensive runs, each linking its thread, and apart from them today's
 * reporter-tier runs per repository (what REPORTER_DAILY_BUDGET holds). A
 * floor reads "≥ $…" and an unknown "unknown" (format.ts: costView), never
 * $0.00. Pure.
 */
import type { Metrics } from "../../shared/command-center";
import { costView, formatCount, formatRelativeTime, formatTimestamp, NO_VALUE, type CostView } from "./format";
import type { MetricTile } from "./metrics";
import { threadHref } from "./threads";

/** The two spend tiles; "—" before metrics arrived. */
export function spendTiles(metrics: Metrics | null | undefined): MetricTile[] {
  const tile = (id: "spend-today" | "spend-7d", label: string, cost: Metrics["spendToday"] | undefined, detail: string): MetricTile => {
    const view = metrics ? costView(cost) : null;
    return {
      id,
      label,
      value: view ? view.text : NO_VALUE,
      detail: view?.kind === "floor" ? `${detail} · at least` : detail,
      tone: "neutral",
      ...(view?.title ? { title: view.title } : {})
    };
  };
  return [
    tile("spend-today", "Spend today", metrics?.spendToday, "since 00:00 UTC"),
    tile("spend-7d", "Spend (7 days)", metrics?.spend7d, "runs ended in 7 days")
  ];
}

export type RepoSpendRow = { repo: string; runs: string; cost: CostView };
export type CostlyRunRow = {
  key: string;
  href: string;
  /** "acme/widgets #12". */
  label: string;
  cost: CostView;
  when: string;
  whenTitle: string;
};
export type SpendView = { byRepo: RepoSpendRow[]; costliest: CostlyRunRow[] };

const repoRow = (row: Metrics["spendByRepo"][number]): RepoSpendRow => ({
  repo: row.repo,
  runs: `${formatCount(row.runs)} run${row.runs === 1 ? "" : "s"}`,
  cost: costView(row.cost)
});

/** The 7 days per repository and the most expensive runs, as the server ranked them. */
export function spendView(metrics: Metrics | null | undefined, now: number): SpendView {
  return {
    byRepo: (metrics?.spendByRepo ?? []).map(repoRow),
    costliest: (metrics?.costliestRuns ?? []).map((run) => ({
      key: `${run.session}:${run.submissionId}`,
      href: threadHref(run.session),
      label: `${run.repo} #${run.issueNumber}`,
      cost: costView(run.cost),
      when: formatRelativeTime(run.endedAt, now),
      whenTitle: `ended ${formatTimestamp(run.endedAt)}`
    }))
  };
}

/** What a repository's reporter runs today are held to, said where they are listed. */
export const REPORTER_SPEND_TITLE =
  "Reporter-tier runs (the issue's author asked for a reproduction without write access) that ended since 00:00 UTC, per repository: each repository's are held to REPORTER_DAILY_BUDGET a day. They are in the spend above too.";

/** Today's reporter-tier runs per repository, most expensive first as the server ranked them; empty before one ended today. */
export function reporterSpendView(metrics: Metrics | null | undefined): RepoSpendRow[] {
  return (metrics?.reporterSpendToday ?? []).map(repoRow);
}
