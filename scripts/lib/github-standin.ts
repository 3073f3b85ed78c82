/**
 * The recording stand-in for the GitHub REST API, for running the bot
 * offline: `npm start` points the agent Worker's GITHUB_API_URL at it,
 * `npm run dev:ingress` the webhook app, and the e2e tests both.
 *
 * GitHub's own REST description is the oracle (github-openapi.ts): every
 * request is matched to an operation and validated before it is answered.
 * An unknown path or method is a 404 "Not Found", as GitHub answers; an
 * invalid request (reaction `content` "rocket2", a comment without `body`)
 * a 422, or 400 for a body that is not a JSON object, naming what is wrong;
 * a valid call the stand-in does not model a 501. Each is a refusal:
 * recorded with `refused: { status, message }`, listed by `refusals()` and
 * `GET /_standin/refusals`, and marked in the dev log, so a test can assert
 * that nothing agent-think sent was refused. Why openapi-backend judges:
 * it is maintained (5.21.2, September 2026), reads GitHub's 3.0 description
 * (3.1 too), and in its quick mode starts in ~0.7 s on it and checks a
 * request in under a millisecond once the operation's validator is
 * compiled (25-190 ms, on first use); openapi-request-validator needs
 * 1.3-1.7 s per operation and routes nothing, and
 * @seriousme/openapi-schema-validator checks descriptions, not requests
 * (docs/github-standin.md has the measurements).
 *
 * What it answers, as GitHub shapes it (github-standin-state.ts, which
 * wires one module per thing modelled, docs/github-standin.md): reactions
 * (a repeat 200 with the first, a new one 201), an issue's comments (a
 * blank one or one over 65,536 characters a 422; listed in id order with
 * `since`, `per_page`, `page` and a `Link` header), the App itself
 * (`GET /app`, slug from `botLogin`), a user (`GET /users/{username}`: the
 * App's bot with the fixed STANDIN_BOT_USER_ID), the App's installation,
 * installation tokens (minted; revoked by `DELETE /installation/token`
 * with the token itself, after which it answers 401 "Bad credentials",
 * listed by `revoked()` and `GET /_standin/revoked`; without a token
 * GitHub's 401), a repository (`GET /repos/{owner}/{repo}`: any one,
 * default branch `main` and public unless `seedRepo` or
 * `POST /_standin/repos` set them), and a collaborator's permission
 * (`GET /repos/{owner}/{repo}/collaborators/{username}/permission`):
 * `write` for everyone, unless `permissions` (default: the
 * GITHUB_STANDIN_PERMISSIONS variable, "mallory=read,bob=admin"),
 * `defaultRole` or `setRole` say otherwise.
 *
 * Issues (github-standin-issues.ts): `issues/create` numbers them per
 * repository from 1, skipping a seeded pull request's number;
 * `issues/get`, `issues/update` (title, body, state with state_reason,
 * labels replaced), `issues/add-labels`, `issues/remove-label`,
 * `issues/add-assignees` and `issues/remove-assignees` (the assignees
 * `issues/get` then names) answer created issues and 404 any other
 * number, but that `issues/get` answers a pull request's number
 * with its conversation, as GitHub does. Reactions on an issue itself
 * (`reactions/create-for-issue`) are taken like a comment's. Reactions on an issue comment are listed back
 * (`reactions/list-for-issue-comment`, `content` filter, pages).
 *
 * Who is calling, from the Authorization header (`callerOf`): no token, an
 * empty one, an App JWT and any token without a user prefix (installation
 * tokens, minted here or not) act as the App's bot; a user's token
 * (`ghp_`, `github_pat_`, `gho_`, `ghu_`) acts as `userLogin` (default
 * GITHUB_STANDIN_USER, else octocat), whose comments, issues and reactions
 * are theirs, with an author_association from their role. `GET /user`
 * answers that user, and 403 "Resource not accessible by integration" for
 * the App's tokens (401 for none).
 *
 * Webhooks: with a target (`webhook` option, GITHUB_STANDIN_WEBHOOK_URL and
 * GITHUB_STANDIN_WEBHOOK_SECRET, `setWebhook`, `POST /_standin/webhook`), a
 * user's new issue comment is delivered as `issue_comment.created`, built
 * and signed by github-delivery.ts, after the comment's 201, retried on a
 * network error or a 5xx (`retryDelaysMs`, [200, 500, 1000] ms), and
 * recorded (`deliveries()`, `GET /_standin/deliveries`; github-standin-webhooks.ts); a
 * user's assignment or unassignment (`issues/add-assignees`,
 * `issues/remove-assignees`) and added or removed label (`issues/add-labels`,
 * `issues/remove-label`, `issues/update`'s `labels`) as `issues.assigned`,
 * `.unassigned`, `.labeled` or `.unlabeled`, one per assignee or label. The
 * bot's own comments and changes deliver nothing (the webhook app ignores
 * its bot anyway).
 *
 * Faults a test can ask for, recorded with `fault` and never as refusals:
 * `rateLimitNext` (the next matching calls get GitHub's secondary rate
 * limit, 403 with `Retry-After`) and `expireTokens` (a token, or every one
 * minted so far, then gets 401 "Bad credentials"; a minted one does by
 * itself after `tokenLifetimeMs`); over HTTP, `POST /_standin/faults`. A
 * revoked token's 401 is recorded the same way (`fault: "revoked_token"`).
 * Any other token, or none, is taken: it checks no credentials.
 *
 * Pull requests exist once a test seeds them (`seedPull`,
 * `POST /_standin/pulls`) or a caller opens one (`pulls/create`, from a
 * branch of the repository itself: GitHub's 422 for a second open one
 * with the same head and base, and for a fork's head, not modelled);
 * files once seeded (`seedFile`, `POST /_standin/files`). Then
 * `pulls/get`, `pulls/list` (`state`, `head` as `owner:branch`, `base`),
 * `pulls/update` (title, body, state, base) and `repos/get-content` (raw
 * text for `Accept: application/vnd.github.raw+json`, else the file
 * object with base64 content; a `{path}` with slashes raw or as `%2F`)
 * answer them, and anything else is GitHub's 404. Reactions on pull
 * request review comments are kept apart from those on issue comments with
 * the same id.
 *
 * CI (github-standin-checks.ts): a seeded run of GitHub Actions
 * (`seedCiRun`, `POST /_standin/ci-runs`) answers `checks/list-for-suite`,
 * `actions/list-jobs-for-workflow-run` and
 * `actions/download-job-logs-for-workflow-run` (a 302 to
 * `/_standin/job-logs/<id>`), and `deliverCi` (`POST /_standin/ci-deliveries`)
 * sends its `check_suite.completed` or `workflow_run.completed`.
 *
 * Its own routes, never recorded: `GET`/`DELETE /_standin/records` (DELETE
 * also forgets issues, created pull requests, labels, comments, reactions,
 * deliveries and pending faults; seeded repositories, pull requests and
 * files, roles, tokens, revocations and the webhook target stay),
 * `GET /_standin/refusals`, `GET /_standin/deliveries`,
 * `GET /_standin/revoked`, `GET`/`POST /_standin/webhook`,
 * `POST /_standin/faults`, `POST /_standin/pulls`, `POST /_standin/repos`,
 * `POST /_standin/files`, and `POST /_standin/validate` ({ method, url,
 * body? } → the description's verdict, for fakes that cannot run Ajv, such
 * as MSW handlers inside workerd). Records keep request bodies, never the
 * Authorization header: a revocation's record names the call, not the
 * token (the e2e token-confinement test searches the records for the
 * run's token); `GET /_standin/revoked` lists the tokens.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  DEFAULT_GITHUB_DESCRIPTION,
  GITHUB_DOCS_URL,
  loadGitHubDescription,
  refusalBody,
  type GitHubDescriptionName
} from "./github-openapi";
import {
  GitHubStandinState,
  ROLE_NAMES,
  type FileSeed,
  type PullSeed,
  type RepoSeed,
  type RoleName,
  type StandinAnswer,
  type StandinCaller
} from "./github-standin-state";
import { ciRunSeed, JOB_LOGS_PATH, type CiRunSeed, type SeededCiRun } from "./github-standin-checks";
import type { CiEventName } from "./github-delivery";
import { checkedWebhook, webhookFromEnv, webhookTarget, WebhookSender, type StandinDelivery, type WebhookTarget } from "./github-standin-webhooks";

export type { CommentEvent, FileSeed, PullSeed, RepoSeed, RoleName, StandinCaller } from "./github-standin-state";
export type { CiRunSeed, SeededCiRun } from "./github-standin-checks";
export { STANDIN_BOT_USER_ID } from "./github-standin-state";
export { describeDelivery, webhookFromEnv, webhookTarget, type StandinDelivery, type WebhookTarget } from "./github-standin-webhooks";

export type StandinRecord = {
  method: string;
  path: string;
  body: unknown;
  at: number;
  /** The description's operation the request matched ("issues/create-comment"). */
  operation?: string;
  /** Set when the stand-in refused the request: GitHub would have, or the stand-in does not model it (501). */
  refused?: { status: number; message: string };
  /** Set when the answer was a fault a test asked for, or a token that no longer works: expired, or revoked over the API. */
  fault?: "secondary_rate_limit" | "expired_token" | "revoked_token";
};

