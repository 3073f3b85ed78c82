/**
 * What a ThinkAgent's runs tell the world, behind one collaborator: each
 * run's lifecycle to the command center (`CenterReports`: an outbox resent
 * until acknowledged), its messages on the issue (`Reporter`: 🚀, the live
 * progress comment and its edits, one stale notice, exactly one closing
 * comment) and its recoveries (`RunRecoveries`). The agent says what
 * happened; this decides who is told and how, redacted with the run's
 * token. Nothing here throws into a turn or waits on the command center.
 * Pure apart from its dependencies: storage, the clients, the schedule.
 */
import { CenterReports, type CenterOutboxStorage, type EventSink, type FlushResult } from "../command-center/report";
import type { RunContext } from "../run/run-context";
import { endingError, type RunEnding } from "../run/ending";
import type { BlockedRequest, Cost } from "../shared/command-center";
import type { RunUsage } from "../run/run-ledger";
import { RunRecoveries, type RecoveryStorage } from "../run/recoveries";
import type { Logger } from "../run/log";
import { noticeEvent } from "./notice-event";
import { closingNotice, labelNotice, rocketNotice, staleNotice } from "./notices";
import { type RunRef } from "./run-ref";
import { progressEditNotice, progressFinalNotice, progressNotice } from "./progress";
import type { OutboxEntry, OutboxStorage } from "./outbox";
import { Reporter, type ReporterDeps } from "./reporter";
import { OneShotSchedules, type ScheduleHost } from "../run/one-shot-schedule";

/** The Durable Object's storage: the async API for the issue's outbox, its synchronous KV for the rest. */
export type RunReportsStorage = OutboxStorage & { kv: CenterOutboxStorage & RecoveryStorage };

export type RunReportsDeps = {
  storage: RunReportsStorage;
  session: () => string;
  commandCenter: () => Promise<EventSink>;
  /** Where and as whom the issue's messages are posted. */
  github: Pick<ReporterDeps, "apiUrl" | "token" | "refreshToken" | "botLogin">;
  /** The run's token out of text, and out of every string of a value. */
  redact: (text: string) => string;
  redactDeep: <T>(value: T) => T;
  /** The agent's schedule (the agent itself): its callbacks of these names are called durably, one job pending for each. */
  schedules: ScheduleHost<"deliverNotices" | "deliverCenterEvents">;
  waitUntil: (promise: Promise<unknown>) => void;
  log: Logger;
  /** A run's last messages settled (the closing comment and the progress comment's pointer; posted, or given up): what the run held can go (its token is revoked). */
  closingSettled?: (submissionId: string) => void;
  now?: () => number;
};

export class RunReports {
  readonly #deps: RunReportsDeps;
  readonly #center: CenterReports;
  readonly #issue: Reporter;
  readonly #recoveries: RunRecoveries;
  readonly #oneShots: OneShotSchedules<"deliverNotices" | "deliverCenterEvents">;

