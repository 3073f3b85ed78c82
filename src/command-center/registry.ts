/**
 * How each lifecycle event changes a thread and its run (`recordEvent`).
 * Events arrive fire-and-forget, so late, out of order or twice: each lands
 * first on its run's record, which makes it idempotent, and the thread
 * follows only its current run; the rules per event are in
 * docs/command-center.md, "Events". Pure: works over `RegistryStore`; the
 * CommandCenterAgent runs each call inside one storage transaction. Claims
 * are thread-claims.ts, staleness and the summary staleness.ts; it does not
 * broadcast or compute metrics (metrics.ts, broadcast.ts).
 */
import { type EndedStatus, isActiveStatus, type IssueMessage, type TokenUsage } from "../shared/command-center";
import { type CommandCenterEvent, type DispatchedEvent, type NoticeEvent, type RecordResult, REPRODUCTION_URL_MAX_CHARS } from "../shared/command-center-events";
import type { RegistryStore, RunRecord, ThreadRecord } from "./store";
import { blockedTotal, mergedPrivateSources, replacesTally, storedBlocked } from "./egress";
import { addCost, NO_COST } from "../shared/pricing";
import {
  ISSUE_MESSAGE_ERROR_MAX_CHARS,
  STORED_ERROR_MAX_CHARS,
  STORED_TITLE_MAX_CHARS,
  storedText,
  summarizeInstruction
} from "./text";

const MAX_AVATAR_URL_CHARS = 2_048;
/** A comment's page on GitHub is far shorter; a longer URL is dropped, never cut. */
export const ISSUE_MESSAGE_URL_MAX_CHARS = 300;
/** An operator is an e-mail address (at most 320 characters) or "local operator". */
const OPERATOR_MAX_CHARS = 320;

export function recordEvent(store: RegistryStore, event: CommandCenterEvent): RecordResult {
  switch (event.type) {
    case "dispatched":
      return recordDispatched(store, event);
    case "turn-started":
      return onRun(store, event, (run) => {
        if (run.turnStartedAt !== undefined) return false;
        run.turnStartedAt = event.at;
        return true;
      }, (thread) => {
        thread.turnStartedAt = event.at;
      });
    case "tool": {
      const key = event.toolCallId ?? `${event.tool}@${event.at}:${event.ok ? "ok" : "error"}`;
      const fresh = store.addToolCall({ session: event.session, submissionId: event.submissionId, key, at: event.at, ok: event.ok });
      if (!fresh) return { applied: false, reason: "duplicate" };
      return onRun(store, event, (run) => {
        run.toolCalls++;
        if (!event.ok) run.toolErrors++;
        run.firstToolAt = minDefined(run.firstToolAt, event.at);
        return true;
      }, (thread, run) => {
        thread.toolCalls++;
        if (!event.ok) thread.toolErrors++;
        thread.firstToolMs = elapsed(thread.startedAt, run.firstToolAt);
      });
    }
    case "turn-ended":
      return onRun(store, event, (run) => {
        if (run.endedAt !== undefined) return false;
        run.endedAt = event.at;
        run.status = event.status;
        if (event.status === "error") run.error = storedText(event.error?.trim() || "failed", STORED_ERROR_MAX_CHARS);
        if (event.tokens) run.tokens = { input: event.tokens.input, output: event.tokens.output };
        if (event.cost) run.cost = { usd: event.cost.usd, complete: event.cost.complete };
        if (event.scripted) run.scripted = true;
        if (event.models?.length) run.models = [...event.models];
        if (event.outcome) run.outcome = event.outcome;
        if (event.proven !== undefined) run.proven = event.proven;
        return true;
      }, (thread, run) => {
        endThreadRun(thread, run);
      });
    case "notice":
      return onRun(store, event, (run) => {
        const message = issueMessage(event);
        if (!settles(run.notices?.[event.kind], message)) return false;
        run.notices = { ...run.notices, [event.kind]: message };
        if (message.state === "sent") run.firstMessageAt = minDefined(run.firstMessageAt, event.at);
        return true;
      }, (thread, run) => {
        if (run.notices) thread.issueMessages = { ...run.notices };
      }, { activity: false });
    case "recovery":
      return onRun(store, event, (run) => {
        if (run.endedAt !== undefined) return false;
        const next = { count: event.recoveries, state: event.state };
        if (run.recovery && recoveryRank(run.recovery) >= recoveryRank(next)) return false;
        run.recovery = next;
        return true;
      }, (thread, run) => {
        withRecovery(thread, run);
      });
    case "egress":
      // The whole tally so far: the larger total wins, in whatever order the events arrive.
      return onRun(store, event, (run) => {
        const blocked = storedBlocked(event.blocked);
        if (!replacesTally(run.blocked, blocked)) return false;
        run.blocked = blocked;
        return true;
      }, (thread, run) => {
        thread.blockedRequests = blockedTotal(run.blocked);
      }, { activity: false });
    case "private-sources":
      // Every host so far: the union keeps them, in whatever order the events arrive. The run's own record only.
      return onRun(store, event, (run) => {
        const hosts = mergedPrivateSources(run.privateSources, event.hosts);
        if (hosts.length === (run.privateSources?.length ?? 0)) return false;
        run.privateSources = hosts;
        return true;
      }, () => {}, { activity: false });
    case "reproduction": {
      // A URL that is not a whole http(s) page link is dropped, never cut.
      const url = reproductionUrl(event.url);
      if (url === undefined) return { applied: false, reason: "invalid" };
      return onRun(store, event, (run) => {
        const known = run.reproduction;
        if (known && (known.url === url || event.at <= known.at)) return false;
        run.reproduction = { url, at: event.at };
        return true;
      }, (thread, run) => {
        if (run.reproduction) thread.reproductionUrl = run.reproduction.url;
      });
    }
  }
}

