/**
 * The issue reporter of one ThinkAgent: takes notices into the durable
 * outbox, redacted and capped as they are queued, and delivers them to
 * GitHub as the App, retrying on a schedule that survives eviction (a rate
 * limit ends the pass). One delivery pass at a time in an isolate; each
 * entry that settles goes to `onSettled`, which the ThinkAgent reports to
 * the command center. docs/reporting.md, "Exactly once".
 */
import { createReportClient, type ReportClient } from "./report-client";
import type { Logger } from "../run/log";
import { capBody, MAX_COMMENT_BODY_CHARS } from "./body-cap";
import { deliver, Outbox, type OutboxEntry, type OutboxStorage } from "./outbox";
import { noticeId, type Notice } from "./notices";

/** The backstop pass after an immediate one, in case the isolate dies during it. */
const DELIVERY_BACKSTOP_MS = 30_000;

export type ReporterDeps = {
  storage: OutboxStorage;
  /** GitHub's API base URL; empty turns reporting off (logged per notice). */
  apiUrl: () => string;
  /** The run's current installation token. */
  token: () => Promise<string>;
  /** A fresh token for `repo` after a 401, stored for the run; null when none can be had. */
  refreshToken?: (repo: string) => Promise<string | null>;
  /**
   * The run's bot login (`<app-slug>[bot]`, run/bot-identity.ts): a marker
   * search trusts only its comments. A throw (no identity) fails the pass,
   * logged; the notices wait for the next.
   */
  botLogin: () => Promise<string>;
  /**
   * Applied to every comment body as it is queued, before it is stored or
   * posted: the run's token, or anything shaped like one, never reaches the
   * issue, whatever the model put in its result.
   */
  redact?: (text: string) => string;
  /** Run `deliverPending` again in `inMs`, durably: a retry, or the backstop of an immediate pass. */
  scheduleDelivery: (inMs: number) => Promise<void>;
  /** Keeps the isolate alive for a pass `post` starts without waiting for it. */
  waitUntil: (promise: Promise<unknown>) => void;
  log: Logger;
  /**
   * Told each time an entry ends `sent` or `failed` in a pass (the command
   * center shows it). Called synchronously: keep it quick and fire-and-forget;
   * a throw is logged and never stops the pass.
   */
  onSettled?: (entry: OutboxEntry) => void;
  now?: () => number;
  fetch?: typeof fetch;
};

export class Reporter {
  readonly #deps: ReporterDeps;
  readonly #outbox: Outbox;
  #delivering: Promise<void> | undefined;
  /** A notice arrived during a pass: run another when it ends. */
  #again = false;

  constructor(deps: ReporterDeps) {
    this.#deps = deps;
    this.#outbox = new Outbox(deps.storage);
  }

  get enabled(): boolean {
    return this.#deps.apiUrl().trim() !== "";
  }

  /** Keep a notice for delivery. False when it was already kept, or reporting is off. */
  async enqueue(notice: Notice): Promise<boolean> {
    if (!this.enabled) {
      this.#deps.log("github:off", { notice: notice.id, kind: notice.kind });
      return false;
    }
    const redact = this.#deps.redact ?? ((text: string) => text);
    // Redacted first (a token never reaches the issue), then capped: GitHub refuses a longer body for good.
    const kept = notice.body === undefined ? notice : { ...notice, body: capBody(redact(notice.body), MAX_COMMENT_BODY_CHARS) };
    const added = await this.#outbox.add(kept, this.#now());
    if (added) this.#deps.log("github:queued", { notice: notice.id, kind: notice.kind });
    return added !== null;
  }

