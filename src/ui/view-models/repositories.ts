/**
 * The repository view: `GET /api/repositories` read without zod (a record
 * that does not read is dropped and counted), one row per repository for
 * `/repositories`, and one repository's figures and outcomes for
 * `/repositories/:owner/:name`, each figure written as the dashboard writes
 * it (a floor "≥ $…", an unknown "unknown", nothing yet "—"). Pure.
 * docs/dashboard.md, "The repository view".
 */
import { OUTCOME_LABELS, isResultOutcome } from "../../shared/outcomes";
import type { RepositoryRecord, RepositoryRecords } from "../../shared/repository-records";
import { costView, formatCount, formatDuration, formatPercent, formatRelativeTime, formatTimestamp, NO_VALUE, type CostView } from "./format";
import { repositoryHref } from "./repository-href";
import { readCost, type WireRead } from "./wire";

export { repositoryHref };

export const REPOSITORIES_PATH = "/api/repositories";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const isCount = (value: unknown): value is number => isNumber(value) && Number.isInteger(value) && value >= 0;
const isRate = (value: unknown) => value === null || (isNumber(value) && value >= 0 && value <= 1);
const nullableCost = (value: unknown) => (value === null ? null : readCost(value));

function readRecord(value: unknown): RepositoryRecord | null {
  if (!isRecord(value) || typeof value.repo !== "string" || !isCount(value.runs) || !isCount(value.triaged) || !isRate(value.reproductionRate)) return null;
  const { statuses, pullRequests } = value;
  if (!isRecord(statuses) || ![statuses.running, statuses.done, statuses.error, statuses.cancelled].every(isCount)) return null;
  if (!isRecord(pullRequests) || ![pullRequests.opened, pullRequests.merged, pullRequests.closedUnmerged].every(isCount)) return null;
  const cost = readCost(value.cost);
  const costPerRun = nullableCost(value.costPerRun);
  const costPerMergedPullRequest = nullableCost(value.costPerMergedPullRequest);
  if (cost === null || (value.costPerRun !== null && costPerRun === null) || (value.costPerMergedPullRequest !== null && costPerMergedPullRequest === null)) return null;
  if (!(value.firstResponseMedianMs === null || (isNumber(value.firstResponseMedianMs) && value.firstResponseMedianMs >= 0))) return null;
  if (!(value.lastRunAt === null || isNumber(value.lastRunAt))) return null;
  const outcomes = Array.isArray(value.outcomes)
    ? value.outcomes.filter((entry): entry is { outcome: string; runs: number } => isRecord(entry) && typeof entry.outcome === "string" && isCount(entry.runs))
    : [];
  return {
    repo: value.repo,
    runs: value.runs,
    statuses: { running: statuses.running as number, done: statuses.done as number, error: statuses.error as number, cancelled: statuses.cancelled as number },
    outcomes: outcomes.map((entry) => ({ outcome: entry.outcome, runs: entry.runs })),
    triaged: value.triaged,
    reproductionRate: value.reproductionRate as number | null,
    pullRequests: { opened: pullRequests.opened as number, merged: pullRequests.merged as number, closedUnmerged: pullRequests.closedUnmerged as number },
    firstResponseMedianMs: value.firstResponseMedianMs as number | null,
    cost,
    costPerRun,
    costPerMergedPullRequest,
    lastRunAt: value.lastRunAt as number | null
  };
}

/** The API's body; a body without a list is refused. */
export function readRepositoryRecords(body: unknown): WireRead<RepositoryRecords> {
  if (!isRecord(body) || !Array.isArray(body.repositories) || !isCount(body.windowDays) || !isNumber(body.generatedAt)) {
    return { ok: false, reason: "not a list of repositories" };
  }
  const read = body.repositories.map(readRecord);
  const repositories = read.filter((record): record is RepositoryRecord => record !== null);
  return { ok: true, value: { windowDays: body.windowDays, generatedAt: body.generatedAt, repositories }, dropped: read.length - repositories.length };
}

/** The record of `owner/name`, whatever its case. */
export function findRepository(records: RepositoryRecords, owner: string, name: string): RepositoryRecord | undefined {
  const wanted = `${owner}/${name}`.toLowerCase();
  return records.repositories.find((record) => record.repo.toLowerCase() === wanted);
}

/** One figure as a table cell: its text, and a tooltip when the text needs one. */
export type FigureCell = { text: string; title?: string; kind?: CostView["kind"] };

