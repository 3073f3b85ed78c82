/**
 * Which hosts outside GitHub a run's sandbox may reach, and with which
 * methods.
 *
 * Three sources, in this order: the hosts builds need by default
 * (DEFAULT_ALLOW: package registries and downloads, read-only), the
 * repository's own `network.allow` in `.github/agent-think.yml` (read from
 * its default branch, src/run/repo-config.ts), and the operator's
 * EGRESS_ALLOW. An entry is a host name (`pypi.org`) or a wildcard for its
 * subdomains (`*.example.com`, which does not match `example.com` itself).
 * The defaults allow GET and HEAD only: a write to a public registry would
 * publish what the sandbox holds. An entry a maintainer or the operator
 * named allows every method. Pure.
 */

/** A host pattern and the methods it allows (null: every method). */
export type AllowEntry = { pattern: string; methods: readonly string[] | null; source: AllowSource };
export type AllowSource = "default" | "repository" | "operator";

const READ = ["GET", "HEAD"] as const;

/** Package registries, toolchain downloads and GitHub's download hosts a build fetches from. */
export const DEFAULT_ALLOW: readonly string[] = [
  // npm, yarn, Node.js
  "registry.npmjs.org",
  "registry.yarnpkg.com",
  "nodejs.org",
  // Python
  "pypi.org",
  "files.pythonhosted.org",
  // Rust
  "crates.io",
  "index.crates.io",
  "static.crates.io",
  "static.rust-lang.org",
  // Go
  "proxy.golang.org",
  "sum.golang.org",
  "go.dev",
  "dl.google.com",
  // Ruby, Java
  "rubygems.org",
  "index.rubygems.org",
  "repo.maven.apache.org",
  "repo1.maven.org",
  // Debian and Ubuntu packages
  "deb.debian.org",
  "security.debian.org",
  "archive.ubuntu.com",
  "security.ubuntu.com",
  "ports.ubuntu.com",
  // GitHub's downloads (archives, release assets, raw files, LFS objects)
  "codeload.github.com",
  "objects.githubusercontent.com",
  "raw.githubusercontent.com",
  "release-assets.githubusercontent.com",
  "github-cloud.githubusercontent.com",
  "media.githubusercontent.com"
];

/** npm's audit endpoints take a POST of package names; `npm install` calls them and only warns when refused. */
const NPM_AUDIT = /^\/-\/npm\/v1\/security\//;

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
export const MAX_ALLOW_ENTRIES = 100;

/** Why `entry` is not a host pattern, or null when it is one. */
export function checkHostPattern(entry: string): string | null {
  const host = entry.startsWith("*.") ? entry.slice(2) : entry;
  const labels = host.split(".");
  if (host.length === 0 || host.length > 253) return `${JSON.stringify(entry)} is not a host name`;
  if (!labels.every((label) => LABEL.test(label))) return `${JSON.stringify(entry)} is not a host name (lowercase letters, digits, hyphens and dots; a leading "*." for subdomains)`;
  if (entry.startsWith("*.") && labels.length < 2) return `${JSON.stringify(entry)} is too wide: a wildcard needs a domain with a dot`;
  return null;
}

/** EGRESS_ALLOW: entries separated by commas or whitespace; the valid ones, and an error for each other. */
export function parseAllowSetting(value: string | undefined): { entries: string[]; errors: string[] } {
  const entries: string[] = [];
  const errors: string[] = [];
  for (const raw of (value ?? "").split(/[\s,]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === "") continue;
    const error = checkHostPattern(entry);
    if (error) errors.push(error);
    else entries.push(entry);
  }
  if (entries.length > MAX_ALLOW_ENTRIES) errors.push(`at most ${MAX_ALLOW_ENTRIES} entries; the rest are ignored`);
  return { entries: entries.slice(0, MAX_ALLOW_ENTRIES), errors };
}

/** The whole list for a run: defaults, then the repository's, then the operator's. */
export function allowList(repository: readonly string[], operator: readonly string[]): AllowEntry[] {
  return [
    ...DEFAULT_ALLOW.map((pattern) => ({ pattern, methods: READ, source: "default" as const })),
    ...repository.map((pattern) => ({ pattern, methods: null, source: "repository" as const })),
    ...operator.map((pattern) => ({ pattern, methods: null, source: "operator" as const }))
  ];
}

export function hostMatches(pattern: string, host: string): boolean {
  if (pattern.startsWith("*.")) return host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1;
  return host === pattern;
}

/** Whether the list lets `method` reach `url`: `allowed`, `method` (the host is listed for other methods), or `host` (not listed). */
export function allowed(entries: readonly AllowEntry[], method: string, url: URL): "allowed" | "method" | "host" {
  const host = url.hostname.toLowerCase();
  let listed = false;
  for (const entry of entries) {
    if (!hostMatches(entry.pattern, host)) continue;
    listed = true;
    if (entry.methods === null || entry.methods.includes(method)) return "allowed";
    if (method === "POST" && entry.source === "default" && host === "registry.npmjs.org" && NPM_AUDIT.test(url.pathname)) return "allowed";
  }
  return listed ? "method" : "host";
}
