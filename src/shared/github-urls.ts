/**
 * The one GitHub this deploy works on, and links to its pages. Everything host-specific derives
 * from GITHUB_API_URL, the API the Worker posts to: the web origin of the links a human follows
 * (the run envelope, the dashboard), the host `gh` and git work on in the container, and the
 * noreply domain the App's bot commits with. github.com, a GHE.com tenant and an Enterprise
 * Server are told apart; empty is github.com; a loopback URL is the local stand-in; anything
 * else is a GitHubConfigError naming the variable, never a fallback to github.com.
 * The table, its sources and why only https: docs/containers.md, "Which GitHub".
 * Pure; it calls no GitHub and does not decide where comments are posted (src/report/).
 */

export type GitHubKind = "github.com" | "ghe.com" | "ghes";

export type GitHubHost = {
  kind: GitHubKind;
  /** What `gh` works on (`--hostname`, GH_HOST) and git fetches from. */
  host: string;
  /** The origin of the pages a human follows: `https://<host>`. */
  web: string;
  /** The domain of the App's bot commit address: `<id>+<login>@<noreplyDomain>`. */
  noreplyDomain: string;
};

export const GITHUB_COM: GitHubHost = {
  kind: "github.com",
  host: "github.com",
  web: "https://github.com",
  noreplyDomain: "users.noreply.github.com"
};

/** github.com's web origin: links in envelopes written before the host was configurable. */
export const GITHUB_WEB_URL = GITHUB_COM.web;

/** GITHUB_API_URL is not a GitHub API this deploy can work on. */
export class GitHubConfigError extends Error {
  readonly code = "bad_github_api_url";
  constructor(message: string) {
    super(message);
    this.name = "GitHubConfigError";
  }
}

export type GitHubHostResult = { ok: true; github: GitHubHost } | { ok: false; error: string };

/** One DNS label, lowercase (URL parsing lowercases hosts). */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const TENANT_API = /^api\.([^.]+)\.ghe\.com$/;
const LOOPBACK = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/;

/** A host name (as URL parsing gives it, lowercase) that is this machine: the local stand-in, or a link that leads nowhere once deployed. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname);
}

const EXPECTED =
  "https://api.github.com, https://api.<subdomain>.ghe.com (GHE.com) or https://<host>/api/v3 (GitHub Enterprise Server); empty means github.com";

function isHostname(host: string): boolean {
  const labels = host.split(".");
  return host.length <= 253 && labels.every((label) => LABEL.test(label)) && !/^\d+$/.test(labels.at(-1)!);
}

function isGitHubDomain(host: string): boolean {
  return host === "github.com" || host.endsWith(".github.com") || host === "ghe.com" || host.endsWith(".ghe.com");
}

function tenant(subdomain: string): GitHubHost {
  const host = `${subdomain}.ghe.com`;
  return { kind: "ghe.com", host, web: `https://${host}`, noreplyDomain: `users.noreply.${host}` };
}

function enterpriseServer(host: string): GitHubHost {
  return { kind: "ghes", host, web: `https://${host}`, noreplyDomain: `users.noreply.${host}` };
}

/**
 * The local stand-in serving GitHub Enterprise Server's description under
 * /api/v3 (the e2e tests' Enterprise chain): its web origin is the stand-in
 * itself, port included, so nothing it is sent names github.com.
 */
function localEnterpriseServer(url: URL): GitHubHost {
  return { kind: "ghes", host: url.host, web: `${url.protocol}//${url.host}`, noreplyDomain: `users.noreply.${url.hostname}` };
}

/** The GitHub a GITHUB_API_URL names, or why it names none (the reason names the variable). */
export function parseGitHubApiUrl(value: string | undefined): GitHubHostResult {
  const raw = (value ?? "").trim();
  if (raw === "") return { ok: true, github: GITHUB_COM };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse(JSON.stringify(raw.slice(0, 100)));
  }
  // Shown without any user:password, which has no business in this variable.
  const shown = JSON.stringify(`${url.protocol}//${url.host}${url.pathname}${url.search}`);
  if (url.username || url.password || url.search || url.hash) return refuse(shown);
  const path = url.pathname.replace(/\/+$/, "");
  if (isLoopbackHost(url.hostname) && (url.protocol === "http:" || url.protocol === "https:")) {
    if (path === "") return { ok: true, github: GITHUB_COM };
    if (path === "/api/v3") return { ok: true, github: localEnterpriseServer(url) };
  }
  if (url.protocol !== "https:" || url.port !== "") return refuse(shown);
  if (url.hostname === "api.github.com" && path === "") return { ok: true, github: GITHUB_COM };
  const subdomain = TENANT_API.exec(url.hostname)?.[1];
  if (subdomain !== undefined) {
    return path === "" && LABEL.test(subdomain) ? { ok: true, github: tenant(subdomain) } : refuse(shown);
  }
  if (path === "/api/v3" && isHostname(url.hostname) && !isGitHubDomain(url.hostname)) {
    return { ok: true, github: enterpriseServer(url.hostname) };
  }
  return refuse(shown);
}

function refuse(shown: string): GitHubHostResult {
  return { ok: false, error: `GITHUB_API_URL must be ${EXPECTED}; got ${shown}` };
}

/**
 * GITHUB_GIT_URL: where the egress gateway sends git and web requests for the deploy's GitHub
 * instead of its web origin; only for the local stand-in (GITHUB_API_URL on loopback under
 * LOCAL_DEV), so the real-container suite can push to a git server on the host. Empty: none.
 */
export function parseGitUpstream(value: string | undefined, apiUrl: string | undefined, localDev: boolean): { ok: true; url?: string } | { ok: false; error: string } {
  const raw = (value ?? "").trim();
  if (raw === "") return { ok: true };
  let url: URL | null = null;
  try {
    url = new URL(raw);
  } catch {
    // Reported below.
  }
  const api = (() => {
    try {
      return new URL((apiUrl ?? "").trim());
    } catch {
      return null;
    }
  })();
  if (!localDev || !api || !isLoopbackHost(api.hostname)) {
    return { ok: false, error: "GITHUB_GIT_URL is only for local dev against the GitHub stand-in (LOCAL_DEV=1 with GITHUB_API_URL on loopback); unset it" };
  }
  if (!url || !isLoopbackHost(url.hostname) || !/^https?:$/.test(url.protocol) || url.username || url.password || url.search || url.hash || url.pathname !== "/") {
    return { ok: false, error: `GITHUB_GIT_URL must be an http(s) origin on loopback, such as http://127.0.0.1:9000; got ${JSON.stringify(raw.slice(0, 100))}` };
  }
  return { ok: true, url: url.origin };
}

/** The GitHub a GITHUB_API_URL names. Throws a GitHubConfigError naming the variable when it names none. */
export function githubHost(apiUrl: string | undefined): GitHubHost {
  const parsed = parseGitHubApiUrl(apiUrl);
  if (!parsed.ok) throw new GitHubConfigError(parsed.error);
  return parsed.github;
}

export const issueUrl = (web: string, repo: string, issueNumber: number) => `${web}/${repo}/issues/${issueNumber}`;

export const commentUrl = (web: string, repo: string, issueNumber: number, commentId: number) =>
  `${issueUrl(web, repo, issueNumber)}#issuecomment-${commentId}`;
