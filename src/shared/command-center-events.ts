/**
 * The events a ThinkAgent reports to the command center
 * (`CommandCenterAgent.record(event)`), their schemas and what `record`
 * answers. Each may arrive late, out of order or more than once; the
 * registry applies every one once (docs/command-center.md).
 */
import { z } from "zod";
import { RESULT_OUTCOMES } from "./outcomes";
import { parseRepo } from "./repo";
import {
  blockedRequestSchema,
  costSchema,
  ISSUE_MESSAGE_KINDS,
  ISSUE_MESSAGE_STATES,
  MAX_BLOCKED_ENTRIES,
  MAX_PRIVATE_SOURCES,
  privateSourceSchema,
  RUN_TIER_NAMES,
  tokenUsageSchema
} from "./command-center";

/**
 * Lifecycle events a ThinkAgent reports to the command center:
 * `CommandCenterAgent.record(event)`, from the agent's outbox until
 * acknowledged (src/command-center/report.ts). Each may arrive late, out of
 * order or more than once; the registry applies every one once (docs/command-center.md).
 * `at` is the reporter's clock in epoch milliseconds.
 */
const sessionField = z.string().min(1).max(256);
const submissionIdField = z.string().min(1).max(256);
const atField = z.number().finite().min(0);
/** `${PUBLIC_BASE_URL}/repro/[private/]<32 hex>/` is far shorter; a longer URL is refused, never cut. */
export const REPRODUCTION_URL_MAX_CHARS = 300;
/** A model id as a provider answers it; a run names at most MAX_SERVED_MODELS (src/run/run-ledger.ts keeps as many). */
const servedModelField = z.string().min(1).max(100);
export const MAX_SERVED_MODELS = 4;

export const dispatchedEventSchema = z.object({
  type: z.literal("dispatched"),
  session: sessionField,
  repo: z.string().min(3).max(256),
  issueNumber: z.number().int().positive(),
  issueTitle: z.string().optional(),
  requestedBy: z.object({ login: z.string().min(1).max(100), avatarUrl: z.string().optional() }).optional(),
  /** The whole instruction; the registry keeps only its first line, cut to 140 characters. */
  instruction: z.string(),
  submissionId: submissionIdField,
  /** Who continued the run from the dashboard (a continuation's only). */
  continuedBy: z.string().min(1).max(320).optional(),
  /** `reporter`: a reporter-tier run, whose spend REPORTER_DAILY_BUDGET holds per repository and day. */
  tier: z.enum(RUN_TIER_NAMES).optional(),
  at: atField
});
export type DispatchedEvent = z.infer<typeof dispatchedEventSchema>;

export const turnStartedEventSchema = z.object({
  type: z.literal("turn-started"),
  session: sessionField,
  submissionId: submissionIdField,
  at: atField
});
export type TurnStartedEvent = z.infer<typeof turnStartedEventSchema>;

export const toolEventSchema = z.object({
  type: z.literal("tool"),
  session: sessionField,
  submissionId: submissionIdField,
  tool: z.string().min(1).max(128),
  /** False when the tool threw (a non-zero exit code is a result, so `ok`). */
  ok: z.boolean(),
  /** The model's tool-call id: the key that makes a repeated report count once. */
  toolCallId: z.string().min(1).max(256).optional(),
  at: atField
});
export type ToolEvent = z.infer<typeof toolEventSchema>;

export const turnEndedEventSchema = z.object({
  type: z.literal("turn-ended"),
  session: sessionField,
  submissionId: submissionIdField,
  status: z.enum(["done", "error", "cancelled"]),
  /** What failed, for `error`; ignored otherwise. */
  error: z.string().optional(),
  tokens: tokenUsageSchema.optional(),
  cost: costSchema.optional(),
  /** The run ran on the scripted model. */
  scripted: z.boolean().optional(),
  /** The models that served its steps (src/run/budget.ts, servedModel), in the order they first did. */
  models: z.array(servedModelField).max(MAX_SERVED_MODELS).optional(),
  /** What the run reported with `report_result`, when it did. */
  outcome: z.enum(RESULT_OUTCOMES).optional(),
  /** Whether its pull request's proof held; absent when it needed none. */
  proven: z.boolean().optional(),
  at: atField
});
export type TurnEndedEvent = z.infer<typeof turnEndedEventSchema>;

/** One of the run's issue messages settled: posted, or given up after its retries. */
export const noticeEventSchema = z.object({
  type: z.literal("notice"),
  session: sessionField,
  submissionId: submissionIdField,
  kind: z.enum(ISSUE_MESSAGE_KINDS),
  state: z.enum(ISSUE_MESSAGE_STATES),
  /** The posted comment's page; the registry drops one too long to be a plain comment URL. */
  url: z.string().optional(),
  /** Why it failed, for `failed`; the registry cuts it. */
  error: z.string().optional(),
  at: atField
});
export type NoticeEvent = z.infer<typeof noticeEventSchema>;

