/**
 * The GitHub stand-in's webhook deliveries (github-standin.ts): when a user
 * comments, GitHub's `issue_comment.created` for it; when a user assigns or
 * unassigns someone (the App's bot) or adds or removes a label, GitHub's
 * `issues.assigned`, `.unassigned`, `.labeled` or `.unlabeled`, one per
 * assignee or label. Each is built from GitHub's published example
 * (github-delivery.ts), signed with the target's secret, sent after the
 * call's answer with its own `X-GitHub-Delivery`, retried on a network
 * error or a 5xx, and recorded with its outcome. A test can also have it
 * send a seeded CI run's `check_suite.completed` or `workflow_run.completed`
 * (`deliverCi`). Also the target's checks (an option, the
 * environment, `POST /_standin/webhook`) and the dev log's line.
 */
import { randomUUID } from "node:crypto";
import { ciPayload, issueCommentPayload, issuesPayload, signedDelivery, type CiDeliveryOptions, type CiEventName } from "./github-delivery";
import { STANDIN_APP_ID, type CommentEvent, type IssueEvent } from "./github-standin-state";

/** Where the stand-in sends webhook deliveries, and the secret it signs them with (the App's webhook secret). */
export type WebhookTarget = {
  url: string;
  secret: string;
  /** The waits before each retry of a delivery that met a network error or a 5xx ([200, 500, 1000] ms: four attempts). */
  retryDelaysMs?: number[];
};

