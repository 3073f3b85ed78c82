/**
 * Wire types of the command center, shared by the CommandCenterAgent, the
 * HTTP routes and the dashboard SPA: zod schemas, each with an inferred type
 * of the same name. Pure.
 */
import { z } from "zod";
import { RESULT_OUTCOMES } from "./outcomes";
import { THREAD_STATUSES, type ThreadStatus } from "./thread-status";

/** The dispatch's tiers (shared/dispatch.ts RUN_TIERS), named again here so the dashboard's bundle does not take the dispatch schema. */
export const RUN_TIER_NAMES = ["reporter"] as const;

export { COMMAND_CENTER_NAME } from "./command-center-name";

export { THREAD_STATUSES, isActiveStatus, type ActiveStatus, type EndedStatus, type ThreadStatus } from "./thread-status";
export const threadStatusSchema = z.enum(THREAD_STATUSES);

export const tokenUsageSchema = z.object({ input: z.number().int().min(0), output: z.number().int().min(0) });
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

/**
 * What runs cost in US dollars (src/shared/pricing.ts): `usd` sums the steps
 * whose usage the provider reported and whose model has a price;
 * `complete` is false when any step had neither, and then `usd` is a floor,
 * shown as such, never as the whole (an unknown is never zero).
 */
export const costSchema = z.object({ usd: z.number().min(0), complete: z.boolean() });
export type Cost = z.infer<typeof costSchema>;

/** The messages a run posts on its issue (docs/reporting.md): 🚀, the one closing comment, the stale notice. */
export const ISSUE_MESSAGE_KINDS = ["rocket", "closing", "stale"] as const;
export type IssueMessageKind = (typeof ISSUE_MESSAGE_KINDS)[number];
/** How a message settled: posted, or given up (pending ones are not reported). */
export const ISSUE_MESSAGE_STATES = ["sent", "failed"] as const;

/** One of the current run's messages, once it settled. */
export const issueMessageSchema = z.object({
  state: z.enum(ISSUE_MESSAGE_STATES),
  /** The posted comment's page (comments only). */
  url: z.string().optional(),
  /** Why it could not be posted, cut short. */
  error: z.string().optional()
});
export type IssueMessage = z.infer<typeof issueMessageSchema>;

export const issueMessagesSchema = z.object({
  rocket: issueMessageSchema.optional(),
  closing: issueMessageSchema.optional(),
  stale: issueMessageSchema.optional()
});
export type IssueMessages = z.infer<typeof issueMessagesSchema>;

/**
 * Requests the egress gateway refused a run's sandbox, per host and method
 * (src/egress/gateway.ts): at most MAX_BLOCKED_ENTRIES, most frequent first.
 */
export const blockedRequestSchema = z.object({
  host: z.string().min(1).max(253),
  method: z.string().min(1).max(16),
  count: z.number().int().min(1)
});
export type BlockedRequest = z.infer<typeof blockedRequestSchema>;
export const MAX_BLOCKED_ENTRIES = 20;

/**
 * A private registry a run's sandbox was given its credential for (the
 * repository's `registries:`, src/egress/registry-grants.ts): its host only,
 * never a path or the secret's name. A run names at most MAX_PRIVATE_SOURCES.
 */
export const privateSourceSchema = z.string().min(1).max(253);
export const MAX_PRIVATE_SOURCES = 20;

/** `${web}/<owner>/<name>/issues/<n>#issuecomment-<id>` is far shorter; a longer URL is refused, never cut. */
export const CONTINUATION_COMMENT_URL_MAX_CHARS = 300;

/**
 * A continuation a maintainer asked for on GitHub (`@agent-think continue`):
 * their login and the page of the comment that asked (the webhook app sends
 * both; a local `npm run dispatch` may send neither). A dashboard Continue
 * is `continuedBy` instead.
 */
export const gitHubContinuationSchema = z.strictObject({
  login: z.string().min(1).max(100).optional(),
  commentUrl: z.url({ protocol: /^https?$/ }).max(CONTINUATION_COMMENT_URL_MAX_CHARS).optional()
});
export type GitHubContinuation = z.infer<typeof gitHubContinuationSchema>;