  /**
   * The progress comment's next edit (a `progress-edit` notice): its one
   * entry takes the new body, so edits within the throttle coalesce to the
   * latest; nothing once the run's end queued the final edit, nor when the
   * run has no progress comment. A delivery starts only when no edit was
   * already waiting (that one's pass is scheduled).
   */
  async revise(notice: Notice): Promise<void> {
    if (!this.enabled || notice.body === undefined) return;
    const created = await this.#outbox.get(noticeId(notice.submissionId, "progress"));
    // No progress comment, or one GitHub never took: there is nothing to edit.
    if (!created || created.state === "failed") return;
    if (await this.#outbox.get(noticeId(notice.submissionId, "progress-final"))) return;
    const redact = this.#deps.redact ?? ((text: string) => text);
    const body = capBody(redact(notice.body), MAX_COMMENT_BODY_CHARS);
    const existing = await this.#outbox.get(notice.id);
    if (existing?.body === body) return;
    const waiting = existing?.state === "pending";
    const entry: OutboxEntry = {
      ...(existing ?? { state: "pending", attempts: 0, createdAt: this.#now() }),
      ...notice,
      body,
      state: "pending",
      attempts: 0,
      revision: (existing?.revision ?? 0) + 1
    };
    delete entry.lastError;
    await this.#outbox.put(entry);
    if (!waiting) this.#kick();
  }

  /**
   * The run ended: its progress comment's pending edit is dropped and the
   * final edit (the pointer to the closing comment) queued. Nothing when the
   * run has no progress comment.
   */
  async finishProgress(final: Notice): Promise<void> {
    if (!this.enabled || !(await this.#outbox.get(noticeId(final.submissionId, "progress")))) return;
    if (!(await this.enqueue(final))) return;
    const edit = await this.#outbox.get(noticeId(final.submissionId, "progress-edit"));
    if (edit?.state === "pending") await this.#outbox.put({ ...edit, state: "dropped" });
    this.#kick();
  }

  /**
   * The run's progress comment, unless the run already ended (its closing
   * message is queued: a run cancelled while it was being prepared). One
   * created after the end would never get its pointer, and the run's token
   * would wait for it.
   */
  async startProgress(notice: Notice): Promise<void> {
    if (await this.#outbox.get(noticeId(notice.submissionId, "closing"))) return;
    await this.post(notice);
  }

  /**
   * Keep notices, in order, and start delivering them now, without the
   * caller waiting; a scheduled pass backs that up in case the isolate dies
   * first. All are kept before the delivery starts, so one that follows
   * another (a label its closing comment) is there when that one settles.
   */
  async post(...notices: Notice[]): Promise<void> {
    let added = false;
    for (const notice of notices) if (await this.enqueue(notice)) added = true;
    if (added) this.#kick();
  }

  #kick(): void {
    const failed = (error: unknown) => this.#deps.log("github:deliver-failed", { error: error instanceof Error ? error.message : String(error) });
    // Side by side: writing the backstop's schedule can wait for a running turn, and a progress comment cannot.
    this.#deps.waitUntil(this.#deps.scheduleDelivery(DELIVERY_BACKSTOP_MS).catch(failed));
    this.#deps.waitUntil(this.deliverPending().catch(failed));
  }

  /**
   * Whether the run still owes its issue its last messages: the closing
   * comment, the outcome's label, or the progress comment's pointer (queued
   * with it). What the run holds (its token) must outlive them.
   */
  async owesEnding(submissionId: string): Promise<boolean> {
    const [closing, created, final, label] = await Promise.all(
      (["closing", "progress", "progress-final", "label"] as const).map((kind) => this.#outbox.get(noticeId(submissionId, kind)))
    );
    if (!closing || closing.state === "pending" || label?.state === "pending") return true;
    return created !== undefined && created.state !== "failed" && (!final || final.state === "pending");
  }

  entries(): Promise<OutboxEntry[]> {
    return this.#outbox.all();
  }

  /**
   * Deliver every pending notice, oldest first. One pass runs at a time; a
   * call during a pass makes it go round once more, so a notice queued
   * meanwhile is not left for the backstop.
   */
  deliverPending(): Promise<void> {
    if (this.#delivering) {
      this.#again = true;
      return this.#delivering;
    }
    this.#delivering = (async () => {
      do {
        this.#again = false;
        await this.#pass();
      } while (this.#again);
    })().finally(() => {
      this.#delivering = undefined;
    });
    return this.#delivering;
  }

  async #pass(): Promise<void> {
    if (!this.enabled) return;
    const pending = await this.#outbox.pending();
    if (pending.length === 0) return;
    let client = await this.#client();
    let retryInMs: number | undefined;
    for (const entry of pending) {
      const result = await deliver(entry, {
        outbox: this.#outbox,
        client,
        refreshClient: async () => {
          const token = await this.#deps.refreshToken?.(entry.repo);
          if (!token) return null;
          client = await this.#client(token);
          return client;
        },
        now: () => this.#now()
      });
      const fields = { notice: entry.id, kind: entry.kind, attempts: result.entry.attempts };
      if (result.outcome === "sent") this.#deps.log("github:posted", { ...fields, found: result.found, url: result.entry.url });
      if (result.outcome === "dropped") this.#deps.log("github:dropped", fields);
      // A progress edit replaced while the previous one was on its way: its turn comes after the throttle.
      if (result.outcome === "sent" && result.entry.state === "pending") retryInMs = Math.min(retryInMs ?? Infinity, result.entry.minIntervalMs ?? 0);
      if (result.outcome === "failed") this.#deps.log("github:failed", { ...fields, error: result.entry.lastError });
      if (result.outcome === "waiting") retryInMs = Math.min(retryInMs ?? Infinity, result.inMs);
      if (result.outcome === "retry") {
        this.#deps.log("github:retry", { ...fields, error: result.entry.lastError, inMs: result.inMs, rateLimited: result.rateLimited });
        retryInMs = Math.min(retryInMs ?? Infinity, result.inMs);
        // The limit is the installation's: the rest of the pass would meet it too.
        if (result.rateLimited) break;
      }
      if (result.outcome === "sent" || result.outcome === "failed") this.#settled(result.entry);
    }
    if (retryInMs !== undefined) await this.#deps.scheduleDelivery(retryInMs);
  }

  #settled(entry: OutboxEntry): void {
    try {
      this.#deps.onSettled?.(entry);
    } catch (error) {
      this.#deps.log("github:on-settled-failed", { notice: entry.id, error: error instanceof Error ? error.message : String(error) });
    }
  }

  async #client(token?: string): Promise<ReportClient> {
    return createReportClient({
      baseUrl: this.#deps.apiUrl(),
      token: token ?? (await this.#deps.token()),
      botLogin: await this.#deps.botLogin(),
      ...(this.#deps.fetch ? { fetch: this.#deps.fetch } : {})
    });
  }

  #now(): number {
    return this.#deps.now?.() ?? Date.now();
  }
}