function recordDispatched(store: RegistryStore, event: DispatchedEvent): RecordResult {
  const thread = store.getThread(event.session);
  if (thread?.submissionId === event.submissionId) return { applied: false, reason: "duplicate" };
  const existing = store.getRun(event.session, event.submissionId);
  if (existing?.dispatchedAt !== undefined) return { applied: false, reason: "duplicate" };

  const run: RunRecord = existing ?? newRun(event.session, event.submissionId, event.at);
  run.dispatchedAt = event.at;
  run.repo = event.repo;
  run.issueNumber = event.issueNumber;
  if (event.tier) run.tier = event.tier;
  if (event.continuedBy) run.continuedBy = storedText(event.continuedBy, OPERATOR_MAX_CHARS);
  // The dispatch that lifts a claim a `continue` on GitHub took is that continuation (a dashboard's names its operator).
  else if (thread?.claim?.fromGitHub && event.at >= thread.startedAt) run.continuedFromGitHub = thread.claim.fromGitHub;
  run.touchedAt = Math.max(run.touchedAt, event.at);
  store.putRun(run);
  // An older run's dispatch arriving after a newer one: metrics only.
  if (thread && event.at < thread.startedAt) return { applied: false, reason: "not_current" };

  const next: ThreadRecord = {
    session: event.session,
    repo: event.repo,
    issueNumber: event.issueNumber,
    ...(event.issueTitle === undefined ? {} : { issueTitle: storedText(event.issueTitle, STORED_TITLE_MAX_CHARS) }),
    ...(event.requestedBy === undefined ? {} : { requestedBy: requester(event.requestedBy) }),
    instructionSummary: summarizeInstruction(event.instruction),
    status: "running",
    // A claimed continuation was counted when it was claimed.
    runCount: (thread?.runCount ?? 0) + (thread?.claim ? 0 : 1),
    toolCalls: (thread?.toolCalls ?? 0) + run.toolCalls,
    toolErrors: (thread?.toolErrors ?? 0) + run.toolErrors,
    ...(thread?.tokens === undefined ? {} : { tokens: thread.tokens }),
    ...(thread?.cost === undefined ? {} : { cost: thread.cost }),
    ...(run.continuedBy === undefined ? {} : { continuedBy: run.continuedBy }),
    ...(run.continuedFromGitHub === undefined ? {} : { continuedFromGitHub: run.continuedFromGitHub }),
    // Kept while the new run runs: it counts on, or clears, when the run ends.
    ...(thread?.failures === undefined ? {} : { failures: thread.failures }),
    ...(thread?.lastError === undefined ? {} : { lastError: thread.lastError }),
    submissionId: event.submissionId,
    startedAt: event.at,
    ...(run.turnStartedAt === undefined ? {} : { turnStartedAt: run.turnStartedAt }),
    lastActivityAt: Math.max(thread?.lastActivityAt ?? 0, run.touchedAt),
    ...(run.firstToolAt === undefined ? {} : { firstToolMs: elapsed(event.at, run.firstToolAt) }),
    // Only the current run's messages: the previous run's go with it.
    ...(run.notices === undefined ? {} : { issueMessages: { ...run.notices } }),
    // The page outlives its run: the new run's own publication (one that
    // overtook this dispatch), else the one already on the thread.
    ...withReproduction(run.reproduction?.url ?? thread?.reproductionUrl),
    // The new run's own refusals (a tally that overtook this dispatch); the previous run's go with it.
    ...(run.blocked === undefined ? {} : { blockedRequests: blockedTotal(run.blocked) }),
    createdAt: thread?.createdAt ?? event.at
  };
  // The run may have been recovered, or have ended, before its dispatch was reported.
  withRecovery(next, run);
  if (run.endedAt !== undefined) endThreadRun(next, run);
  store.putThread(next);
  return { applied: true };
}