  constructor(deps: RunReportsDeps) {
    this.#deps = deps;
    this.#oneShots = new OneShotSchedules(deps.schedules);
    const now = deps.now ?? (() => Date.now());
    this.#recoveries = new RunRecoveries(deps.storage.kv);
    this.#center = new CenterReports({
      storage: deps.storage.kv,
      center: deps.commandCenter,
      redact: (value) => deps.redactDeep(value),
      waitUntil: deps.waitUntil,
      scheduleSweep: (inMs) => this.#oneShots.request("deliverCenterEvents", Date.now() + inMs),
      now,
      log: deps.log
    });
    this.#issue = new Reporter({
      storage: deps.storage,
      ...deps.github,
      // Every comment the Worker posts, whatever the model put in it.
      redact: deps.redact,
      scheduleDelivery: async (inMs) => {
        // The timer is prompt while the isolate lives (a running turn holds the
        // object's scheduled work until it ends); the schedule outlives it.
        setTimeout(() => void this.deliverNotices().catch(() => {}), inMs);
        await this.#oneShots.request("deliverNotices", Date.now() + inMs);
      },
      waitUntil: deps.waitUntil,
      log: deps.log,
      // The dashboard shows what the issue got, and says so when it got nothing.
      onSettled: (entry) => {
        const event = noticeEvent(deps.session(), entry, { now: now(), redact: deps.redact });
        if (event) void this.#center.send(event);
        // The run's token goes once its last message is out: the closing comment, then the outcome's label and the progress comment's pointer.
        if (entry.kind === "closing" || entry.kind === "progress-final" || entry.kind === "label") deps.waitUntil(this.#endingSettled(entry.submissionId));
      }
    });
  }

  async #endingSettled(submissionId: string): Promise<void> {
    try {
      if (!(await this.#issue.owesEnding(submissionId))) this.#deps.closingSettled?.(submissionId);
    } catch (error) {
      this.#deps.log("github:on-settled-failed", { notice: `${submissionId}:closing`, error: error instanceof Error ? error.message : String(error) });
    }
  }

  /** A run was submitted (a new dispatch, or a continuation `continuedBy` an operator). */
  dispatched(run: RunContext, submissionId: string, at: number, continuedBy?: string): void {
    void this.#center.dispatched(run, this.#deps.session(), submissionId, at, continuedBy);
  }

  /** Its turn began: the command center hears it, and the triggering comment (an issue comment, or a review comment) gets 🚀 once. */
  async turnStarted(
    submissionId: string,
    at: number,
    rocket: { run: RunRef; commentId: number } | { run: RunRef; reviewCommentId: number } | null
  ): Promise<void> {
    void this.#center.send({ type: "turn-started", session: this.#deps.session(), submissionId, at });
    if (rocket) await this.#issue.post(rocketNotice(rocket.run, "commentId" in rocket ? rocket.commentId : { reviewCommentId: rocket.reviewCommentId }));
  }

  /** The run's progress comment is created with `text` (once: its notice is keyed by the submission). */
  async progressStarted(run: RunRef, text: string): Promise<void> {
    // No GitHub to post to: the closing message says so in the log (`github:off`); the progress comment is not worth a line.
    if (!this.#issue.enabled) return;
    await this.#issue.startProgress(progressNotice(run, text));
  }

  /** The progress comment's next edit, at most one per `minIntervalMs`, coalesced to the latest text; never after the run's end. */
  async progressChanged(run: RunRef, text: string, minIntervalMs: number): Promise<void> {
    await this.#issue.revise(progressEditNotice(run, text, minIntervalMs));
  }

  /** A tool call settled; `ok` is false when the tool threw. */
  toolCalled(submissionId: string, call: { tool: string; ok: boolean; toolCallId?: string }, at: number): void {
    void this.#center.send({ type: "tool", session: this.#deps.session(), submissionId, ...call, at });
  }

  /** A reproduction page was published. */
  published(submissionId: string, url: string, at: number): void {
    void this.#center.send({ type: "reproduction", session: this.#deps.session(), submissionId, url, at });
  }

  /** The egress gateway refused the run's sandbox a request: the run's whole tally so far. */
  blocked(submissionId: string, blocked: BlockedRequest[], at: number): void {
    void this.#center.send({ type: "egress", session: this.#deps.session(), submissionId, blocked, at });
  }

  /** The gateway gave the run's sandbox a private registry's credential: every host it has so far. */
  privateSources(submissionId: string, hosts: string[], at: number): void {
    void this.#center.send({ type: "private-sources", session: this.#deps.session(), submissionId, hosts, at });
  }

  /** Think's chat recovery took the turn over: `recovering` until it runs again. */
  recovering(submissionId: string, at: number): void {
    void this.#center.send(this.#recoveries.interrupted(this.#deps.session(), submissionId, at));
  }

  /** A turn began: if it resumes a recovery, the thread is `running` again. */
  resumedIfRecovering(submissionId: string, at: number): void {
    const resumed = this.#recoveries.resumed(this.#deps.session(), submissionId, at);
    if (resumed) void this.#center.send(resumed);
  }

  /** How many times Think's chat recovery has taken the run's turn over (0 before the first). */
  recoveryCount(submissionId: string): number {
    return this.#recoveries.get(submissionId)?.count ?? 0;
  }

  /** The turn has been quiet for the stale window: one stale notice on the issue. */
  async stale(run: RunRef, quietForMs: number): Promise<void> {
    await this.#issue.post(staleNotice(run, quietForMs));
  }

  /**
   * The run ended, as `ending` says: its one closing comment is queued
   * first (when the run is known), with the outcome's label (applied once
   * the comment is posted) and its progress comment's end (the pointer to
   * it), then the command center hears how it ended, with the tokens it used
   * when the provider reported any, what they cost, and whether it ran on
   * the scripted model.
   */
  async turnEnded(submissionId: string, ended: { run: RunRef | null; ending: RunEnding; usage?: RunUsage; cost?: Cost; at: number }): Promise<void> {
    if (ended.run) {
      // Kept with the comment, before it is posted, so the run's token outlives the label too (owesEnding).
      // With no GitHub to post to, the closing comment's log line says so for both.
      const label = this.#issue.enabled ? labelNotice(ended.run, ended.ending) : null;
      await this.#issue.post(closingNotice(ended.run, ended.ending), ...(label ? [label] : []));
      // The progress comment's last edit points to it; a pending edit is dropped.
      await this.#issue.finishProgress(progressFinalNotice(ended.run));
    }
    this.#recoveries.forget(submissionId);
    const { ending, usage } = ended;
    const error = endingError(ending);
    const cancelled = ending.kind === "cancelled";
    void this.#center.send({
      type: "turn-ended",
      session: this.#deps.session(),
      submissionId,
      status: cancelled ? "cancelled" : error === undefined ? "done" : "error",
      ...(error === undefined || cancelled ? {} : { error: this.#deps.redact(error) }),
      ...(usage && (usage.input > 0 || usage.output > 0) ? { tokens: { input: usage.input, output: usage.output } } : {}),
      ...(ended.cost ? { cost: ended.cost } : {}),
      ...(usage?.scripted ? { scripted: true } : {}),
      ...(usage?.models?.length ? { models: usage.models } : {}),
      ...(ending.kind === "result" ? { outcome: ending.result.outcome } : {}),
      ...(ending.kind === "result" && ending.proof ? { proven: ending.proof.ran && ending.proof.held } : {}),
      at: ended.at
    });
  }

  /** Deliver what the issue is still owed (the scheduled callback, and before a reset forgets the token). */
  deliverNotices(): Promise<void> {
    return this.#oneShots.run("deliverNotices", () => this.#issue.deliverPending());
  }

  /** Every message queued for the issue, delivered or not. */
  notices(): Promise<OutboxEntry[]> {
    return this.#issue.entries();
  }

  /** Resend what the command center has not acknowledged (on start, and before answering it). */
  flushEvents(): Promise<FlushResult> {
    return this.#center.flush();
  }

  /** The scheduled resend sweep. */
  sweepEvents(): Promise<FlushResult> {
    return this.#oneShots.run("deliverCenterEvents", () => this.#center.sweep());
  }

  /** How many lifecycle events the command center has not acknowledged. */
  pendingEvents(): number {
    return this.#center.pending().length;
  }
}
