/**
 * The GitHub stand-in's own routes under `/_standin/`, never recorded: its
 * records and refusals, deliveries, revoked tokens, the webhook target,
 * faults, seeds (pull requests, repositories, files, CI runs, where issue
 * numbers start, branches, rules, git directories), the commits made
 * through the API, CI deliveries, a job's log where GitHub's 302 sends it,
 * and `validate` (REST) and `validate-graphql` for fakes that cannot run
 * Ajv or graphql-js (docs/github-standin.md).
 */
import type { ServerResponse } from "node:http";
import type { CiEventName } from "./github-delivery";
import type { GitHubDescription } from "./github-openapi";
import { ciRunSeed, JOB_LOGS_PATH } from "./github-standin-checks";
import type { RateLimitFaults } from "./github-standin-faults";
import { send } from "./github-standin-http";
import { refusalsOf, type StandinRecord } from "./github-standin-records";
import { branchSeed, fileSeed, gitSeed, pullSeed, repoSeed, rulesSeed } from "./github-standin-seeds";
import { checkGraphqlRequest } from "./github-graphql";
import type { GitHubStandinState } from "./github-standin-state";
import { webhookTarget, type WebhookSender, type WebhookTarget } from "./github-standin-webhooks";

/** What the routes reach of a running stand-in. */
export type StandinControl = {
  description: GitHubDescription;
  state: GitHubStandinState;
  webhooks: WebhookSender;
  faults: RateLimitFaults;
  /** The stand-in's records, emptied in place by `DELETE /_standin/records`. */
  records: StandinRecord[];
  webhook(): WebhookTarget | null;
  setWebhook(target: WebhookTarget | null): void;
  /** Sends a seeded run's completed delivery; what is wrong when it cannot. */
  deliverCi(event: CiEventName, id: number): string | null;
};

const webhookUrl = (target: WebhookTarget | null) => (target ? { url: target.url } : null);

export function handleControl(standin: StandinControl, method: string, path: string, body: unknown, unparsable: boolean, response: ServerResponse): void {
  const { description, faults, records, state, webhooks } = standin;
  if (path === "/_standin/records") {
    if (method === "GET") return send(response, 200, { records });
    if (method === "DELETE") {
      records.length = 0;
      webhooks.forget();
      faults.clear();
      state.clear();
      return send(response, 204);
    }
    return send(response, 405, { message: "method not allowed" });
  }
  if (path === "/_standin/refusals" && method === "GET") return send(response, 200, { refusals: refusalsOf(records) });
  if (path === "/_standin/deliveries" && method === "GET") return send(response, 200, { deliveries: webhooks.deliveries() });
  if (path === "/_standin/revoked" && method === "GET") return send(response, 200, { revoked: state.revoked() });
  if (path === "/_standin/webhook" && method === "GET") return send(response, 200, { webhook: webhookUrl(standin.webhook()) });
  if (path === "/_standin/api-commits" && method === "GET") {
    const commits = state.apiCommits().map((commit) => ({ ...commit, additions: commit.additions.map((addition) => ({ path: addition.path, contents: addition.contents.toString("base64") })) }));
    return send(response, 200, { commits });
  }
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
      standin.setWebhook(null);
      return send(response, 204);
    }
    const target = webhookTarget(asked);
    if (typeof target === "string") return send(response, 422, { message: target });
    standin.setWebhook(target);
    return send(response, 204);
  }
  if (path === "/_standin/faults" && method === "POST") {
    const fault = (body ?? {}) as { kind?: unknown; token?: unknown; times?: unknown; retryAfterSeconds?: unknown; method?: unknown; path?: unknown };
    if (fault.kind === "expired_token") {
      state.expire(typeof fault.token === "string" ? fault.token : undefined);
      return send(response, 204);
    }
    if (fault.kind === "secondary_rate_limit") {
      faults.add({
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
  if (path === "/_standin/issue-numbers" && method === "POST") {
    const asked = (body ?? {}) as { repo?: unknown; from?: unknown };
    if (typeof asked.repo !== "string" || !/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(asked.repo)) return send(response, 422, { message: "repo must be owner/name" });
    if (typeof asked.from !== "number" || !Number.isSafeInteger(asked.from) || asked.from < 1 || asked.from > 2 ** 31 - 1) return send(response, 422, { message: "from must be a whole number from 1 to 2147483647" });
    state.numberFrom(asked.repo, asked.from);
    return send(response, 204);
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
    const problem = standin.deliverCi(asked.event, asked.id);
    return problem === null ? send(response, 202) : send(response, 422, { message: problem });
  }
  if (path === "/_standin/files" && method === "POST") {
    const seed = fileSeed(body);
    if (typeof seed === "string") return send(response, 422, { message: seed });
    state.seedFile(seed);
    return send(response, 204);
  }
  for (const [route, check, seed] of [
    ["/_standin/branches", branchSeed, (value: never) => state.seedBranch(value)],
    ["/_standin/rules", rulesSeed, (value: never) => state.seedRules(value)],
    ["/_standin/git", gitSeed, (value: never) => state.seedGit(value)]
  ] as const) {
    if (path !== route || method !== "POST") continue;
    const checked = check(body);
    if (typeof checked === "string") return send(response, 422, { message: checked });
    seed(checked as never);
    return send(response, 204);
  }
  if (path === "/_standin/validate-graphql" && method === "POST") {
    const verdict = checkGraphqlRequest(body);
    return send(response, 200, verdict.ok ? { ok: true, operation: verdict.operation.operation } : verdict);
  }
  if (path === "/_standin/validate" && method === "POST") {
    const asked = (body ?? {}) as { method?: unknown; url?: unknown; body?: unknown; headers?: unknown };
    if (typeof asked.method !== "string" || typeof asked.url !== "string") return send(response, 422, { message: "method and url are required strings" });
    const headers = typeof asked.headers === "object" && asked.headers !== null ? (asked.headers as Record<string, string>) : undefined;
    return send(response, 200, description.check({ method: asked.method, url: asked.url, body: asked.body, ...(headers ? { headers } : {}) }));
  }
  return send(response, 404, { message: "Not Found" });
}
