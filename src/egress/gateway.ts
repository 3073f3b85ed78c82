/**
 * The egress gateway: every HTTP(S) request of the sandbox (the container's, intercepted by the
 * platform; the worker shell's `curl`) arrives here with its original URL and is decided
 * (docs/security.md, "What the gateway does per request"). The sandbox's own credentials are
 * dropped; the grant's token (grant.ts) goes only with what the run may do: git reads, a push
 * that only moves the run's branch forward (receive-pack.ts, push-ancestry.ts), REST and GraphQL
 * reads (hidden text revealed), a private registry's credential (registry-grants.ts). Other hosts:
 * the allowlist. No redirect is followed. Each refusal is a 403 (or git's report), told to
 * `refused`. Pure apart from the grant, the upstream fetch and the sink.
 */
import { allowed, listedMethods, wildcardMiss } from "../run/host-allowlist";
import type { EgressGrant } from "./grant";
import { registryMatch } from "./registry-grants";
import { graphqlRequestKind } from "./graphql";
import { credentialNeed, githubRoute, type CredentialNeed, type GitHubEndpoints, type GitHubRoute } from "./github-routes";
import { drainReader, joinChunks, readUpTo } from "./body-reader";
import { compareAsker, fastForwardRefusal } from "./push-ancestry";
import { pushRefusal, readCommands, refusalReport, type RefUpdate } from "./receive-pack";
import { revealJson } from "../run/reveal";

/** One refused request, as a run records it. */
export type EgressRefusal = { submissionId?: string; host: string; method: string; reason: string };

export type EgressGatewayDeps = {
  endpoints: GitHubEndpoints;
  /** The run's grant, with no more credential in it than `need` (a read-only token for a read, the write token for a push). */
  grant: (need: CredentialNeed) => Promise<EgressGrant>;
  upstream: (request: Request) => Promise<Response>;
  refused: (refusal: EgressRefusal) => void | Promise<void>;
};

/** What the tools say a sandbox must use instead of writing to GitHub itself. */
export const API_WRITE_REFUSAL =
  "GitHub write refused: the sandbox may only read GitHub. Push commits with git to the run's branch (where the workspace block's commits.via is api, commit locally and let open_pull_request make them); open or update the pull request with the open_pull_request tool; say what the issue should hear with report_result.";

/**
 * An API answer larger than this is passed on as it came, without its hidden
 * text revealed (a page of 100 issues at GitHub's 65,536-character body limit
 * is under 7 MiB).
 */
export const MAX_REVEALED_ANSWER_BYTES = 8 * 1024 * 1024;

/** A refused request's body is read (not cancelled) up to this much before the answer; past it the sender is cut off. */
export const MAX_DRAINED_BYTES = 512 * 1024 * 1024;

/** A JSON body the gateway reads to decide (GraphQL, an LFS batch) is never longer than this. */
export const MAX_INSPECTED_BODY_BYTES = 1024 * 1024;