const count = (value: number): FigureCell => ({ text: formatCount(value) });
const cost = (value: RepositoryRecord["cost"] | null): FigureCell => {
  if (value === null) return { text: NO_VALUE };
  const view = costView(value);
  return { text: view.text, kind: view.kind, ...(view.title ? { title: view.title } : {}) };
};

function reproductionRate(record: RepositoryRecord): FigureCell {
  const reproduced = record.outcomes.find((entry) => entry.outcome === "reproduced")?.runs ?? 0;
  return {
    text: formatPercent(record.reproductionRate),
    title: record.triaged === 0 ? "no run has ended with a verdict on its report yet" : `${formatCount(reproduced)} reproduced of ${formatCount(record.triaged)} runs that ended with a verdict on the report`
  };
}

export type RepositoryRowView = {
  repo: string;
  href: string;
  runs: FigureCell;
  reproductionRate: FigureCell;
  opened: FigureCell;
  merged: FigureCell;
  closedUnmerged: FigureCell;
  firstResponse: FigureCell;
  costPerRun: FigureCell;
  costPerMergedPullRequest: FigureCell;
};

/** `/repositories`: one row per repository, as the server ordered them (the most runs first). */
export function repositoryRows(records: RepositoryRecords): RepositoryRowView[] {
  return records.repositories.map((record) => ({
    repo: record.repo,
    href: repositoryHref(record.repo),
    runs: count(record.runs),
    reproductionRate: reproductionRate(record),
    opened: count(record.pullRequests.opened),
    merged: count(record.pullRequests.merged),
    closedUnmerged: count(record.pullRequests.closedUnmerged),
    firstResponse: { text: formatDuration(record.firstResponseMedianMs) },
    costPerRun: cost(record.costPerRun),
    costPerMergedPullRequest: cost(record.costPerMergedPullRequest)
  }));
}

export type FigureRow = { id: string; label: string; value: FigureCell; detail?: string };
export type OutcomeRow = { outcome: string; label: string; runs: string };
export type RepositoryDetailView = { repo: string; figures: FigureRow[]; outcomes: OutcomeRow[] };

/** An outcome in words; one this build does not know by its name. */
export function outcomeWords(outcome: string): string {
  return isResultOutcome(outcome) ? OUTCOME_LABELS[outcome] : outcome;
}

/** `/repositories/:owner/:name`: the repository's figures, then its runs by outcome. */
export function repositoryDetail(record: RepositoryRecord, now: number): RepositoryDetailView {
  const { statuses } = record;
  const standing = [
    statuses.running > 0 ? `${formatCount(statuses.running)} running` : "",
    `${formatCount(statuses.done)} done`,
    `${formatCount(statuses.error)} failed`,
    `${formatCount(statuses.cancelled)} cancelled`
  ].filter(Boolean);
  return {
    repo: record.repo,
    figures: [
      { id: "runs", label: "Runs", value: count(record.runs), detail: standing.join(" · ") },
      { id: "reproduction-rate", label: "Reproduction rate", value: reproductionRate(record), detail: `of ${formatCount(record.triaged)} runs with a verdict` },
      { id: "pull-requests-opened", label: "Pull requests opened", value: count(record.pullRequests.opened) },
      { id: "pull-requests-merged", label: "Pull requests merged", value: count(record.pullRequests.merged) },
      { id: "pull-requests-closed", label: "Pull requests closed unmerged", value: count(record.pullRequests.closedUnmerged) },
      { id: "first-response", label: "Median time to first response", value: { text: formatDuration(record.firstResponseMedianMs) }, detail: "dispatch to the run's first message on its issue" },
      { id: "cost", label: "Cost of runs", value: cost(record.cost) },
      { id: "cost-per-run", label: "Cost per run", value: cost(record.costPerRun) },
      { id: "cost-per-merged", label: "Cost per merged pull request", value: cost(record.costPerMergedPullRequest) },
      {
        id: "last-run",
        label: "Latest run",
        value: record.lastRunAt === null ? { text: NO_VALUE } : { text: formatRelativeTime(record.lastRunAt, now), title: formatTimestamp(record.lastRunAt) }
      }
    ],
    outcomes: record.outcomes.map((entry) => ({ outcome: entry.outcome, label: outcomeWords(entry.outcome), runs: formatCount(entry.runs) }))
  };
}