export type RateLimitFault = {
  /** How many matching calls get it (1). */
  times?: number;
  /** The `Retry-After` header, in seconds (60). */
  retryAfterSeconds?: number;
  /** Only calls with this method (any). */
  method?: string;
  /** Only calls whose path equals this, or matches this pattern (any). */
  path?: string | RegExp;
};

export type GitHubStandin = {
  url: string;
  records(): StandinRecord[];
  /** The records of refused requests: empty when everything sent was a request GitHub takes. */
  refusals(): StandinRecord[];
  rateLimitNext(fault?: RateLimitFault): void;
  /** Makes `token` answer 401 from now on; without one, every token minted so far. */
  expireTokens(token?: string): void;
  /** The tokens revoked over the API (`DELETE /installation/token`) so far, in order; each answers 401 since. */
  revoked(): string[];
  setRole(login: string, role: RoleName): void;
  /** Adds (or replaces) a pull request; returns it as `GET /repos/{owner}/{repo}/pulls/{number}` answers it. Throws naming a bad field. */
  seedPull(pull: PullSeed): Record<string, unknown>;
  /** Adds (or replaces) a file: on `ref`, or without one on every ref. Throws naming a bad field. */
  seedFile(file: FileSeed): void;
  /** Sets a repository's default branch and visibility; returns it as `GET /repos/{owner}/{repo}` answers it. Throws naming a bad field. */
  seedRepo(repo: RepoSeed): Record<string, unknown>;
  /** Adds a run of GitHub Actions on a commit (a check suite and a workflow run, its jobs their check runs). Throws naming a bad field. */
  seedCiRun(seed: CiRunSeed): SeededCiRun;
  /** Sends `<event>.completed` for a seeded run (its `checkSuiteId` or `workflowRunId`) to the webhook target. Throws for an unknown run or no target. */
  deliverCi(event: CiEventName, id: number): void;
  /** Where to send `issue_comment.created` and `issues` deliveries for users' comments and issue changes from now on; null stops them. Throws on a bad URL or an empty secret. */
  setWebhook(target: WebhookTarget | null): void;
  /** The deliveries sent so far (each with its outcome, or `pending`). */
  deliveries(): StandinDelivery[];
  /** Resolves when every delivery under way has its outcome. */
  deliveriesSettled(): Promise<void>;
  close(): Promise<void>;
};

