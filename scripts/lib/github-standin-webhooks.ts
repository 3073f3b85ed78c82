/**
 * The GitHub stand-in's webhook deliveries (github-standin.ts): when a user
 * comments, GitHub's `issue_comment.created` for it, built from GitHub's
 * published example (github-delivery.ts), signed with the target's secret
 * and sent after the comment's answer, retried on a network error or a 5xx,
 * and recorded with its outcome. Also the target's checks (an option, the
 * environment, `POST /_standin/webhook`) and the dev log's line.
 */
import { randomUUID } from "node:crypto";
import { issueCommentPayload, signedDelivery } from "./github-delivery";
import { STANDIN_APP_ID, type CommentEvent } from "./github-standin-state";

/** Where the stand-in sends webhook deliveries, and the secret it signs them with (the App's webhook secret). */
export type WebhookTarget = {
  url: string;
  secret: string;
  /** The waits before each retry of a delivery that met a network error or a 5xx ([200, 500, 1000] ms: four attempts). */
  retryDelaysMs?: number[];
};

/** One webhook delivery the stand-in sent (or is sending). */
export type StandinDelivery = {
  event: "issue_comment";
  action: "created";
  /** The `X-GitHub-Delivery` header. */
  deliveryId: string;
  url: string;
  repo: string;
  issueNumber: number;
  commentId: number;
  /** The comment's author. */
  login: string;
  /** The receiver's last answer; absent when the last attempt met a network error. */
  status?: number;
  /** The last attempt's network error; absent once the receiver answered. */
  error?: string;
  /** How many times it was sent. */
  attempts: number;
  /** Set while attempts are still under way. */
  pending?: true;
  /** When it was first sent (ms since the epoch). */
  at: number;
};

const DEFAULT_WEBHOOK_RETRY_DELAYS_MS = [200, 500, 1000];
/** GitHub gives a receiver 10 seconds to answer a delivery. */
const WEBHOOK_TIMEOUT_MS = 10_000;

export type WebhookSenderOptions = {
  /** The description the stand-in serves: an Enterprise Server's (`apiRoot` set) writes its own origins into payloads. */
  description: { name: string; apiRoot: string };
  /** The stand-in's own origin, known once it listens. */
  baseUrl: () => string;
  /** Called with each delivery once it has its outcome. */
  onDelivery?: (delivery: StandinDelivery) => void;
};

export class WebhookSender {
  readonly #options: WebhookSenderOptions;
  readonly #deliveries: StandinDelivery[] = [];
  readonly #inflight = new Set<Promise<void>>();
  readonly #closing = new AbortController();

  constructor(options: WebhookSenderOptions) {
    this.#options = options;
  }

