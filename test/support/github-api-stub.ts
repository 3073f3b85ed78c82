/**
 * A recording stand-in for GitHub's REST and GraphQL API behind the egress
 * gateway in test/unit/egress-git.test.ts: a Node `http` server on
 * 127.0.0.1 that answers the reads `gh` makes before it writes (the
 * repository, an issue, a pull request, a release's tag) with the least JSON
 * gh goes on with, and records every request.
 *
 * A write reaching it (a REST method other than GET or HEAD, a GraphQL
 * document naming a mutation) means the gateway let one through: it is
 * answered like a success, so nothing downstream hides it, and `writes()`
 * lists it for the tests to assert on. It judges writes by its own plain
 * reading, not by src/egress/graphql.ts, so a mistake there is not repeated
 * here. It does not model GitHub beyond that.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type ApiCall = { method: string; path: string; auth: string | null; body: string; graphql: boolean };

const REST_OWNER = { login: "acme", id: 1, type: "Organization" };
const GRAPHQL_OWNER = { __typename: "Organization", login: "acme", id: "O_1" };

export class GitHubApiStub {
  readonly calls: ApiCall[] = [];
  readonly #server: Server;

  private constructor() {
    this.#server = createServer((request, response) => void this.#handle(request, response));
  }

  static async start(): Promise<GitHubApiStub> {
    const stub = new GitHubApiStub();
    await new Promise<void>((resolve, reject) => {
      stub.#server.once("error", reject);
      stub.#server.listen(0, "127.0.0.1", resolve);
    });
    return stub;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /** Every call that would have changed something on GitHub. */
  writes(): ApiCall[] {
    return this.calls.filter((call) => (call.graphql ? /\bmutation\b/.test(call.body) : call.method !== "GET" && call.method !== "HEAD"));
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString("utf8");
    const url = new URL(request.url ?? "/", "http://api.invalid");
    const method = request.method ?? "GET";
    const graphql = url.pathname === "/graphql";
    this.calls.push({ method, path: `${url.pathname}${url.search}`, auth: request.headers.authorization ?? null, body, graphql });
    const json = (status: number, value: unknown) => {
      response.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(value));
    };
    if (graphql) return json(200, { data: graphqlData(body) });
    if (method !== "GET" && method !== "HEAD") return json(200, {});
    const rest = restAnswer(url.pathname);
    return rest === null ? json(404, { message: "Not Found" }) : json(200, rest);
  }
}

function restAnswer(path: string): unknown {
  const repo = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path);
  if (!repo) return path === "/user" ? { login: "agent-think[bot]", id: 2, type: "Bot" } : null;
  const [, owner, name, tail = ""] = repo;
  if (tail === "") return { id: 3, name, full_name: `${owner}/${name}`, owner: REST_OWNER, private: true, default_branch: "main" };
  return null;
}

/** Enough of GitHub's schema for gh's feature checks. */
const TYPE_FIELDS: Record<string, string[]> = {
  PullRequest: ["id", "number", "title", "state", "url", "headRefName", "baseRefName", "isDraft", "mergeable", "mergeStateStatus", "autoMergeRequest", "mergeQueueEntry", "isInMergeQueue", "isMergeQueueEnabled", "reviewDecision"],
  Repository: ["id", "name", "owner", "viewerPermission", "defaultBranchRef", "mergeCommitAllowed", "rebaseMergeAllowed", "squashMergeAllowed", "autoMergeAllowed"],
  Issue: ["id", "number", "title", "state", "url"]
};

/**
 * One shape for every query gh sends: GraphQL answers only what was asked,
 * but gh's decoder ignores fields it did not ask for, so one rich answer
 * serves the repository, issue and pull-request lookups alike.
 */
function graphqlData(body: string): unknown {
  let variables: Record<string, unknown> = {};
  let query = "";
  try {
    const parsed = JSON.parse(body) as { query?: unknown; variables?: Record<string, unknown> };
    variables = parsed.variables ?? {};
    query = typeof parsed.query === "string" ? parsed.query : "";
  } catch {
    // An unreadable body gets the defaults below.
  }
  // gh asks which fields a type has before it builds a query (`X: __type(name: "X") { fields { name } }`).
  const types = [...query.matchAll(/(\w+)\s*:\s*__type\(name:\s*"(\w+)"\)/g)];
  if (types.length > 0) return Object.fromEntries(types.map(([, alias, type]) => [alias, { fields: (TYPE_FIELDS[type!] ?? []).map((name) => ({ name })) }]));
  const owner = typeof variables.owner === "string" ? variables.owner : "acme";
  const name = typeof variables.repo === "string" ? variables.repo : typeof variables.name === "string" ? variables.name : "widgets";
  const number = typeof variables.number === "number" ? variables.number : 7;
  const url = `http://github.localhost/${owner}/${name}`;
  const issue = { __typename: "Issue", id: `I_${number}`, number, url: `${url}/issues/${number}`, title: "t", state: "OPEN" };
  const pull = {
    __typename: "PullRequest",
    id: `PR_${number}`,
    number,
    url: `${url}/pull/${number}`,
    title: "t",
    state: "OPEN",
    headRefName: "agent-think/issue-7",
    baseRefName: "main",
    isDraft: false,
    mergeable: "MERGEABLE",
    headRepositoryOwner: GRAPHQL_OWNER,
    headRepository: { name },
    isCrossRepository: false
  };
  const repository = {
    id: "R_3",
    name,
    owner: GRAPHQL_OWNER,
    nameWithOwner: `${owner}/${name}`,
    url,
    isPrivate: true,
    hasIssuesEnabled: true,
    hasWikiEnabled: false,
    viewerPermission: "WRITE",
    defaultBranchRef: { name: "main" },
    parent: null,
    mergeCommitAllowed: true,
    rebaseMergeAllowed: true,
    squashMergeAllowed: true,
    issue,
    pullRequest: pull,
    pullRequests: { totalCount: 0, nodes: [] }
  };
  return { repository, viewer: { login: "agent-think[bot]", id: "U_2" } };
}