export type StandinOptions = {
  port?: number;
  host?: string;
  /** The App's bot login (`<slug>[bot]`): comments are posted as it, and `GET /app` names its slug. */
  botLogin?: string;
  /** Called with each request as it is recorded (the dev log). */
  onRecord?: (record: StandinRecord) => void;
  /** Which of @octokit/openapi's descriptions judges requests (api.github.com); a `ghes-*` one is served under /api/v3. */
  description?: GitHubDescriptionName;
  /** Collaborator role per login; default: parsed from GITHUB_STANDIN_PERMISSIONS. */
  permissions?: Record<string, RoleName>;
  /** Everyone else's role ("write"). */
  defaultRole?: RoleName;
  /** How long a minted installation token works (an hour, as GitHub's). */
  tokenLifetimeMs?: number;
  /** Who a user's token (`ghp_…`, `github_pat_…`, `gho_…`, `ghu_…`) is: default GITHUB_STANDIN_USER, else octocat. */
  userLogin?: string;
  /**
   * Where to deliver `issue_comment.created` for a user's comment, signed
   * with `secret`. Default: GITHUB_STANDIN_WEBHOOK_URL and
   * GITHUB_STANDIN_WEBHOOK_SECRET when set; null for none whatever the
   * environment says. `setWebhook` and `POST /_standin/webhook` change it.
   */
  webhook?: WebhookTarget | null;
  /** Called with each webhook delivery once it has its outcome (the dev log). */
  onDelivery?: (delivery: StandinDelivery) => void;
};

