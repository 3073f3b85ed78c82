/**
 * Wire types of the command center, shared by the CommandCenterAgent, the
 * HTTP routes and the dashboard SPA: zod schemas, each with an inferred type
 * of the same name. Pure.
 */
import { z } from "zod";

export const THREAD_STATUSES = ["running", "done", "error"] as const;
export const threadStatusSchema = z.enum(THREAD_STATUSES);
export type ThreadStatus = z.infer<typeof threadStatusSchema>;

export const tokenUsageSchema = z.object({ input: z.number().int().min(0), output: z.number().int().min(0) });
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

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
  /** Running with no activity for longer than the stale window. */
  stale: z.boolean(),
  runCount: z.number().int().min(0),
  toolCalls: z.number().int().min(0),
  toolErrors: z.number().int().min(0),
  lastError: z.string().optional(),
  submissionId: z.string(),
  startedAt: z.number(),
  lastActivityAt: z.number(),
  /** Dispatch to the first tool call of the latest run, when there was one. */
  firstToolMs: z.number().optional(),
  /** Dispatch to the end of the latest run, when it ended. */
  durationMs: z.number().optional(),
  tokens: tokenUsageSchema.optional()
});
export type ThreadSummary = z.infer<typeof threadSummarySchema>;

export const metricsSchema = z.object({
  runs24h: z.number().int().min(0),
  /** Finished runs in the last 24 h that ended done, over all that finished; null with none finished. */
  successRate: z.number().min(0).max(1).nullable(),
  durationP50Ms: z.number().nullable(),
  durationP95Ms: z.number().nullable(),
  firstToolP50Ms: z.number().nullable(),
  firstToolP95Ms: z.number().nullable(),
  /** Tool errors over tool calls in the last 24 h; null with no calls. */
  toolErrorRate: z.number().min(0).max(1).nullable()
});
export type Metrics = z.infer<typeof metricsSchema>;

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

/** The most bytes the synced state may take, however many threads exist. */
export const MAX_BROADCAST_BYTES = 64 * 1024;
/** The most threads the synced state lists. */
export const MAX_RECENT_THREADS = 50;
