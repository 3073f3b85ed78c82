/**
 * Reading the command center's wire shapes (snapshot, live state, a
 * thread's detail) in the browser without zod, which would put its whole
 * runtime on the dashboard's first paint. Lenient where it helps an
 * operator: a row or run that does not read is dropped and counted, an
 * extra that does not read is left out, spend that does not read is
 * unknown (never $0.00), and metrics a build across a deploy lacks read as
 * 0; a body without metrics or a thread list is refused. Pure. Each rule:
 * docs/dashboard.md, "Reading the wire".
 */
import type {
  BlockedRequest,
  CommandCenterState,
  Cost,
  GitHubContinuation,
  RunSummary,
  ThreadDetail,
  IssueMessage,
  IssueMessageKind,
  IssueMessages,
  Metrics,
  Snapshot,
  ThreadStatus,
  ThreadSummary
} from "../../shared/command-center";
import { isResultOutcome } from "../../shared/outcomes";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
const isRate = (value: unknown) => value === null || (isNumber(value) && value >= 0 && value <= 1);
const isNullableNumber = (value: unknown) => value === null || isNumber(value);
const optional = (value: unknown, check: (value: unknown) => boolean) => value === undefined || check(value);
const isString = (value: unknown): value is string => typeof value === "string";
const isCount = (value: unknown): value is number => isNumber(value) && Number.isInteger(value) && value >= 0;
/** A lenient count: absent reads as 0 (an older server), anything else must be a count. */
const readCount = (value: unknown): number | null => (value === undefined ? 0 : isCount(value) ? value : null);
/** Every thread status; a Record, so a status added to the shared schema fails to compile until it is listed. */
const STATUSES: Record<ThreadStatus, true> = { running: true, recovering: true, done: true, error: true, cancelled: true };
const MESSAGE_KINDS: Record<IssueMessageKind, true> = { rocket: true, closing: true, stale: true };
const MESSAGE_STATES: Record<IssueMessage["state"], true> = { sent: true, failed: true };

export function readMetrics(value: unknown): Metrics | null {
  if (!isRecord(value)) return null;
  const ok =
    isNumber(value.runs24h) &&
    isRate(value.successRate) &&
    isNullableNumber(value.durationP50Ms) &&
    isNullableNumber(value.durationP95Ms) &&
    isNullableNumber(value.firstToolP50Ms) &&
    isNullableNumber(value.firstToolP95Ms) &&
    isRate(value.toolErrorRate);
  const recovering = readCount(value.recovering);
  const recoveries24h = readCount(value.recoveries24h);
  if (!ok || recovering === null || recoveries24h === null) return null;
  return {
    ...(value as Metrics),
    recovering,
    recoveries24h,
    // Spend is extra: what does not read is unknown (never $0.00), the metrics kept.
    spendToday: readCost(value.spendToday) ?? UNKNOWN_COST,
    spend7d: readCost(value.spend7d) ?? UNKNOWN_COST,
    spendByRepo: readList(value.spendByRepo, readRepoSpend),
    costliestRuns: readList(value.costliestRuns, readCostlyRun),
    // Absent before a reporter run ended today, and from a server older than the field.
    ...(value.reporterSpendToday === undefined ? {} : { reporterSpendToday: readList(value.reporterSpendToday, readRepoSpend) })
  };
}

/** A cost nothing was reported for: shown as "unknown". */
export const UNKNOWN_COST: Cost = { usd: 0, complete: false };

export function readCost(value: unknown): Cost | null {
  return isRecord(value) && isNumber(value.usd) && value.usd >= 0 && typeof value.complete === "boolean"
    ? { usd: value.usd, complete: value.complete }
    : null;
}

function readList<T>(value: unknown, read: (item: unknown) => T | null): T[] {
  return Array.isArray(value) ? value.map(read).filter((item): item is T => item !== null) : [];
}

function readRepoSpend(value: unknown): Metrics["spendByRepo"][number] | null {
  if (!isRecord(value) || !isString(value.repo) || !isCount(value.runs)) return null;
  const cost = readCost(value.cost);
  return cost ? { repo: value.repo, runs: value.runs, cost } : null;
}

function readCostlyRun(value: unknown): Metrics["costliestRuns"][number] | null {
  if (
    !isRecord(value) ||
    !isString(value.session) ||
    !isString(value.repo) ||
    !isCount(value.issueNumber) ||
    !isString(value.submissionId) ||
    !isNumber(value.endedAt)
  ) {
    return null;
  }
  const cost = readCost(value.cost);
  return cost
    ? { session: value.session, repo: value.repo, issueNumber: value.issueNumber, submissionId: value.submissionId, endedAt: value.endedAt, cost }
    : null;
}