/** One thread (one issue's session) as the dashboard lists it. */
export const threadSummarySchema = z.object({
  session: z.string(),
  repo: z.string(),
  issueNumber: z.number().int().positive(),
  issueTitle: z.string().optional(),
  requestedBy: z.object({ login: z.string(), avatarUrl: z.string().optional() }).optional(),
  /** The instruction, cut to a line of at most 140 characters. */
  instructionSummary: z.string(),
  status: threadStatusSchema,
  /**
   * Active with no activity for longer than the stale window, and its agent,
   * asked, did not say it had ended (docs/command-center.md, reconciliation).
   */
  stale: z.boolean(),
  runCount: z.number().int().min(0),
  toolCalls: z.number().int().min(0),
  toolErrors: z.number().int().min(0),
  lastError: z.string().optional(),
  submissionId: z.string(),
  /** When the latest run was dispatched. */
  startedAt: z.number(),
  /** When the latest run's turn began (it may wait behind another turn first). */
  turnStartedAt: z.number().optional(),
  lastActivityAt: z.number(),
  /** Dispatch to the first tool call of the latest run, when there was one. */
  firstToolMs: z.number().optional(),
  /** Dispatch to the end of the latest run, when it ended. */
  durationMs: z.number().optional(),
  tokens: tokenUsageSchema.optional(),
  /** What every run of the thread cost so far; absent until a run reports usage. */
  cost: costSchema.optional(),
  /** Who continued the latest run from the dashboard (the Access identity's email, or "local operator"). */
  continuedBy: z.string().optional(),
  /** Who continued the latest run from GitHub, and the comment that asked. */
  continuedFromGitHub: gitHubContinuationSchema.optional(),
  /** Runs in a row that ended in error, the latest included ("failed again (2 failures)"); absent when the latest did not fail. */
  failures: z.number().int().min(1).optional(),
  /** How many times Think's chat recovery resumed the latest run's turn; absent when never. */
  recoveries: z.number().int().min(1).optional(),
  /** What the latest run posted on its issue, or could not, by kind; absent until one settles. */
  issueMessages: issueMessagesSchema.optional(),
  /**
   * The issue's latest published reproduction page (an http(s) URL of at most
   * REPRODUCTION_URL_MAX_CHARS). Kept across runs: a page stays published
   * until a later publication replaces it.
   */
  reproductionUrl: z.string().optional(),
  /**
   * Requests the egress gateway refused the latest run, summed over its
   * tally (the runs carry the tally itself); absent when none were. On the
   * summary so a thread page reads its runs again when it grows.
   */
  blockedRequests: z.number().int().min(1).optional()
});
export type ThreadSummary = z.infer<typeof threadSummarySchema>;

export const metricsSchema = z.object({
  runs24h: z.number().int().min(0),
  /** Runs that ended in the last 24 h done, over those that ended done or error (cancelled left out); null with none. */
  successRate: z.number().min(0).max(1).nullable(),
  durationP50Ms: z.number().nullable(),
  durationP95Ms: z.number().nullable(),
  firstToolP50Ms: z.number().nullable(),
  firstToolP95Ms: z.number().nullable(),
  /** Tool errors over tool calls in the last 24 h; null with no calls. */
  toolErrorRate: z.number().min(0).max(1).nullable(),
  /** Runs being recovered right now (their turn was interrupted and has not resumed). */
  recovering: z.number().int().min(0),
  /** Turn recoveries of the runs dispatched in the last 24 h. */
  recoveries24h: z.number().int().min(0),
  /** What the runs that ended since midnight UTC cost. */
  spendToday: costSchema,
  /** What the runs that ended in the last 7 days cost. */
  spend7d: costSchema,
  /** The same 7 days per repository, most expensive first (at most 5). */
  spendByRepo: z.array(z.object({ repo: z.string(), runs: z.number().int().min(0), cost: costSchema })),
  /** The most expensive runs of those 7 days (at most 5), most expensive first. */
  costliestRuns: z.array(
    z.object({ session: z.string(), repo: z.string(), issueNumber: z.number().int().positive(), submissionId: z.string(), endedAt: z.number(), cost: costSchema })
  ),
  /** What reporter-tier runs that ended since midnight UTC cost, per repository (REPORTER_DAILY_BUDGET's figure; at most 5, most expensive first); absent before one did. */
  reporterSpendToday: z.array(z.object({ repo: z.string(), runs: z.number().int().min(0), cost: costSchema })).optional()
});
export type Metrics = z.infer<typeof metricsSchema>;