const MAX_BODY_BYTES = 1024 * 1024;
const TOKEN_LIFETIME_MS = 3_600_000;
const DEFAULT_RETRY_AFTER_SECONDS = 60;
/** The token prefixes GitHub gives a user's tokens: classic and fine-grained personal, OAuth app, and GitHub App user-to-server. */
const USER_TOKEN = /^(?:ghp_|github_pat_|gho_|ghu_)/;
/** A JSON Web Token (the App's): three base64url parts, the header's JSON opening `eyJ`. */
const JWT = /^eyJ[\w-]*\.[\w-]*\.[\w-]*$/;
const SECONDARY_RATE_LIMIT_MESSAGE =
  "You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID standin.";

export async function startGitHubStandin(options: StandinOptions = {}): Promise<GitHubStandin> {
  const host = options.host ?? "127.0.0.1";
  const description = await loadGitHubDescription(options.description ?? DEFAULT_GITHUB_DESCRIPTION);
  const permissions = options.permissions ?? parsePermissions(process.env.GITHUB_STANDIN_PERMISSIONS ?? "");
  const userLogin = options.userLogin ?? (process.env.GITHUB_STANDIN_USER?.trim() || "octocat");
  let webhook: WebhookTarget | null = checkedWebhook(options.webhook === undefined ? webhookFromEnv(process.env) : options.webhook);
  const records: StandinRecord[] = [];
  let faults: Array<Required<Pick<RateLimitFault, "times" | "retryAfterSeconds">> & RateLimitFault> = [];
  let url = "";
  const webhooks = new WebhookSender({ description, baseUrl: () => url, ...(options.onDelivery ? { onDelivery: options.onDelivery } : {}) });
  const state = new GitHubStandinState({
    baseUrl: () => url,
    botLogin: options.botLogin ?? "agent-think[bot]",
    permissions,
    defaultRole: options.defaultRole ?? "write",
    tokenLifetimeMs: options.tokenLifetimeMs ?? TOKEN_LIFETIME_MS,
    now: () => Date.now()
  });

  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      send(response, 500, { message: error instanceof Error ? error.message : String(error) });
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const asked = new URL(request.url ?? "/", "http://standin");
    const method = request.method ?? "GET";
    const path = asked.pathname;
    const raw = await readBody(request);
    let body: unknown = undefined;
    let unparsable = false;
    if (raw !== null && raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
        unparsable = true;
      }
    }
    if (path.startsWith("/_standin/")) return control(method, path, body, unparsable, response);

    const record: StandinRecord = { method, path, body, at: Date.now() };
    const answer = (status: number, payload?: unknown, headers?: Record<string, string>) => {
      records.push(record);
      options.onRecord?.(record);
      send(response, status, payload, headers);
    };
    const refuse = (status: number, message: string, payload: unknown) => {
      record.refused = { status, message };
      answer(status, payload);
    };

    if (raw === null) return refuse(413, "body too large", { message: "Body too large", documentation_url: GITHUB_DOCS_URL, status: "413" });
    const token = bearer(request.headers.authorization);
    if (token !== null && state.isRevoked(token)) {
      record.fault = "revoked_token";
      return answer(401, { message: "Bad credentials", documentation_url: GITHUB_DOCS_URL, status: "401" });
    }
    if (token !== null && state.isExpired(token)) {
      record.fault = "expired_token";
      return answer(401, { message: "Bad credentials", documentation_url: GITHUB_DOCS_URL, status: "401" });
    }
    const fault = takeFault(method, path);
    if (fault) {
      record.fault = "secondary_rate_limit";
      return answer(403, { message: SECONDARY_RATE_LIMIT_MESSAGE, documentation_url: `${GITHUB_DOCS_URL}/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits` }, {
        "retry-after": String(fault.retryAfterSeconds)
      });
    }
    if (unparsable) return refuse(400, "Problems parsing JSON", { message: "Problems parsing JSON", documentation_url: GITHUB_DOCS_URL, status: "400" });

    const check = description.check({ method, url: `${path}${asked.search}`, body, headers: request.headers });
    if (!check.ok) {
      if (check.operation) record.operation = check.operation.operationId;
      return refuse(check.status, check.reason, refusalBody(check));
    }
    record.operation = check.operation.operationId;
    const accept = request.headers.accept;
    const result: StandinAnswer | null = state.answer({
      operationId: check.operation.operationId,
      params: check.params,
      query: asked.searchParams,
      body,
      path,
      caller: callerOf(token, userLogin),
      ...(token === null ? {} : { token }),
      ...(accept === undefined ? {} : { accept })
    });
    if (result === null) {
      const message = `The GitHub stand-in does not answer ${check.operation.operationId} (${method} ${check.operation.template})`;
      return refuse(501, message, { message, documentation_url: check.operation.documentationUrl, status: "501" });
    }
    if (result.refusal !== undefined) return refuse(result.status, result.refusal, result.body);
    if (result.raw !== undefined) {
      records.push(record);
      options.onRecord?.(record);
      response.writeHead(result.status, result.headers ?? {}).end(result.raw);
      return;
    }
    answer(result.status, result.body, result.headers);
    // The delivery goes out after the call's answer, as GitHub's does, and never holds it up.
    const target = webhook;
    if (result.comment && target) webhooks.send(target, result.comment);
    if (result.issueEvents && target) webhooks.sendIssueEvents(target, result.issueEvents);
  }

  function control(method: string, path: string, body: unknown, unparsable: boolean, response: ServerResponse): void {
    if (path === "/_standin/records") {
      if (method === "GET") return send(response, 200, { records });
      if (method === "DELETE") {
        records.length = 0;
        webhooks.forget();
        faults = [];
        state.clear();
        return send(response, 204);
      }
      return send(response, 405, { message: "method not allowed" });
    }
    if (path === "/_standin/refusals" && method === "GET") return send(response, 200, { refusals: refusals() });
    if (path === "/_standin/deliveries" && method === "GET") return send(response, 200, { deliveries: webhooks.deliveries() });
    if (path === "/_standin/revoked" && method === "GET") return send(response, 200, { revoked: state.revoked() });
    if (path === "/_standin/webhook" && method === "GET") return send(response, 200, { webhook: webhook ? { url: webhook.url } : null });
    // A job's log where GitHub's 302 sends it: no token needed, not recorded (GitHub's download host is not its API).
    if (path.startsWith(JOB_LOGS_PATH) && method === "GET") {
      const log = state.jobLog(Number(path.slice(JOB_LOGS_PATH.length)));
      if (log === undefined) return send(response, 404, { message: "Not Found" });
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8" }).end(log);
      return;
    }
    if (unparsable) return send(response, 400, { message: "Problems parsing JSON" });
    if (path === "/_standin/webhook" && method === "POST") {
      const asked = body as { url?: unknown; secret?: unknown; retryDelaysMs?: unknown } | null | undefined;
      if (asked === null || asked === undefined || asked.url === null) {
        webhook = null;
        return send(response, 204);
      }
      const target = webhookTarget(asked);
      if (typeof target === "string") return send(response, 422, { message: target });
      webhook = target;
      return send(response, 204);
    }
    if (path === "/_standin/faults" && method === "POST") {
      const fault = (body ?? {}) as { kind?: unknown; token?: unknown; times?: unknown; retryAfterSeconds?: unknown; method?: unknown; path?: unknown };
      if (fault.kind === "expired_token") {
        state.expire(typeof fault.token === "string" ? fault.token : undefined);
        return send(response, 204);
      }
      if (fault.kind === "secondary_rate_limit") {
        rateLimitNext({
          ...(typeof fault.times === "number" ? { times: fault.times } : {}),
          ...(typeof fault.retryAfterSeconds === "number" ? { retryAfterSeconds: fault.retryAfterSeconds } : {}),
          ...(typeof fault.method === "string" ? { method: fault.method } : {}),
          ...(typeof fault.path === "string" ? { path: fault.path } : {})
        });
        return send(response, 204);
      }
      return send(response, 422, { message: 'kind must be "secondary_rate_limit" or "expired_token"' });
    }
    if (path === "/_standin/pulls" && method === "POST") {
      const seed = pullSeed(body);
      if (typeof seed === "string") return send(response, 422, { message: seed });
      return send(response, 201, state.seedPull(seed));
    }
    if (path === "/_standin/repos" && method === "POST") {
      const seed = repoSeed(body);
      if (typeof seed === "string") return send(response, 422, { message: seed });
      return send(response, 201, state.seedRepo(seed));
    }
    if (path === "/_standin/ci-runs" && method === "POST") {
      const seed = ciRunSeed(body);
      if (typeof seed === "string") return send(response, 422, { message: seed });
      return send(response, 201, state.seedCiRun(seed));
    }
    if (path === "/_standin/ci-deliveries" && method === "POST") {
      const asked = (body ?? {}) as { event?: unknown; id?: unknown };
      if ((asked.event !== "check_suite" && asked.event !== "workflow_run") || typeof asked.id !== "number") {
        return send(response, 422, { message: 'event must be "check_suite" or "workflow_run", and id a seeded run\'s checkSuiteId or workflowRunId' });
      }
      const problem = deliverCi(asked.event, asked.id);
      return problem === null ? send(response, 202) : send(response, 422, { message: problem });
    }
    if (path === "/_standin/files" && method === "POST") {
      const seed = fileSeed(body);
      if (typeof seed === "string") return send(response, 422, { message: seed });
      state.seedFile(seed);
      return send(response, 204);
    }
    if (path === "/_standin/validate" && method === "POST") {
      const asked = (body ?? {}) as { method?: unknown; url?: unknown; body?: unknown; headers?: unknown };
      if (typeof asked.method !== "string" || typeof asked.url !== "string") return send(response, 422, { message: "method and url are required strings" });
      const headers = typeof asked.headers === "object" && asked.headers !== null ? (asked.headers as Record<string, string>) : undefined;
      return send(response, 200, description.check({ method: asked.method, url: asked.url, body: asked.body, ...(headers ? { headers } : {}) }));
    }
    return send(response, 404, { message: "Not Found" });
  }

  /** Sends a seeded run's completed delivery; what is wrong when it cannot. */
  function deliverCi(event: CiEventName, id: number): string | null {
    const options = state.ciDelivery(event, id);
    if (options === undefined) return `no seeded CI run has ${event === "check_suite" ? "checkSuiteId" : "workflowRunId"} ${id}`;
    if (webhook === null) return "no webhook target is set";
    webhooks.sendCi(webhook, event, options);
    return null;
  }

  function rateLimitNext(fault: RateLimitFault = {}): void {
    faults.push({ ...fault, times: fault.times ?? 1, retryAfterSeconds: fault.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS });
  }

  function takeFault(method: string, path: string) {
    const fault = faults.find(
      (candidate) =>
        (candidate.method === undefined || candidate.method.toUpperCase() === method.toUpperCase()) &&
        (candidate.path === undefined || (typeof candidate.path === "string" ? candidate.path === path : candidate.path.test(path)))
    );
    if (!fault) return undefined;
    fault.times -= 1;
    if (fault.times <= 0) faults = faults.filter((candidate) => candidate !== fault);
    return fault;
  }

  const refusals = () => records.filter((record) => record.refused !== undefined);

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  url = `http://${host}:${(server.address() as AddressInfo).port}`;

  return {
    url,
    records: () => [...records],
    refusals,
    rateLimitNext,
    expireTokens: (token) => state.expire(token),
    revoked: () => state.revoked(),
    setRole: (login, role) => state.setRole(login, role),
    seedPull: (pull) => {
      const seed = pullSeed(pull);
      if (typeof seed === "string") throw new Error(`seedPull: ${seed}`);
      return state.seedPull(seed);
    },
    seedFile: (file) => {
      const seed = fileSeed(file);
      if (typeof seed === "string") throw new Error(`seedFile: ${seed}`);
      state.seedFile(seed);
    },
    seedRepo: (repo) => {
      const seed = repoSeed(repo);
      if (typeof seed === "string") throw new Error(`seedRepo: ${seed}`);
      return state.seedRepo(seed);
    },
    seedCiRun: (seed) => {
      const checked = ciRunSeed(seed);
      if (typeof checked === "string") throw new Error(`seedCiRun: ${checked}`);
      return state.seedCiRun(checked);
    },
    deliverCi: (event, id) => {
      const problem = deliverCi(event, id);
      if (problem !== null) throw new Error(`deliverCi: ${problem}`);
    },
    setWebhook: (target) => {
      webhook = checkedWebhook(target);
    },
    deliveries: () => webhooks.deliveries(),
    deliveriesSettled: () => webhooks.settled(),
    close: async () => {
      // Deliveries under way stop: a closed stand-in sends nothing more.
      await webhooks.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    }
  };
}