/**
 * Apply an event to its run (`toRun` returns false for a repeat), then to the
 * thread if the run is the thread's current one. An event that is not
 * activity (`activity: false`) leaves the thread's last activity alone.
 */
function onRun(
  store: RegistryStore,
  event: { session: string; submissionId: string; at: number },
  toRun: (run: RunRecord) => boolean,
  toThread: (thread: ThreadRecord, run: RunRecord) => void,
  options: { activity: boolean } = { activity: true }
): RecordResult {
  const thread = store.getThread(event.session);
  const current = thread !== undefined && thread.submissionId === event.submissionId && !thread.claim;
  const run =
    store.getRun(event.session, event.submissionId) ??
    (current ? runFromThread(thread) : newRun(event.session, event.submissionId, event.at));
  if (!toRun(run)) return { applied: false, reason: "duplicate" };
  run.touchedAt = Math.max(run.touchedAt, event.at);
  store.putRun(run);
  if (!current) return { applied: false, reason: "not_current" };

  const next = { ...thread };
  toThread(next, run);
  if (options.activity) next.lastActivityAt = Math.max(next.lastActivityAt, event.at);
  store.putThread(next);
  return { applied: true };
}

/**
 * The thread takes its current run's end: status, error, duration and tokens.
 * `lastError` belongs to the latest ended run: a run that ends done or
 * cancelled clears it.
 */
function endThreadRun(thread: ThreadRecord, run: RunRecord): void {
  if (run.endedAt === undefined || run.status === undefined) return;
  thread.status = run.status;
  if (run.status === "error") {
    thread.lastError = run.error ?? "failed";
    thread.failures = (thread.failures ?? 0) + 1;
  } else {
    delete thread.lastError;
    delete thread.failures;
  }
  thread.durationMs = elapsed(thread.startedAt, run.endedAt);
  if (run.tokens) thread.tokens = addTokens(thread.tokens, run.tokens);
  // A run that reported nothing adds an unknown: the total becomes a floor.
  thread.cost = addCost(thread.cost ?? NO_COST, run.cost ?? { usd: 0, complete: false });
  thread.lastActivityAt = Math.max(thread.lastActivityAt, run.endedAt);
}