/** One webhook delivery the stand-in sent (or is sending). */
export type StandinDelivery = {
  event: "issue_comment" | "issues" | CiEventName;
  /** created (issue_comment); assigned, unassigned, labeled or unlabeled (issues); completed (check_suite, workflow_run). */
  action: string;
  /** The `X-GitHub-Delivery` header. */
  deliveryId: string;
  url: string;
  repo: string;
  issueNumber: number;
  /** The comment delivered (issue_comment). */
  commentId?: number;
  /** The assignee's login (assigned, unassigned). */
  assignee?: string;
  /** The label's name (labeled, unlabeled). */
  label?: string;
  /** The commit a check suite or workflow run ran on (check_suite, workflow_run); `issueNumber` is then the pull request it lists, 0 for none. */
  headSha?: string;
  /** The comment's author, or who changed the issue: the sender. */
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

/** What a delivery sends: what its record names (the event too), and its payload (built when it is sent). */
type OutgoingDelivery = {
  record: Pick<StandinDelivery, "event" | "action" | "repo" | "issueNumber" | "commentId" | "assignee" | "label" | "login" | "headSha">;
  payload: () => unknown;
};

/** `iso` (the stand-in's, with milliseconds) as GitHub's webhooks spell times. */
const githubTimeOf = (iso: string) => iso.replace(/\.\d{3}Z$/, "Z");

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

  /** Sends `issue_comment.created` for `event` to `target` once the current answer is out, never blocking it. */
  send(target: WebhookTarget, event: CommentEvent): void {
    this.#later(() => this.#deliver(target, this.#commentDelivery(event)));
  }

  /** Sends an `issues` delivery for each of `events` to `target` once the current answer is out: started in order, each on its own (as GitHub sends them). */
  sendIssueEvents(target: WebhookTarget, events: IssueEvent[]): void {
    for (const event of events) this.#later(() => this.#deliver(target, this.#issuesDelivery(event)));
  }

  /** Sends a completed check suite or workflow run (`ciPayload` over GitHub's example) to `target`, now, in the background. */
  sendCi(target: WebhookTarget, event: CiEventName, options: Omit<CiDeliveryOptions, "event">): void {
    this.#later(() =>
      this.#deliver(target, {
        record: { event, action: "completed", repo: options.repo, issueNumber: options.pullNumber ?? 0, headSha: options.headSha, login: options.sender ?? "octocat" },
        payload: () => ciPayload({ ...options, event })
      })
    );
  }

  #later(deliver: () => Promise<void>): void {
    setImmediate(() => {
      const delivery = deliver();
      this.#inflight.add(delivery);
      void delivery.finally(() => this.#inflight.delete(delivery));
    });
  }

  /** An Enterprise Server writes its own origins into a payload; github.com's name github.com, as the e2e deliveries do. */
  #github(): { github?: { web: string; api: string } } {
    const enterprise = this.#options.description.apiRoot !== "";
    return enterprise ? { github: { web: this.#options.baseUrl(), api: `${this.#options.baseUrl()}${this.#options.description.apiRoot}` } } : {};
  }

  #commentDelivery(event: CommentEvent): OutgoingDelivery {
    return {
      record: { event: "issue_comment", action: "created", repo: event.repo, issueNumber: event.issueNumber, commentId: event.commentId, login: event.login },
      payload: () => {
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
          ...this.#github()
        });
        // The stand-in's one installation (GET /repos/{owner}/{repo}/installation), and the comment's own times.
        return {
          ...built,
          installation: { ...((built as Record<string, unknown>).installation as Record<string, unknown>), id: 1 },
          comment: { ...built.comment, created_at: event.createdAt, updated_at: event.createdAt }
        };
      }
    };
  }

  #issuesDelivery(event: IssueEvent): OutgoingDelivery {
    const account = (user: Record<string, unknown>) => ({ login: String(user.login), id: Number(user.id), type: String(user.type) });
    const issue = event.issue as { title: string; body: string | null; user: Record<string, unknown>; author_association: string; labels: { name: string; id: number }[]; assignees: Record<string, unknown>[]; created_at: string; updated_at: string };
    const sender = account(event.sender);
    const assignee = event.assignee ? account(event.assignee) : undefined;
    const label = event.label ? { name: String(event.label.name), id: Number(event.label.id) } : undefined;
    return {
      record: {
        event: "issues",
        action: event.action,
        repo: event.repo,
        issueNumber: event.issueNumber,
        ...(assignee ? { assignee: assignee.login } : {}),
        ...(label ? { label: label.name } : {}),
        login: sender.login
      },
      payload: () =>
        issuesPayload({
          repo: event.repo,
          issueNumber: event.issueNumber,
          action: event.action,
          issueTitle: issue.title,
          issueBody: issue.body,
          opener: { ...account(issue.user), association: issue.author_association },
          labels: issue.labels.map((known) => ({ name: known.name, id: known.id })),
          assignees: issue.assignees.map(account),
          ...(assignee ? { assignee } : {}),
          ...(label ? { label } : {}),
          login: sender.login,
          userId: sender.id,
          userType: sender.type,
          // GitHub's webhook times are whole seconds.
          createdAt: githubTimeOf(issue.created_at),
          updatedAt: githubTimeOf(issue.updated_at),
          installationId: 1,
          ...this.#github()
        })
    };
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

  /** `outgoing`'s payload, signed with the target's secret, sent until answered below 500 or out of retries. */
  async #deliver(target: WebhookTarget, outgoing: OutgoingDelivery): Promise<void> {
    const deliveryId = randomUUID();
    const record: StandinDelivery = { ...outgoing.record, deliveryId, url: target.url, attempts: 0, pending: true, at: Date.now() };
    this.#deliveries.push(record);
    try {
      const enterprise = this.#options.description.apiRoot !== "";
      const payload = outgoing.payload();
      const version = /^ghes-(\d+\.\d+)$/.exec(this.#options.description.name)?.[1];
      const signed = await signedDelivery(target.secret, payload, {
        event: outgoing.record.event,
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
  const what =
    delivery.commentId !== undefined
      ? `comment ${delivery.commentId}`
      : delivery.assignee !== undefined
        ? `assignee ${delivery.assignee}`
        : delivery.headSha !== undefined
          ? `head ${delivery.headSha.slice(0, 7)}`
          : `label ${delivery.label ?? "?"}`;
  return `delivered ${delivery.event}.${delivery.action} (${delivery.repo}#${delivery.issueNumber}, ${what} by ${delivery.login}) to ${delivery.url}: ${outcome}${delivery.attempts > 1 ? ` after ${delivery.attempts} attempts` : ""}`;
}