/**
 * Who a token acts as. No token, an empty one, the App's JWT and any other
 * token act as the App's bot (installation tokens, minted here or not, and
 * the made-up tokens tests hand the agent); a token with one of GitHub's
 * user prefixes acts as `userLogin`.
 */
export function callerOf(token: string | null, userLogin: string): StandinCaller {
  if (token === null || token === "") return { kind: "anonymous" };
  if (JWT.test(token)) return { kind: "app" };
  if (USER_TOKEN.test(token)) return { kind: "user", login: userLogin };
  return { kind: "installation" };
}

/** "mallory=read, bob=admin" → { mallory: "read", bob: "admin" }; throws naming a bad entry. */
export function parsePermissions(text: string): Record<string, RoleName> {
  const permissions: Record<string, RoleName> = {};
  for (const entry of text.split(",").map((part) => part.trim()).filter(Boolean)) {
    const [login, role] = entry.split("=").map((part) => part.trim());
    if (!login || !ROLE_NAMES.includes(role as RoleName)) {
      throw new Error(`GITHUB_STANDIN_PERMISSIONS: "${entry}" is not login=role (role one of ${ROLE_NAMES.join(", ")})`);
    }
    permissions[login] = role as RoleName;
  }
  return permissions;
}

const REPO_NAME = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/** A pull request to seed, or what is wrong with it. */
export function pullSeed(value: unknown): PullSeed | string {
  if (typeof value !== "object" || value === null) return "a pull request is a JSON object: { repo, number, head?, base?, user?, state?, title?, body?, draft? }";
  const seed = value as Record<string, unknown>;
  if (typeof seed.repo !== "string" || !REPO_NAME.test(seed.repo)) return "repo must be owner/name";
  if (typeof seed.number !== "number" || !Number.isSafeInteger(seed.number) || seed.number < 1) return "number must be a positive whole number";
  const head = optionalObject(seed.head);
  if (head === null) return "head must be an object { repo?, ref?, sha? }";
  if (head.repo !== undefined && (typeof head.repo !== "string" || !REPO_NAME.test(head.repo))) return "head.repo must be owner/name";
  for (const field of ["ref", "sha"] as const) if (head[field] !== undefined && (typeof head[field] !== "string" || head[field] === "")) return `head.${field} must be a non-empty string`;
  const base = optionalObject(seed.base);
  if (base === null) return "base must be an object { ref?, sha? }";
  for (const field of ["ref", "sha"] as const) if (base[field] !== undefined && (typeof base[field] !== "string" || base[field] === "")) return `base.${field} must be a non-empty string`;
  const user = optionalObject(seed.user);
  if (user === null) return "user must be an object { login, type? }";
  if (seed.user !== undefined && (typeof user.login !== "string" || user.login === "")) return "user.login must be a non-empty string";
  if (user.type !== undefined && user.type !== "User" && user.type !== "Bot") return 'user.type must be "User" or "Bot"';
  if (seed.state !== undefined && seed.state !== "open" && seed.state !== "closed") return 'state must be "open" or "closed"';
  if (seed.title !== undefined && typeof seed.title !== "string") return "title must be a string";
  if (seed.body !== undefined && seed.body !== null && typeof seed.body !== "string") return "body must be a string or null";
  if (seed.draft !== undefined && typeof seed.draft !== "boolean") return "draft must be a boolean";
  return seed as PullSeed;
}