  /** Sends `event` to `target` once the current answer is out, never blocking it. */
  send(target: WebhookTarget, event: CommentEvent): void {
    setImmediate(() => {
      const delivery = this.#deliver(target, event);
      this.#inflight.add(delivery);
      void delivery.finally(() => this.#inflight.delete(delivery));
    });
  }

  /** The deliveries sent so far (each with its outcome, or `pending`), as copies. */
  deliveries(): StandinDelivery[] {
    return this.#deliveries.map((delivery) => ({ ...delivery }));
  }

  /** Forgets what was sent (`DELETE /_standin/records`). */
  forget(): void {
    this.#deliveries.length = 0;
  }

  /** Waits until no delivery is under way, including ones started meanwhile. */
  async settled(): Promise<void> {
    while (this.#inflight.size > 0) await Promise.all([...this.#inflight]);
  }

  /** Stops retries and attempts under way, and waits for them to be recorded. */
  async close(): Promise<void> {
    this.#closing.abort();
    await Promise.all([...this.#inflight]);
  }

  /** GitHub's `issue_comment.created` for `event`, signed with the target's secret, sent until answered below 500 or out of retries. */
  async #deliver(target: WebhookTarget, event: CommentEvent): Promise<void> {
    const deliveryId = randomUUID();
    const record: StandinDelivery = {
      event: "issue_comment",
      action: "created",
      deliveryId,
      url: target.url,
      repo: event.repo,
      issueNumber: event.issueNumber,
      commentId: event.commentId,
      login: event.login,
      attempts: 0,
      pending: true,
      at: Date.now()
    };
    this.#deliveries.push(record);
    try {
      const enterprise = this.#options.description.apiRoot !== "";
      const built = issueCommentPayload({
        repo: event.repo,
        issueNumber: event.issueNumber,
        commentId: event.commentId,
        body: event.body,
        login: event.login,
        userId: event.userId,
        userType: event.userType,
        association: event.association,
        pullRequest: event.pullRequest,
        ...(event.issueTitle === undefined ? {} : { issueTitle: event.issueTitle }),
        // An Enterprise Server writes its own origins into a payload; github.com's name github.com, as the e2e deliveries do.
        ...(enterprise ? { github: { web: this.#options.baseUrl(), api: `${this.#options.baseUrl()}${this.#options.description.apiRoot}` } } : {})
      });
      // The stand-in's one installation (GET /repos/{owner}/{repo}/installation), and the comment's own times.
      const payload = {
        ...built,
        installation: { ...((built as Record<string, unknown>).installation as Record<string, unknown>), id: 1 },
        comment: { ...built.comment, created_at: event.createdAt, updated_at: event.createdAt }
      };
      const version = /^ghes-(\d+\.\d+)$/.exec(this.#options.description.name)?.[1];
      const signed = await signedDelivery(target.secret, payload, {
        deliveryId,
        ...(enterprise && version ? { enterprise: { host: new URL(this.#options.baseUrl()).hostname, version: `${version}.0` } } : {})
      });
      const headers = {
        ...signed.headers,
        "x-github-hook-id": "1",
        "x-github-hook-installation-target-type": "integration",
        "x-github-hook-installation-target-id": String(STANDIN_APP_ID)
      };
      const delays = target.retryDelaysMs ?? DEFAULT_WEBHOOK_RETRY_DELAYS_MS;
      for (let attempt = 0; ; attempt++) {
        record.attempts = attempt + 1;
        let retry = false;
        try {
          const response = await fetch(target.url, {
            method: "POST",
            headers,
            body: signed.body,
            signal: AbortSignal.any([AbortSignal.timeout(WEBHOOK_TIMEOUT_MS), this.#closing.signal])
          });
          await response.arrayBuffer().catch(() => undefined);
          record.status = response.status;
          delete record.error;
          retry = response.status >= 500;
        } catch (error) {
          delete record.status;
          record.error = this.#closing.signal.aborted ? "the stand-in closed" : describeError(error);
          retry = !this.#closing.signal.aborted;
        }
        if (!retry || attempt >= delays.length) break;
        const stopped = await pause(delays[attempt]!, this.#closing.signal);
        if (stopped) break;
      }
    } catch (error) {
      record.error = describeError(error);
    } finally {
      delete record.pending;
      this.#options.onDelivery?.({ ...record });
    }
  }
}

/** The webhook target from GITHUB_STANDIN_WEBHOOK_URL and GITHUB_STANDIN_WEBHOOK_SECRET, null when neither is set; throws when only one is. */
export function webhookFromEnv(env: Record<string, string | undefined>): WebhookTarget | null {
  const url = env.GITHUB_STANDIN_WEBHOOK_URL?.trim() ?? "";
  const secret = env.GITHUB_STANDIN_WEBHOOK_SECRET ?? "";
  if (url === "" && secret === "") return null;
  if (url === "" || secret === "") throw new Error("GITHUB_STANDIN_WEBHOOK_URL and GITHUB_STANDIN_WEBHOOK_SECRET are set together or not at all");
  return { url, secret };
}

/** A webhook target, or what is wrong with it. */
export function webhookTarget(value: unknown): WebhookTarget | string {
  if (typeof value !== "object" || value === null) return "a webhook is a JSON object: { url, secret, retryDelaysMs? } (or null to remove it)";
  const target = value as Record<string, unknown>;
  let parsed: URL | null = null;
  try {
    parsed = typeof target.url === "string" ? new URL(target.url) : null;
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) return "url must be an http(s) URL";
  if (typeof target.secret !== "string" || target.secret === "") return "secret must be a non-empty string (the webhook secret deliveries are signed with)";
  const delays = target.retryDelaysMs;
  if (delays !== undefined && (!Array.isArray(delays) || !delays.every((delay) => typeof delay === "number" && Number.isFinite(delay) && delay >= 0))) {
    return "retryDelaysMs must be an array of waits in milliseconds";
  }
  return { url: target.url as string, secret: target.secret, ...(delays === undefined ? {} : { retryDelaysMs: delays as number[] }) };
}

export function checkedWebhook(target: WebhookTarget | null): WebhookTarget | null {
  if (target === null) return null;
  const checked = webhookTarget(target);
  if (typeof checked === "string") throw new Error(`webhook: ${checked}`);
  return checked;
}

/** Waits `ms`, or less when `signal` aborts; true when it did. */
function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(true);
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve(false);
    }, ms);
    const stop = () => {
      clearTimeout(timer);
      resolve(true);
    };
    signal.addEventListener("abort", stop, { once: true });
  });
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message}: ${cause.message}` : error.message;
}

/** One readable line per webhook delivery, for the dev log. */
export function describeDelivery(delivery: StandinDelivery): string {
  const outcome = delivery.status !== undefined ? String(delivery.status) : `failed: ${delivery.error ?? "?"}`;
  return `delivered ${delivery.event}.${delivery.action} (${delivery.repo}#${delivery.issueNumber}, comment ${delivery.commentId} by ${delivery.login}) to ${delivery.url}: ${outcome}${delivery.attempts > 1 ? ` after ${delivery.attempts} attempts` : ""}`;
}