/** The thread takes its current run's recoveries, and is `recovering` while the latest has not resumed and the run has not ended. */
function withRecovery(thread: ThreadRecord, run: RunRecord): void {
  if (!run.recovery) return;
  thread.recoveries = run.recovery.count;
  if (run.endedAt === undefined) thread.status = run.recovery.state === "recovering" ? "recovering" : "running";
}

/** recovering(n) < resumed(n) < recovering(n + 1). */
function recoveryRank(recovery: NonNullable<RunRecord["recovery"]>): number {
  return recovery.count * 2 + (recovery.state === "resumed" ? 1 : 0);
}

/** The message as stored: the error redacted and cut, a URL kept only whole and short. */
function issueMessage(event: NoticeEvent): IssueMessage {
  const url = event.url?.trim();
  const error = event.error?.trim();
  return {
    state: event.state,
    ...(event.state === "sent" && url && url.length <= ISSUE_MESSAGE_URL_MAX_CHARS ? { url } : {}),
    ...(event.state === "failed" ? { error: storedText(error || "failed", ISSUE_MESSAGE_ERROR_MAX_CHARS) } : {})
  };
}

/** The URL as stored: trimmed, http(s) and whole, else undefined (a URL cut short is no URL). */
function reproductionUrl(value: string): string | undefined {
  const url = value.trim();
  if (url.length === 0 || url.length > REPRODUCTION_URL_MAX_CHARS) return undefined;
  try {
    const { protocol } = new URL(url);
    return protocol === "https:" || protocol === "http:" ? url : undefined;
  } catch {
    return undefined;
  }
}

function withReproduction(url: string | undefined): Pick<ThreadRecord, "reproductionUrl"> {
  return url === undefined ? {} : { reproductionUrl: url };
}

/**
 * Whether `next` changes what is known of a message: the first report wins,
 * as a run's end does, except that `sent` replaces `failed` (what is on the
 * issue is what counts). A repeat changes nothing.
 */
function settles(known: IssueMessage | undefined, next: IssueMessage): boolean {
  return known === undefined || (known.state === "failed" && next.state === "sent");
}

/** A URL cut short is no URL: an over-long avatar is dropped. */
function requester(by: NonNullable<DispatchedEvent["requestedBy"]>): NonNullable<ThreadRecord["requestedBy"]> {
  return by.avatarUrl !== undefined && by.avatarUrl.length <= MAX_AVATAR_URL_CHARS
    ? { login: by.login, avatarUrl: by.avatarUrl }
    : { login: by.login };
}

function newRun(session: string, submissionId: string, at: number): RunRecord {
  return { session, submissionId, toolCalls: 0, toolErrors: 0, touchedAt: at };
}

/**
 * The current run's record rebuilt from its thread, for when retention has
 * pruned it (a run quiet for a day). Its tool calls are already in the thread.
 */
function runFromThread(thread: ThreadRecord): RunRecord {
  return {
    session: thread.session,
    submissionId: thread.submissionId,
    dispatchedAt: thread.startedAt,
    ...(thread.turnStartedAt === undefined ? {} : { turnStartedAt: thread.turnStartedAt }),
    ...(thread.firstToolMs === undefined ? {} : { firstToolAt: thread.startedAt + thread.firstToolMs }),
    ...(isActiveStatus(thread.status) || thread.durationMs === undefined
      ? {}
      : { endedAt: thread.startedAt + thread.durationMs, status: thread.status as EndedStatus }),
    ...(thread.issueMessages === undefined ? {} : { notices: { ...thread.issueMessages } }),
    toolCalls: 0,
    toolErrors: 0,
    touchedAt: thread.lastActivityAt
  };
}

function addTokens(a: TokenUsage | undefined, b: TokenUsage): TokenUsage {
  return { input: (a?.input ?? 0) + b.input, output: (a?.output ?? 0) + b.output };
}

function minDefined(a: number | undefined, b: number): number {
  return a === undefined ? b : Math.min(a, b);
}

/** Milliseconds from `from` to `to`, never negative (reporters' clocks may disagree slightly). */
function elapsed(from: number, to: number | undefined): number | undefined {
  return to === undefined ? undefined : Math.max(0, to - from);
}
