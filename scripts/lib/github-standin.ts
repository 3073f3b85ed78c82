/**
 * The recording stand-in for the GitHub REST API, for running the bot
 * offline: `npm start` points the agent Worker's GITHUB_API_URL at it,
 * `npm run dev:ingress` the webhook app, and the e2e tests both. This is
 * its HTTP server and the handle tests hold: each request outside
 * `/_standin/` is matched to an operation of GitHub's REST description and
 * validated (github-openapi.ts), answered by github-standin-state.ts and
 * recorded; a GraphQL request is judged against GitHub's schema and answered
 * by github-standin-graphql.ts. What it answers, refuses and delivers, and
 * why, is docs/github-standin.md.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { CiEventName } from "./github-delivery";
import { DEFAULT_GITHUB_DESCRIPTION, GITHUB_DOCS_URL, loadGitHubDescription, refusalBody, type GitHubDescriptionName } from "./github-openapi";
import { bearer, callerOf } from "./github-standin-callers";
import { ciRunSeed, type CiRunSeed, type SeededCiRun } from "./github-standin-checks";
import { handleControl, type StandinControl } from "./github-standin-control";
import { RateLimitFaults, SECONDARY_RATE_LIMIT_MESSAGE, type RateLimitFault } from "./github-standin-faults";
import { readBody, send } from "./github-standin-http";
import { refusalsOf, type StandinRecord } from "./github-standin-records";
import { branchSeed, fileSeed, gitSeed, parsePermissions, pullSeed, repoSeed, rulesSeed } from "./github-standin-seeds";
import { graphqlPath, MAX_GRAPHQL_BODY_BYTES, recordedGraphqlBody } from "./github-standin-graphql";
import { GitHubStandinState, type ApiCommit, type BranchSeed, type FileSeed, type GitSeed, type PullSeed, type RepoSeed, type RoleName, type RulesSeed, type StandinAnswer } from "./github-standin-state";
import { checkedWebhook, webhookFromEnv, WebhookSender, type StandinDelivery, type WebhookTarget } from "./github-standin-webhooks";

export type { ApiCommit, BranchSeed, CommentEvent, FileSeed, GitSeed, PullSeed, RepoSeed, RoleName, RulesSeed, StandinCaller } from "./github-standin-state";
export type { CiRunSeed, SeededCiRun } from "./github-standin-checks";
export { STANDIN_BOT_USER_ID } from "./github-standin-state";
export { describeDelivery, webhookFromEnv, webhookTarget, type StandinDelivery, type WebhookTarget } from "./github-standin-webhooks";
export { callerOf } from "./github-standin-callers";
export type { RateLimitFault } from "./github-standin-faults";
export { describeRecord, type StandinRecord } from "./github-standin-records";
export { branchSeed, fileSeed, gitSeed, parsePermissions, pullSeed, repoSeed, rulesSeed } from "./github-standin-seeds";

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
  /** Sets a branch's head (a repository with no git directory behind it). Throws naming a bad field. */
  seedBranch(branch: BranchSeed): void;
  /** Adds rules (`{ type: "required_signatures" }`…) that apply to `branches` of a repository, or to all. Throws naming a bad field. */
  seedRules(rules: RulesSeed): void;
  /** Puts a bare git repository behind a repository's branches: commits made through the API become real commits in it. */
  seedGit(git: GitSeed): void;
  /** The commits made through GraphQL's `createCommitOnBranch`, oldest first, with their file changes. */
  apiCommits(): ApiCommit[];
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

const TOKEN_LIFETIME_MS = 3_600_000;

export async function startGitHubStandin(options: StandinOptions = {}): Promise<GitHubStandin> {
  const host = options.host ?? "127.0.0.1";
  const description = await loadGitHubDescription(options.description ?? DEFAULT_GITHUB_DESCRIPTION);
  const permissions = options.permissions ?? parsePermissions(process.env.GITHUB_STANDIN_PERMISSIONS ?? "");
  const userLogin = options.userLogin ?? (process.env.GITHUB_STANDIN_USER?.trim() || "octocat");
  let webhook: WebhookTarget | null = checkedWebhook(options.webhook === undefined ? webhookFromEnv(process.env) : options.webhook);
  const records: StandinRecord[] = [];
  const faults = new RateLimitFaults();
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
  const controls: StandinControl = {
    description,
    state,
    webhooks,
    faults,
    records,
    webhook: () => webhook,
    setWebhook: (target) => {
      webhook = target;
    },
    deliverCi
  };

  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      send(response, 500, { message: error instanceof Error ? error.message : String(error) });
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const asked = new URL(request.url ?? "/", "http://standin");
    const method = request.method ?? "GET";
    const path = asked.pathname;
    const graphql = path === graphqlPath(description.apiRoot);
    const raw = await readBody(request, graphql ? MAX_GRAPHQL_BODY_BYTES : undefined);
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
    if (path.startsWith("/_standin/")) return handleControl(controls, method, path, body, unparsable, response);

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
    const fault = faults.take(method, path);
    if (fault) {
      record.fault = "secondary_rate_limit";
      return answer(403, { message: SECONDARY_RATE_LIMIT_MESSAGE, documentation_url: `${GITHUB_DOCS_URL}/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits` }, {
        "retry-after": String(fault.retryAfterSeconds)
      });
    }
    if (unparsable) return refuse(400, "Problems parsing JSON", { message: "Problems parsing JSON", documentation_url: GITHUB_DOCS_URL, status: "400" });
    if (graphql) {
      if (method !== "POST") return refuse(404, `GraphQL takes POST, not ${method}`, { message: "Not Found", documentation_url: GITHUB_DOCS_URL, status: "404" });
      const answered = state.graphql(body, callerOf(token, userLogin));
      record.body = recordedGraphqlBody(body);
      record.operation = answered.operation;
      if (answered.refusal !== undefined) return refuse(answered.status, answered.refusal, answered.body);
      return answer(answered.status, answered.body);
    }

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

  /** Sends a seeded run's completed delivery; what is wrong when it cannot. */
  function deliverCi(event: CiEventName, id: number): string | null {
    const options = state.ciDelivery(event, id);
    if (options === undefined) return `no seeded CI run has ${event === "check_suite" ? "checkSuiteId" : "workflowRunId"} ${id}`;
    if (webhook === null) return "no webhook target is set";
    webhooks.sendCi(webhook, event, options);
    return null;
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  url = `http://${host}:${(server.address() as AddressInfo).port}`;

  return {
    url,
    records: () => [...records],
    refusals: () => refusalsOf(records),
    rateLimitNext: (fault) => faults.add(fault),
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
    seedBranch: (branch) => {
      const seed = branchSeed(branch);
      if (typeof seed === "string") throw new Error(`seedBranch: ${seed}`);
      state.seedBranch(seed);
    },
    seedRules: (rules) => {
      const seed = rulesSeed(rules);
      if (typeof seed === "string") throw new Error(`seedRules: ${seed}`);
      state.seedRules(seed);
    },
    seedGit: (git) => {
      const seed = gitSeed(git);
      if (typeof seed === "string") throw new Error(`seedGit: ${seed}`);
      state.seedGit(seed);
    },
    apiCommits: () => state.apiCommits(),
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