/** A file to seed, or what is wrong with it. */
export function fileSeed(value: unknown): FileSeed | string {
  if (typeof value !== "object" || value === null) return "a file is a JSON object: { repo, path, ref?, content }";
  const seed = value as Record<string, unknown>;
  if (typeof seed.repo !== "string" || !REPO_NAME.test(seed.repo)) return "repo must be owner/name";
  if (typeof seed.path !== "string" || seed.path.replace(/^\/+|\/+$/g, "") === "") return "path must be a file's path in the repository";
  if (seed.ref !== undefined && (typeof seed.ref !== "string" || seed.ref === "")) return "ref must be a non-empty string";
  if (typeof seed.content !== "string") return "content must be a string (the file's text)";
  return seed as FileSeed;
}

/** A repository's settings to seed, or what is wrong with them. */
export function repoSeed(value: unknown): RepoSeed | string {
  if (typeof value !== "object" || value === null) return "a repository is a JSON object: { repo, defaultBranch?, private? }";
  const seed = value as Record<string, unknown>;
  if (typeof seed.repo !== "string" || !REPO_NAME.test(seed.repo)) return "repo must be owner/name";
  if (seed.defaultBranch !== undefined && (typeof seed.defaultBranch !== "string" || seed.defaultBranch === "")) return "defaultBranch must be a non-empty string";
  if (seed.private !== undefined && typeof seed.private !== "boolean") return "private must be a boolean";
  return seed as RepoSeed;
}