/**
 * The run published a reproduction page (`publish_reproduction`). Each
 * publication has a new URL and replaces the issue's earlier page.
 */
export const reproductionEventSchema = z.object({
  type: z.literal("reproduction"),
  session: sessionField,
  submissionId: submissionIdField,
  /** The page on this Worker: `/repro/<32 hex>/`, or `/repro/private/<32 hex>/` behind Access. The registry keeps only http(s). */
  url: z.string().max(REPRODUCTION_URL_MAX_CHARS),
  at: atField
});
export type ReproductionEvent = z.infer<typeof reproductionEventSchema>;

/**
 * The egress gateway refused some of the run's requests: the run's whole
 * tally so far (a later event carries at least as many), sent when a new
 * host and method is refused and with the run's end.
 */
export const egressEventSchema = z.object({
  type: z.literal("egress"),
  session: sessionField,
  submissionId: submissionIdField,
  blocked: z.array(blockedRequestSchema).max(MAX_BLOCKED_ENTRIES),
  at: atField
});
export type EgressEvent = z.infer<typeof egressEventSchema>;

/**
 * The gateway attached a private registry's credential to the run's
 * requests: the hosts of every registry it did so far (sorted; a later event
 * holds at least these), sent when a new one joins and with the run's end.
 * An event of its own, so an egress event's tally and identity stay as they were.
 */
export const privateSourcesEventSchema = z.object({
  type: z.literal("private-sources"),
  session: sessionField,
  submissionId: submissionIdField,
  hosts: z.array(privateSourceSchema).min(1).max(MAX_PRIVATE_SOURCES),
  at: atField
});
export type PrivateSourcesEvent = z.infer<typeof privateSourcesEventSchema>;

/**
 * Think's chat recovery took over the run's interrupted turn (`recovering`),
 * or the resumed turn began (`resumed`). `recoveries` counts the run's
 * recoveries so far, this one included: it orders these events, so one that
 * arrives late never turns a resumed run back to recovering.
 */
export const recoveryEventSchema = z.object({
  type: z.literal("recovery"),
  session: sessionField,
  submissionId: submissionIdField,
  state: z.enum(["recovering", "resumed"]),
  recoveries: z.number().int().min(1).max(1_000),
  at: atField
});
export type RecoveryEvent = z.infer<typeof recoveryEventSchema>;

export const commandCenterEventSchema = z.discriminatedUnion("type", [
  dispatchedEventSchema,
  turnStartedEventSchema,
  toolEventSchema,
  turnEndedEventSchema,
  noticeEventSchema,
  reproductionEventSchema,
  recoveryEventSchema,
  egressEventSchema,
  privateSourcesEventSchema
]);
export type CommandCenterEvent = z.infer<typeof commandCenterEventSchema>;

/** How one of the App's pull requests stands: open (opened or reopened), merged, or closed without merging. */
export const PULL_REQUEST_STATES = ["open", "merged", "closed"] as const;
export type PullRequestState = (typeof PULL_REQUEST_STATES)[number];

/**
 * One of the App's own pull requests changed on GitHub, as the webhook app
 * read its `pull_request` delivery (opened, reopened, closed). Not a run's
 * event: `recordPullRequest` keeps it per repository, the latest state by
 * `at`, a merge for good (docs/command-center.md, "Each repository's record").
 */
export const pullRequestEventSchema = z.strictObject({
  type: z.literal("pull-request"),
  repo: z.string().superRefine((value, ctx) => {
    const parsed = parseRepo(value);
    if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.reason });
  }),
  number: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  /** The issue its branch is for (`agent-think/issue-<n>`). */
  issueNumber: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  state: z.enum(PULL_REQUEST_STATES),
  /** When it was opened (GitHub's `created_at`). */
  openedAt: atField,
  /** When it took this state: `merged_at` or `closed_at`, or `updated_at` for an open one. */
  at: atField
});
export type PullRequestEvent = z.infer<typeof pullRequestEventSchema>;

/**
 * What `record` did: `applied` when the thread changed. Otherwise why not:
 * a repeat, an event of a run that is not the thread's current one (kept for
 * that run's metrics only), or a malformed event.
 */
export type RecordResult =
  | { applied: true }
  | { applied: false; reason: "duplicate" | "not_current" | "invalid" };

/**
 * What `AgentThink.recordPullRequest` answers: `record`'s answer for the
 * pull request, or why nothing was written before the command center was
 * asked (the field that did not parse; a repository outside ALLOWED_REPOS).
 */
export type PullRequestRecordResult =
  | RecordResult
  | { applied: false; reason: "invalid"; field: string }
  | { applied: false; reason: "repo_not_allowed" };
