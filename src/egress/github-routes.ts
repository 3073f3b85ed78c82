/**
 * What a sandbox request to the deploy's GitHub is: a git smart-HTTP read or push of one
 * repository, a Git LFS batch, a REST or GraphQL API call, an upload, or any other page; and
 * where the gateway sends it (`upstream`: the same URLs in production, the local stand-in or a
 * test's git server elsewhere). A path the patterns do not read exactly is `web`: GET and HEAD
 * only, with no credential. Pure.
 */
import type { GitHubHost } from "../shared/github-urls";

/** The origins the sandbox uses, and where each is forwarded (origin, or base URL for the API). */
export type GitHubEndpoints = {
  /** Git and web pages: `https://github.com`. */
  web: string;
  /** The REST API's base: `https://api.github.com`, `https://<host>/api/v3`. */
  api: string;
  /** The GraphQL endpoint: `https://api.github.com/graphql`, `https://<host>/api/graphql`. */
  graphql: string;
  /** Release-asset uploads: always refused. */
  uploads: string;
  upstream: { web: string; api: string; graphql: string };
};

export type GitService = "upload-pack" | "receive-pack";

export type GitHubRoute =
  | { kind: "git"; repo: string; service: GitService; step: "advertise" | "rpc"; target: string }
  | { kind: "lfs-batch"; repo: string; target: string }
  | { kind: "rest"; target: string }
  | { kind: "graphql"; target: string }
  | { kind: "uploads" }
  | { kind: "web"; target: string }
  /** A GitHub host by another scheme, port or spelling (`http://`, `:8443`, a trailing dot): never forwarded. */
  | { kind: "elsewhere" };

/** The endpoints of the GitHub GITHUB_API_URL names, forwarded to `apiUrl` itself (empty: the public API). */
export function endpointsFor(github: GitHubHost, apiUrl: string, gitUrl?: string): GitHubEndpoints {
  const configured = apiUrl.trim().replace(/\/+$/, "");
  // github.web: https://<host>, or the local stand-in's own origin when it plays an Enterprise Server.
  const web = github.web;
  if (github.kind === "ghes") {
    const api = `${web}/api/v3`;
    const upstreamApi = configured || api;
    return {
      web,
      api,
      graphql: `${web}/api/graphql`,
      uploads: `${web}/api/uploads`,
      upstream: { web: gitUrl ?? github.web, api: upstreamApi, graphql: upstreamApi.replace(/\/v3$/, "/graphql") }
    };
  }
  const api = `https://api.${github.host}`;
  const upstreamApi = configured || api;
  return {
    web,
    api,
    graphql: `${api}/graphql`,
    uploads: `https://uploads.${github.host}`,
    upstream: { web: gitUrl ?? github.web, api: upstreamApi, graphql: `${upstreamApi}/graphql` }
  };
}

/** `owner/name`, lowercase, as a git URL's path names it (`/owner/name.git/…` or `/owner/name/…`). */
const REPO_PATH = /^\/([A-Za-z0-9](?:[A-Za-z0-9-]{0,38}))\/([A-Za-z0-9._-]{1,100}?)(?:\.git)?\/(.*)$/;

/** What `url` is on this GitHub, or null when it is not this GitHub. */
export function githubRoute(url: URL, endpoints: GitHubEndpoints): GitHubRoute | null {
  const origin = url.origin;
  const rest = `${url.pathname}${url.search}`;
  if (origin === new URL(endpoints.uploads).origin && url.pathname.startsWith(new URL(endpoints.uploads).pathname)) return { kind: "uploads" };
  const graphql = new URL(endpoints.graphql);
  if (origin === graphql.origin && url.pathname.replace(/\/+$/, "") === graphql.pathname) {
    // GitHub reads a GraphQL request from its body, which the gateway read: nothing rides along in the query string.
    return { kind: "graphql", target: endpoints.upstream.graphql };
  }
  const api = new URL(endpoints.api);
  const apiPath = api.pathname.replace(/\/+$/, "");
  if (origin === api.origin && (apiPath === "" || url.pathname === apiPath || url.pathname.startsWith(`${apiPath}/`))) {
    return { kind: "rest", target: endpoints.upstream.api + rest.slice(apiPath.length) };
  }
  if (origin !== new URL(endpoints.web).origin) return isGitHubHost(url, endpoints) ? { kind: "elsewhere" } : null;
  const target = endpoints.upstream.web + rest;
  const match = REPO_PATH.exec(url.pathname);
  if (!match || /%/.test(url.pathname)) return { kind: "web", target };
  const repo = `${match[1]}/${match[2]}`.toLowerCase();
  const tail = match[3]!;
  if (tail === "info/refs") {
    const service = url.searchParams.get("service");
    if (service === "git-upload-pack" || service === "git-receive-pack") {
      return { kind: "git", repo, service: service === "git-upload-pack" ? "upload-pack" : "receive-pack", step: "advertise", target };
    }
    return { kind: "web", target };
  }
  if (tail === "git-upload-pack") return { kind: "git", repo, service: "upload-pack", step: "rpc", target };
  if (tail === "git-receive-pack") return { kind: "git", repo, service: "receive-pack", step: "rpc", target };
  if (tail === "info/lfs/objects/batch") return { kind: "lfs-batch", repo, target };
  return { kind: "web", target };
}

/** Whether `url` names one of this GitHub's hosts, however spelt (a trailing dot, any case), whatever its scheme or port. */
function isGitHubHost(url: URL, endpoints: GitHubEndpoints): boolean {
  const host = url.hostname.toLowerCase().replace(/\.+$/, "");
  return [endpoints.web, endpoints.api, endpoints.graphql, endpoints.uploads].some((endpoint) => new URL(endpoint).hostname === host);
}

/** Which credential a request may need: the gateway asks for no more than that (nothing is minted for a request that needs none). */
export type CredentialNeed = "none" | "read" | "write";

export function credentialNeed(route: GitHubRoute | null, method: string): CredentialNeed {
  if (route === null) return "none";
  switch (route.kind) {
    case "rest":
      return method === "GET" || method === "HEAD" ? "read" : "none";
    case "graphql":
    case "lfs-batch":
      return method === "POST" ? "read" : "none";
    case "git":
      // An advertisement sent anything but GET or HEAD is refused: nothing is minted for it.
      if (route.step === "advertise" && method !== "GET" && method !== "HEAD") return "none";
      return route.service === "receive-pack" ? "write" : "read";
    default:
      return "none";
  }
}
