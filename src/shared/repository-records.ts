/**
 * Each repository's record as the command center keeps it and
 * `GET /api/repositories` answers it: its runs and their outcomes, its
 * reproduction rate, the App's pull requests opened, merged and closed
 * unmerged, the median time to a run's first response on its issue, and
 * what runs and merged pull requests cost. Zod schemas with inferred types,
 * shared by the command center, the route and the dashboard. Definitions:
 * docs/command-center.md, "Each repository's record".
 */
import { z } from "zod";
import { costSchema } from "./command-center";
import type { ResultOutcome } from "./outcomes";

/** How far back a record reaches, and how long its rows are kept: 90 days. */
export const REPOSITORY_RECORD_DAYS = 90;

/**
 * The outcomes that answer a report (a verdict on it, or a question back):
 * the reproduction rate is `reproduced` over the runs that ended with one of them.
 */
export const TRIAGE_OUTCOMES: readonly ResultOutcome[] = ["reproduced", "not-reproduced", "not-a-bug", "answered", "fixed-upstream", "needs-info"];

const count = z.number().int().min(0);

export const repositoryRecordSchema = z.object({
  /** `owner/name`, as its latest run spelled it (GitHub names compare without case). */
  repo: z.string(),
  /** Runs dispatched in the window. */
  runs: count,
  /** Of those, how they stand: still going, or how they ended. */
  statuses: z.object({ running: count, done: count, error: count, cancelled: count }),
  /** What the ended runs reported with `report_result`, by outcome, most frequent first; any outcome name, so a new one shows as it is. */
  outcomes: z.array(z.object({ outcome: z.string(), runs: count })),
  /** Runs that ended with a triage outcome (TRIAGE_OUTCOMES): the reproduction rate's denominator. */
  triaged: count,
  /** `reproduced` over `triaged`; null when none. */
  reproductionRate: z.number().min(0).max(1).nullable(),
  /** The App's pull requests, from GitHub's `pull_request` deliveries: opened in the window, merged in it, closed without merging in it. */
  pullRequests: z.object({ opened: count, merged: count, closedUnmerged: count }),
  /** Dispatch to the first message the run posted on its issue (the 🚀, else its closing or stale comment), the median; null when none. */
  firstResponseMedianMs: z.number().min(0).nullable(),
  /** What the ended runs cost, together (a floor when one did not report its cost). */
  cost: costSchema,
  /** `cost` over the ended runs; null before one ended. */
  costPerRun: costSchema.nullable(),
  /** `cost` over the pull requests merged; null before one was. */
  costPerMergedPullRequest: costSchema.nullable(),
  /** When its latest run was dispatched. */
  lastRunAt: z.number().nullable()
});
export type RepositoryRecord = z.infer<typeof repositoryRecordSchema>;

/** GET /api/repositories → 200: every repository with a run or a pull request in the window, the most runs first. */
export const repositoryRecordsSchema = z.object({
  windowDays: z.number().int().positive(),
  generatedAt: z.number(),
  repositories: z.array(repositoryRecordSchema)
});
export type RepositoryRecords = z.infer<typeof repositoryRecordsSchema>;