/** A thread's recovery count: absent when never, else at least 1. */
const isRecoveries = (value: unknown): value is number => isCount(value) && value >= 1;

export function readThread(value: unknown): ThreadSummary | null {
  if (!isRecord(value)) return null;
  const ok =
    isString(value.session) &&
    isString(value.repo) &&
    isNumber(value.issueNumber) &&
    isString(value.instructionSummary) &&
    isString(value.status) &&
    Object.hasOwn(STATUSES, value.status) &&
    typeof value.stale === "boolean" &&
    isNumber(value.runCount) &&
    isNumber(value.toolCalls) &&
    isNumber(value.toolErrors) &&
    isString(value.submissionId) &&
    isNumber(value.startedAt) &&
    isNumber(value.lastActivityAt) &&
    optional(value.issueTitle, isString) &&
    optional(value.lastError, isString) &&
    optional(value.firstToolMs, isNumber) &&
    optional(value.durationMs, isNumber) &&
    optional(value.requestedBy, (by) => isRecord(by) && isString(by.login)) &&
    optional(value.tokens, (tokens) => isRecord(tokens) && isNumber(tokens.input) && isNumber(tokens.output));
  if (!ok) return null;
  const extrasRead =
    value.issueMessages === undefined &&
    optional(value.reproductionUrl, isString) &&
    optional(value.recoveries, isRecoveries) &&
    optional(value.cost, (cost) => readCost(cost) !== null) &&
    optional(value.continuedBy, isString) &&
    value.continuedFromGitHub === undefined &&
    optional(value.failures, isRecoveries) &&
    optional(value.blockedRequests, isRecoveries);
  if (extrasRead) return value as ThreadSummary;
  const { issueMessages, reproductionUrl, recoveries, cost, continuedBy, continuedFromGitHub, failures, blockedRequests, ...rest } = value;
  const messages = issueMessages === undefined ? undefined : readIssueMessages(issueMessages);
  const readableCost = readCost(cost);
  const fromGitHub = readGitHubContinuation(continuedFromGitHub);
  return {
    ...rest,
    ...(messages ? { issueMessages: messages } : {}),
    ...(isString(reproductionUrl) ? { reproductionUrl } : {}),
    ...(isRecoveries(recoveries) ? { recoveries } : {}),
    ...(readableCost ? { cost: readableCost } : {}),
    ...(isString(continuedBy) ? { continuedBy } : {}),
    ...(fromGitHub ? { continuedFromGitHub: fromGitHub } : {}),
    // A count of failures in a row: at least 1, like a recovery count.
    ...(isRecoveries(failures) ? { failures } : {}),
    ...(isRecoveries(blockedRequests) ? { blockedRequests } : {})
  } as ThreadSummary;
}

const RUN_STATUSES: Record<RunSummary["status"], true> = { queued: true, running: true, recovering: true, done: true, error: true, cancelled: true };

/** One run of a thread's detail; null when it does not read. Its cost, who continued it, whether it was scripted, its outcome, page, blocked requests and private sources are extras (an unknown outcome is dropped). */
export function readRun(value: unknown): RunSummary | null {
  if (
    !isRecord(value) ||
    !isString(value.submissionId) ||
    !isString(value.status) ||
    !Object.hasOwn(RUN_STATUSES, value.status) ||
    !isCount(value.toolCalls) ||
    !optional(value.dispatchedAt, isNumber) ||
    !optional(value.turnStartedAt, isNumber) ||
    !optional(value.endedAt, isNumber) ||
    !optional(value.error, isString) ||
    !optional(value.tokens, (tokens) => isRecord(tokens) && isNumber(tokens.input) && isNumber(tokens.output))
  ) {
    return null;
  }
  const cost = readCost(value.cost);
  const blocked = readList(value.blocked, readBlocked);
  const privateSources = readList(value.privateSources, (host) => (isString(host) && host !== "" ? host : null));
  const fromGitHub = readGitHubContinuation(value.continuedFromGitHub);
  const { cost: _cost, continuedBy, continuedFromGitHub: _fromGitHub, scripted, tier, outcome, proven, reproductionUrl, blocked: _blocked, privateSources: _privateSources, ...rest } = value;
  return {
    ...(rest as Omit<RunSummary, "cost" | "continuedBy" | "continuedFromGitHub" | "scripted" | "tier" | "outcome" | "proven" | "reproductionUrl" | "blocked" | "privateSources">),
    ...(tier === "reporter" ? { tier: "reporter" as const } : {}),
    ...(cost ? { cost } : {}),
    ...(isString(continuedBy) ? { continuedBy } : {}),
    ...(fromGitHub ? { continuedFromGitHub: fromGitHub } : {}),
    ...(scripted === true ? { scripted: true } : {}),
    // The served models are an extra: a list that does not read is left out, and so is an entry.
    models: servedModels(value.models),
    ...(isResultOutcome(outcome) ? { outcome } : {}),
    ...(typeof proven === "boolean" ? { proven } : {}),
    ...(isString(reproductionUrl) ? { reproductionUrl } : {}),
    ...(blocked.length > 0 ? { blocked } : {}),
    ...(privateSources.length > 0 ? { privateSources } : {})
  };
}

