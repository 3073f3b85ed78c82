/**
 * Each repository's figures from the rows repository-book.ts keeps: runs by
 * status and by outcome (any outcome name, so a new one counts as it is),
 * the reproduction rate, the App's pull requests, the median time to a
 * run's first response, and what runs and merged pull requests cost. Pure:
 * `now` is a parameter. The definitions, kept in step with this module:
 * docs/command-center.md, "Each repository's record".
 */
import type { Cost } from "../shared/command-center";
import { REPOSITORY_RECORD_DAYS, TRIAGE_OUTCOMES, type RepositoryRecord, type RepositoryRecords } from "../shared/repository-records";
import { addCost, NO_COST } from "../shared/pricing";
import { percentile } from "./metrics";

export const REPOSITORY_RECORD_MS = REPOSITORY_RECORD_DAYS * 24 * 60 * 60 * 1000;

/** One dispatched run, as the book keeps it. `status` is set once it ended. */
export type RepoRunRow = {
  repo: string;
  dispatchedAt: number;
  endedAt?: number;
  status?: string;
  outcome?: string;
  cost?: Cost;
  firstMessageAt?: number;
};

/** One of the App's pull requests, its latest state. */
export type PullRequestRow = { repo: string; number: number; state: string; openedAt: number; at: number };

type Tally = {
  repo: string;
  /** When the spelling in `repo` was seen: the latest run's wins. */
  spelledAt: number;
  runs: RepoRunRow[];
  pulls: PullRequestRow[];
};

/** Every repository with a run dispatched, or a pull request opened or changed, in the window; the most runs first. */
export function repositoryRecords(runs: readonly RepoRunRow[], pulls: readonly PullRequestRow[], now: number): RepositoryRecords {
  const since = now - REPOSITORY_RECORD_MS;
  const tallies = new Map<string, Tally>();
  const tally = (repo: string, at: number): Tally => {
    const key = repo.toLowerCase();
    const known = tallies.get(key) ?? { repo, spelledAt: -Infinity, runs: [], pulls: [] };
    if (at >= known.spelledAt) Object.assign(known, { repo, spelledAt: at });
    tallies.set(key, known);
    return known;
  };
  for (const run of runs) if (run.dispatchedAt >= since) tally(run.repo, run.dispatchedAt).runs.push(run);
  // A pull request's spelling is its webhook's, older than any run's it would replace: only a repository with no run takes it.
  for (const pull of pulls) if (pull.at >= since || pull.openedAt >= since) tally(pull.repo, -Infinity).pulls.push(pull);
  const repositories = [...tallies.values()].map((entry) => repositoryRecord(entry, since));
  repositories.sort((a, b) => b.runs - a.runs || (b.lastRunAt ?? 0) - (a.lastRunAt ?? 0) || (a.repo < b.repo ? -1 : a.repo > b.repo ? 1 : 0));
  return { windowDays: REPOSITORY_RECORD_DAYS, generatedAt: now, repositories };
}

function repositoryRecord(entry: Tally, since: number): RepositoryRecord {
  const ended = entry.runs.filter((run) => run.endedAt !== undefined && run.status !== undefined);
  const statusCount = (status: string) => ended.filter((run) => run.status === status).length;
  const outcomes = new Map<string, number>();
  for (const run of ended) if (run.outcome !== undefined) outcomes.set(run.outcome, (outcomes.get(run.outcome) ?? 0) + 1);
  const triaged = ended.filter((run) => run.outcome !== undefined && (TRIAGE_OUTCOMES as readonly string[]).includes(run.outcome)).length;
  const reproduced = outcomes.get("reproduced") ?? 0;
  const merged = entry.pulls.filter((pull) => pull.state === "merged" && pull.at >= since).length;
  // A run that reported no cost adds an unknown: the total becomes a floor, never a smaller whole.
  const cost = ended.reduce<Cost>((sum, run) => addCost(sum, run.cost ?? { usd: 0, complete: false }), NO_COST);
  const firstResponses = entry.runs.flatMap((run) => (run.firstMessageAt === undefined ? [] : [Math.max(0, run.firstMessageAt - run.dispatchedAt)]));
  return {
    repo: entry.repo,
    runs: entry.runs.length,
    statuses: { running: entry.runs.length - ended.length, done: statusCount("done"), error: statusCount("error"), cancelled: statusCount("cancelled") },
    outcomes: [...outcomes].map(([outcome, runs]) => ({ outcome, runs })).sort((a, b) => b.runs - a.runs || (a.outcome < b.outcome ? -1 : 1)),
    triaged,
    reproductionRate: triaged === 0 ? null : reproduced / triaged,
    pullRequests: {
      opened: entry.pulls.filter((pull) => pull.openedAt >= since).length,
      merged,
      closedUnmerged: entry.pulls.filter((pull) => pull.state === "closed" && pull.at >= since).length
    },
    firstResponseMedianMs: percentile(firstResponses, 50),
    cost,
    costPerRun: ended.length === 0 ? null : share(cost, ended.length),
    costPerMergedPullRequest: merged === 0 ? null : share(cost, merged),
    lastRunAt: entry.runs.reduce<number | null>((latest, run) => (latest === null || run.dispatchedAt > latest ? run.dispatchedAt : latest), null)
  };
}

/** A cost split `parts` ways; a floor stays a floor. */
function share(cost: Cost, parts: number): Cost {
  return { usd: cost.usd / parts, complete: cost.complete };
}