/** An optional object field: {} when absent, null when not an object. */
function optionalObject(value: unknown): Record<string, unknown> | null {
  if (value === undefined) return {};
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** One readable line per recorded call, for the dev log. */
export function describeRecord(record: StandinRecord): string {
  return `${describeCall(record)}${record.refused ? ` — REFUSED ${record.refused.status}: ${record.refused.message.replace(/\s+/g, " ")}` : ""}${record.fault ? ` — fault: ${record.fault}` : ""}`;
}

function describeCall(record: StandinRecord): string {
  const body = record.body as { content?: unknown; body?: unknown } | undefined;
  if (typeof body?.content === "string") return `${record.method} ${record.path} (${body.content})`;
  if (typeof body?.body === "string") {
    const lines = body.body.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("<!--"));
    // A closing comment opens with its line to the requester: show the heading after it too.
    const shown = lines[0]?.startsWith("@") && lines.length > 1 ? `${lines[0]} · ${lines[1]}` : (lines[0] ?? "");
    return `${record.method} ${record.path}: ${shown.slice(0, 120)}`;
  }
  return `${record.method} ${record.path}`;
}

function bearer(header: string | undefined): string | null {
  const match = /^(?:token|bearer)\s+(\S+)$/i.exec(header?.trim() ?? "");
  return match ? match[1]! : null;
}

function readBody(request: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on("end", () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function send(response: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  if (body === undefined) {
    response.writeHead(status, headers).end();
    return;
  }
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers }).end(JSON.stringify(body));
}