/** One run of a thread, as its page lists it (GET /api/command-center/threads/:session), newest first. */
export const runSummarySchema = z.object({
  submissionId: z.string(),
  status: z.enum(["queued", "running", "recovering", "done", "error", "cancelled"]),
  dispatchedAt: z.number().optional(),
  turnStartedAt: z.number().optional(),
  endedAt: z.number().optional(),
  error: z.string().optional(),
  tokens: tokenUsageSchema.optional(),
  cost: costSchema.optional(),
  toolCalls: z.number().int().min(0),
  /** Who continued this run from the dashboard; absent for a run a comment started. */
  continuedBy: z.string().optional(),
  /** Who continued this run from GitHub (`continue`), and the comment that asked. */
  continuedFromGitHub: gitHubContinuationSchema.optional(),
  /** The run ran on the offline scripted model: a demonstration, no model ran. */
  scripted: z.boolean().optional(),
  /** `reporter`: the issue's author asked for it under the reporter tier (read-only); absent, a maintainer's run. */
  tier: z.enum(RUN_TIER_NAMES).optional(),
  /** The models that served its steps, as the providers named them, in the order they first did; absent until it ended. */
  models: z.array(z.string()).optional(),
  /** What the run reported with `report_result`, when it did. */
  outcome: z.enum(RESULT_OUTCOMES).optional(),
  /** Its pull request's proof (src/run/fix-proof.ts): true when the re-run check failed before and passed after; absent when none was needed. */
  proven: z.boolean().optional(),
  /** The reproduction page this run published last. */
  reproductionUrl: z.string().optional(),
  /** What the egress gateway refused the run, per host and method, most frequent first; absent when nothing was. */
  blocked: z.array(blockedRequestSchema).max(MAX_BLOCKED_ENTRIES).optional(),
  /** The private registries whose credential the run's sandbox was given, by host, sorted; absent when none. */
  privateSources: z.array(privateSourceSchema).max(MAX_PRIVATE_SOURCES).optional()
});
export type RunSummary = z.infer<typeof runSummarySchema>;

/** GET /api/command-center/threads/:session → 200; an unknown session is 404. */
export const threadDetailSchema = z.object({ thread: threadSummarySchema, runs: z.array(runSummarySchema) });
export type ThreadDetail = z.infer<typeof threadDetailSchema>;

/** GET /api/command-center: first paint and polling, paged by `cursor`. */
export const snapshotSchema = z.object({
  metrics: metricsSchema,
  threads: z.array(threadSummarySchema),
  total: z.number().int().min(0),
  nextCursor: z.string().optional(),
  generatedAt: z.number()
});
export type Snapshot = z.infer<typeof snapshotSchema>;

/** The state synced live to dashboards: metrics and the most recent threads, bounded in bytes. */
export const commandCenterStateSchema = z.object({
  metrics: metricsSchema,
  recent: z.array(threadSummarySchema),
  total: z.number().int().min(0),
  updatedAt: z.number()
});
export type CommandCenterState = z.infer<typeof commandCenterStateSchema>;

/** POST /api/command-center/continue/:session → 202. */
export const continueResultSchema = z.object({ session: z.string(), submissionId: z.string() });
export type ContinueResult = z.infer<typeof continueResultSchema>;

/** What Continue answers: the continued run, or why there was nothing to continue. */
export type ContinueOutcome =
  | { ok: true; result: ContinueResult }
  | { ok: false; reason: "not_found" | "not_claimable" };

/** The most bytes the synced state may take, however many threads exist. */
export const MAX_BROADCAST_BYTES = 64 * 1024;
/** The most threads the synced state lists. */
export const MAX_RECENT_THREADS = 50;

/** `CommandCenterAgent.claimForContinuation`. */
export type ClaimResult =
  | { ok: true; thread: ThreadSummary }
  | { ok: false; reason: "not_found" }
  /** `status`: the thread's, which says why (still going, or ended done or cancelled). */
  | { ok: false; reason: "not_claimable"; status: ThreadStatus };

/** `CommandCenterAgent.snapshot` and `GET /api/command-center`: newest activity first. */
export type SnapshotOptions = { cursor?: string; limit?: number };
export const DEFAULT_SNAPSHOT_LIMIT = 50;
export const MAX_SNAPSHOT_LIMIT = 200;