/** Who continued a run from GitHub: a login and the comment's page, each left out when it does not read; null when it is not one. */
function readGitHubContinuation(value: unknown): GitHubContinuation | null {
  if (!isRecord(value)) return null;
  const { login, commentUrl } = value;
  return {
    ...(isString(login) && login !== "" ? { login } : {}),
    ...(isString(commentUrl) && /^https?:\/\//.test(commentUrl) ? { commentUrl } : {})
  };
}

/** The models that served a run, each a non-empty string; undefined when none reads. */
function servedModels(value: unknown): string[] | undefined {
  const models = readList(value, (entry) => (isString(entry) && entry !== "" ? entry : null));
  return models.length > 0 ? models : undefined;
}

/** One host and method the egress gateway refused, and how often (at least once). */
function readBlocked(value: unknown): BlockedRequest | null {
  return isRecord(value) && isString(value.host) && value.host !== "" && isString(value.method) && value.method !== "" && isRecoveries(value.count)
    ? { host: value.host, method: value.method, count: value.count }
    : null;
}

/** `GET /api/command-center/threads/:session`: the thread and its runs (newest first); runs that do not read are dropped and counted. */
export function readThreadDetail(body: unknown): WireRead<ThreadDetail> {
  if (!isRecord(body)) return { ok: false, reason: "not a JSON object" };
  const thread = readThread(body.thread);
  if (!thread) return { ok: false, reason: "no readable thread" };
  if (!Array.isArray(body.runs)) return { ok: false, reason: "no run list" };
  const runs = readList(body.runs, readRun);
  return { ok: true, value: { thread, runs }, dropped: body.runs.length - runs.length };
}

/** The readable messages, by kind; undefined when none reads. */
export function readIssueMessages(value: unknown): IssueMessages | undefined {
  if (!isRecord(value)) return undefined;
  const messages: IssueMessages = {};
  for (const kind of Object.keys(MESSAGE_KINDS) as IssueMessageKind[]) {
    const message = value[kind];
    if (
      isRecord(message) &&
      isString(message.state) &&
      Object.hasOwn(MESSAGE_STATES, message.state) &&
      optional(message.url, isString) &&
      optional(message.error, isString)
    ) {
      messages[kind] = {
        state: message.state as IssueMessage["state"],
        ...(message.url === undefined ? {} : { url: message.url as string }),
        ...(message.error === undefined ? {} : { error: message.error as string })
      };
    }
  }
  return Object.keys(messages).length > 0 ? messages : undefined;
}

function readThreads(value: unknown): { threads: ThreadSummary[]; dropped: number } | null {
  if (!Array.isArray(value)) return null;
  const threads = value.map(readThread).filter((thread): thread is ThreadSummary => thread !== null);
  return { threads, dropped: value.length - threads.length };
}

export type WireRead<T> = { ok: true; value: T; dropped: number } | { ok: false; reason: string };

export function readSnapshot(body: unknown): WireRead<Snapshot> {
  if (!isRecord(body)) return { ok: false, reason: "not a JSON object" };
  const metrics = readMetrics(body.metrics);
  if (!metrics) return { ok: false, reason: "no readable metrics" };
  const list = readThreads(body.threads);
  if (!list) return { ok: false, reason: "no thread list" };
  if (!isNumber(body.total) || !isNumber(body.generatedAt)) return { ok: false, reason: "no total or generatedAt" };
  return {
    ok: true,
    value: {
      metrics,
      threads: list.threads,
      total: body.total,
      generatedAt: body.generatedAt,
      ...(isString(body.nextCursor) && body.nextCursor ? { nextCursor: body.nextCursor } : {})
    },
    dropped: list.dropped
  };
}

export function readLiveState(state: unknown): WireRead<CommandCenterState> {
  if (!isRecord(state)) return { ok: false, reason: "not an object" };
  const metrics = readMetrics(state.metrics);
  if (!metrics) return { ok: false, reason: "no readable metrics" };
  const list = readThreads(state.recent);
  if (!list) return { ok: false, reason: "no recent thread list" };
  if (!isNumber(state.total) || !isNumber(state.updatedAt)) return { ok: false, reason: "no total or updatedAt" };
  return { ok: true, value: { metrics, recent: list.threads, total: state.total, updatedAt: state.updatedAt }, dropped: list.dropped };
}