/** Headers of the sandbox's connection, not of its request: the upstream fetch makes its own. */
const HOP_BY_HOP_HEADERS = ["host", "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "expect"];

/** Headers the sandbox may not send to GitHub: the gateway decides who is asking. */
const CREDENTIAL_HEADERS = ["authorization", "proxy-authorization", "cookie"];

export class EgressGateway {
  readonly #deps: EgressGatewayDeps;

  constructor(deps: EgressGatewayDeps) {
    this.#deps = deps;
  }

  async fetch(request: Request): Promise<Response> {
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return text(400, "egress refused: not a URL");
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return text(400, `egress refused: ${url.protocol} is not HTTP`);
    const method = request.method.toUpperCase();
    const route = githubRoute(url, this.#deps.endpoints);
    const grant = await this.#deps.grant(credentialNeed(route, method));
    if (route) return this.#github(request, method, url, route, grant);
    const registry = registryMatch(grant.registries, url, method);
    if (registry?.kind === "credential") {
      // The registry's credential replaces whatever the sandbox sent; the answer's redirect is the client's to follow, without it.
      return this.#forward(request, url.toString(), method, withoutCredentials(request.headers), registry.grant.authorization);
    }
    if (registry?.kind === "method") {
      const reason = `egress refused: registries: gives ${registry.grant.host}${registry.grant.path} only ${registry.grant.methods.join(", ")}, not ${method} (add it to that entry's methods in .github/agent-think.yml)`;
      return this.#refuse(request, grant, url, method, reason);
    }
    if (!grant.open) {
      const verdict = allowed(grant.allow, method, url);
      if (verdict !== "allowed") return this.#refuse(request, grant, url, method, hostRefusal(grant.allow, url.hostname, method, verdict));
    }
    return this.#forward(request, url.toString(), method, request.headers, null);
  }

  async #github(request: Request, method: string, url: URL, route: GitHubRoute, grant: EgressGrant): Promise<Response> {
    const refuse = (reason: string) => this.#refuse(request, grant, url, method, reason);
    switch (route.kind) {
      case "uploads":
        return refuse(API_WRITE_REFUSAL);
      case "elsewhere":
        return refuse(`egress refused: GitHub is reached only at ${this.#deps.endpoints.web} and ${this.#deps.endpoints.api}, over HTTPS`);
      case "web":
        if (method !== "GET" && method !== "HEAD") return refuse(API_WRITE_REFUSAL);
        return this.#forward(request, route.target, method, withoutCredentials(request.headers), null);
      case "rest":
        if (method !== "GET" && method !== "HEAD") return refuse(API_WRITE_REFUSAL);
        return revealAnswer(await this.#forward(request, route.target, method, withoutCredentials(request.headers), bearer(grant.readToken)));
      case "graphql": {
        if (method !== "POST") return refuse(API_WRITE_REFUSAL);
        const body = await boundedText(request);
        if (body === null || graphqlRequestKind(body) !== "read") return refuse(API_WRITE_REFUSAL);
        return revealAnswer(await this.#forward(request, route.target, method, withoutCredentials(request.headers), bearer(grant.readToken), body));
      }
      case "lfs-batch": {
        if (method !== "POST") return refuse(API_WRITE_REFUSAL);
        const body = await boundedText(request);
        const operation = body === null ? undefined : lfsOperation(body);
        if (operation !== "download") return refuse("Git LFS upload refused: the sandbox may only download LFS objects");
        const token = grant.readRepos.includes(route.repo) ? grant.readToken : "";
        return this.#forward(request, route.target, method, withoutCredentials(request.headers), basic(token), body);
      }
      case "git":
        return this.#git(request, method, url, route, grant);
    }
  }

  async #git(request: Request, method: string, url: URL, route: Extract<GitHubRoute, { kind: "git" }>, grant: EgressGrant): Promise<Response> {
    const headers = withoutCredentials(request.headers);
    if (route.step === "advertise" && method !== "GET" && method !== "HEAD") {
      return this.#refuse(request, grant, url, method, `git refused: the ref advertisement (info/refs) is read with GET or HEAD, not ${method}`);
    }
    if (route.service === "upload-pack") {
      const token = grant.readRepos.includes(route.repo) ? grant.readToken : "";
      return this.#forward(request, route.target, method, headers, basic(token));
    }
    const denied = pushTargetRefusal(route.repo, grant);
    if (route.step === "advertise") {
      if (denied) return this.#refuse(request, grant, url, method, denied);
      return this.#forward(request, route.target, method, headers, basic(grant.writeToken));
    }
    if (method !== "POST" || request.body === null) return this.#refuse(request, grant, url, method, "push refused: not a git push");
    const body = request.headers.get("content-encoding")?.toLowerCase() === "gzip" ? request.body.pipeThrough(new DecompressionStream("gzip")) : request.body;
    headers.delete("content-encoding");
    headers.delete("content-length");
    const read = await readCommands(body);
    if (!read.ok) return this.#refuse(request, grant, url, method, `push refused: ${read.reason}`);
    const refusePush = async (why: string) => {
      await this.#deps.refused(refusalOf(grant, url, method, why));
      // Read the pack to its end before answering, as receive-pack does: a client still sending would see a broken pipe, not the reason.
      await drain(read.body);
      return pushReport(read.commands, read.capabilities, why);
    };
    const why = denied ?? pushRefusal(read.commands, grant.pushBranch);
    if (why) return refusePush(why);
    if (read.commands.length === 0) {
      // git's probe before a large push: receive-pack answers it with nothing, and so does the gateway, with no token sent anywhere.
      await drain(read.body);
      return new Response(null, { status: 200, headers: { "content-type": "application/x-git-receive-pack-result", "cache-control": "no-cache" } });
    }
    // The compare API is the Worker's own request, with the write token: the sandbox never holds it.
    const ask = compareAsker({ api: this.#deps.endpoints.upstream.api, repo: route.repo, token: grant.writeToken, upstream: this.#deps.upstream });
    const forced = await fastForwardRefusal(read, grant.pushBranch ?? "", ask);
    if (forced) return refusePush(forced);
    return this.#forward(request, route.target, method, headers, basic(grant.writeToken), read.body);
  }

  async #refuse(request: Request, grant: EgressGrant, url: URL, method: string, reason: string): Promise<Response> {
    await this.#deps.refused(refusalOf(grant, url, method, reason));
    // Read what the client still sends before answering: a body left behind is still being streamed in, from the
    // container through the workspace, after the answer (workerd reports it); and a client mid-upload sees the reason, not a broken pipe.
    if (request.body && !request.bodyUsed && !request.body.locked) await drain(request.body);
    return text(403, reason);
  }

  /** Send the request on to `target`, with `auth` when given, never following a redirect. */
  #forward(
    request: Request,
    target: string,
    method: string,
    headers: Headers,
    auth: string | null,
    body: BodyInit | ReadableStream<Uint8Array> | null = request.body
  ): Promise<Response> {
    const sent = new Headers(headers);
    for (const name of HOP_BY_HOP_HEADERS) sent.delete(name);
    if (typeof body === "string") sent.delete("content-length");
    if (auth) sent.set("authorization", auth);
    const init: RequestInit & { duplex?: "half" } = { method, headers: sent, redirect: "manual" };
    if (method !== "GET" && method !== "HEAD" && body !== null) {
      init.body = body as BodyInit;
      if (typeof body !== "string") init.duplex = "half";
    }
    return this.#deps.upstream(new Request(withoutUserInfo(target), init));
  }
}

/** Why this grant allows no push to `repo`, or null when it may push there (to its branch). */
function pushTargetRefusal(repo: string, grant: EgressGrant): string | null {
  if (grant.repo === undefined) return "push refused: no run is going on";
  if (grant.pushBranch === null || grant.writeToken === "") return grant.pushRefusal ?? "push refused: this run may not push at all";
  if (repo !== grant.repo) return `push refused: this run may push only to ${grant.repo}, not ${repo}`;
  return null;
}

/** git's report of a refused push (`! [remote rejected]`), or a 403 with the reason when the client asked for none. */
function pushReport(commands: readonly RefUpdate[], capabilities: readonly string[], why: string): Response {
  const report = refusalReport(commands, capabilities, why);
  if (!report) return text(403, why);
  return new Response(report, { status: 200, headers: { "content-type": "application/x-git-receive-pack-result", "cache-control": "no-cache" } });
}

function hostRefusal(entries: EgressGrant["allow"], host: string, method: string, verdict: "method" | "host"): string {
  const fix = `add it to network.allow in .github/agent-think.yml on the default branch, or to the operator's EGRESS_ALLOW; a private registry that needs a credential goes under registries: there instead`;
  if (verdict === "method") {
    const methods = listedMethods(entries, host);
    const may = methods.every((listed) => listed === "GET" || listed === "HEAD") ? "this run may only read from it" : `this run may use only ${methods.join(", ")} there`;
    return `egress refused: ${method} to ${host} is not allowed (${may}); to allow it, ${fix}`;
  }
  const miss = wildcardMiss(entries, host);
  return `egress refused: ${host} is not on this run's network allowlist${miss ? ` (${miss})` : ""}; to allow it, ${fix}`;
}

function refusalOf(grant: EgressGrant, url: URL, method: string, reason: string): EgressRefusal {
  return { ...(grant.submissionId ? { submissionId: grant.submissionId } : {}), host: url.hostname, method, reason };
}

function withoutCredentials(headers: Headers): Headers {
  const out = new Headers(headers);
  for (const name of CREDENTIAL_HEADERS) out.delete(name);
  return out;
}

function withoutUserInfo(target: string): string {
  const url = new URL(target);
  url.username = "";
  url.password = "";
  return url.toString();
}

const bearer = (token: string) => (token ? `token ${token}` : null);
const basic = (token: string) => (token ? `Basic ${btoa(`x-access-token:${token}`)}` : null);

function text(status: number, message: string): Response {
  return new Response(`${message}\n`, { status, headers: { "content-type": "text/plain; charset=utf-8", "x-agent-think-egress": "refused" } });
}

/** The body as text when it is at most MAX_INSPECTED_BODY_BYTES, else null. */
async function boundedText(request: Request): Promise<string | null> {
  if (request.body === null) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    // Past the bound the rest is read and dropped, not cancelled: see #refuse.
    if (size > MAX_INSPECTED_BODY_BYTES) continue;
    chunks.push(value);
  }
  if (size > MAX_INSPECTED_BODY_BYTES) return null;
  return new TextDecoder().decode(joinChunks(chunks));
}

function lfsOperation(body: string): string | undefined {
  try {
    const operation = (JSON.parse(body) as { operation?: unknown }).operation;
    return typeof operation === "string" ? operation : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Read what a refused request still sends, up to MAX_DRAINED_BYTES (a push
 * as big as a large repository's pack), then cut it off.
 */
function drain(body: ReadableStream<Uint8Array>): Promise<void> {
  return drainReader(body.getReader(), MAX_DRAINED_BYTES);
}

/**
 * A GitHub API answer with the hidden text in what people wrote made
 * visible and flagged (src/run/reveal.ts): an issue's body, its comments, a
 * pull request's. Only JSON answers within MAX_REVEALED_ANSWER_BYTES; any
 * other passes as it came.
 */
async function revealAnswer(response: Response): Promise<Response> {
  const type = response.headers.get("content-type") ?? "";
  if (!/json/i.test(type) || response.body === null || Number(response.headers.get("content-length") ?? "0") > MAX_REVEALED_ANSWER_BYTES) return response;
  const read = await readUpTo(response.body, MAX_REVEALED_ANSWER_BYTES);
  if (read.rest) return new Response(read.rest, response);
  const text = new TextDecoder().decode(read.bytes);
  // The body is read (decoded) here and sent anew: its length, encoding and validator are no longer the upstream's.
  const headers = new Headers(response.headers);
  for (const name of ["content-length", "content-encoding", "etag"]) headers.delete(name);
  const init = { status: response.status, statusText: response.statusText, headers };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return new Response(text, init);
  }
  const { value, revealed, kinds } = revealJson(parsed);
  if (revealed) headers.set("x-agent-think-revealed", `hidden text made visible: ${kinds.join(", ")}`);
  return new Response(revealed ? JSON.stringify(value) : text, init);
}
