/**
 * Which links a message on the issue may carry: our own pages (under
 * PUBLIC_BASE_URL) and the run's repository on GitHub's web host. Everything
 * else a model writes is shown as text, never as a link (neutralize.ts).
 * Also the two URLs a result names: a pull request must be one of the run's
 * repository, a reproduction must be one of our pages.
 *
 * Pure: the hosts are parameters (GitHub's web host is configuration, not a
 * constant here). Used by closing-text.ts and message-parts.ts; it renders nothing.
 */

export type LinkPolicy = {
  /** Our own pages (PUBLIC_BASE_URL): the thread, reproductions. Empty: none. */
  publicBaseUrl: string;
  /** GitHub's web host, e.g. `https://github.com`. Empty: no GitHub page counts as the run's repository. */
  githubWebUrl: string;
  /** The run's repository, `owner/name`. */
  repo: string;
};

/** A web URL we may link to: under our own base, or a page of the run's repository on GitHub. Null otherwise. */
export function allowedLink(text: string, policy: LinkPolicy): URL | null {
  const url = webUrl(text);
  if (!url) return null;
  return underBase(url, policy.publicBaseUrl) || repoPath(url, policy) !== null ? url : null;
}

/** `https://<web host>/<owner>/<repo>/pull/<n>` of the run's repository, normalized; null for anything else. */
export function pullRequestLink(text: string, policy: LinkPolicy): string | null {
  const url = webUrl(text);
  if (!url || url.search || url.hash) return null;
  const rest = repoPath(url, policy);
  const number = rest === null ? null : /^\/pull\/([1-9]\d{0,9})\/?$/.exec(rest)?.[1];
  return number ? `${url.origin}${url.pathname.replace(/\/$/, "")}` : null;
}

/** A page under PUBLIC_BASE_URL (where reproductions are published), normalized; null for anything else. */
export function reproductionLink(text: string, policy: LinkPolicy): string | null {
  const url = webUrl(text);
  return url && underBase(url, policy.publicBaseUrl) ? url.href : null;
}

/** Same repository, ignoring case (GitHub does). */
export function isRunRepo(repo: string, policy: LinkPolicy): boolean {
  return repo.toLowerCase() === policy.repo.toLowerCase();
}

/** An absolute http(s) URL without credentials, or null. */
function webUrl(text: string): URL | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username || url.password) return null;
  return url;
}

function underBase(url: URL, base: string): boolean {
  const root = webUrl(base);
  if (!root || base.trim() === "") return false;
  if (url.origin !== root.origin) return false;
  const prefix = root.pathname.replace(/\/+$/, "");
  return prefix === "" || url.pathname === prefix || url.pathname.startsWith(`${prefix}/`);
}

/** The path after `/<owner>/<repo>` when `url` is a page of the run's repository on the web host; null otherwise. */
function repoPath(url: URL, policy: LinkPolicy): string | null {
  const host = webUrl(policy.githubWebUrl);
  if (!host || url.origin !== host.origin) return null;
  const match = /^\/([^/]+)\/([^/]+)(\/.*)?$/.exec(url.pathname);
  if (!match || !isRunRepo(`${match[1]}/${match[2]}`, policy)) return null;
  return match[3] ?? "";
}
