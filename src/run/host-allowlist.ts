/**
 * Which hosts outside GitHub a run's sandbox may reach, and with which methods: the defaults
 * (DEFAULT_ALLOW, GET and HEAD only), the repository's `network.allow` (repo-config.ts: a host,
 * every method, or `{ host, methods }`) and the operator's EGRESS_ALLOW (every method). A pattern
 * is a host or `*.` and a domain (its subdomains, not the domain). The Public Suffix List (tldts)
 * bounds them: a public suffix is no entry, and a wildcard needs a registrable domain and never
 * reaches a host of another one. Why: docs/security.md. Pure.
 */
import { parse } from "tldts";

/** The methods an entry may name. */
export const ALLOW_METHODS = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"] as const;
export type AllowMethod = (typeof ALLOW_METHODS)[number];

/**
 * One `network.allow` entry as the repository wrote it and the run's egress
 * policy stores it: a host pattern (every method), or one with the methods
 * it allows. A policy stored before method lists existed holds strings.
 */
export type AllowRule = string | { host: string; methods: readonly AllowMethod[] };

/** A host pattern and the methods it allows (null: every method). */
export type AllowEntry = { pattern: string; methods: readonly string[] | null; source: AllowSource };
export type AllowSource = "default" | "repository" | "operator";

const READ = ["GET", "HEAD"] as const;

/**
 * Package registries, toolchain downloads and GitHub's download hosts a
 * build fetches from. Each serves its own content: none fetches from an
 * origin the request names (Go's module proxy and checksum database do,
 * so they are not here; a repository that needs them lists them).
 */
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
  // Go's toolchain downloads (not its modules)
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

/** The Public Suffix List's ICANN and private sections; the input is a host name already checked. */
const PSL = { allowPrivateDomains: true, extractHostname: false } as const;

/** What is wrong with a pattern: its spelling (`syntax`), or that it names hosts of many owners (`wide`). */
export type HostProblem = { kind: "syntax" | "wide"; message: string };

/** Why `entry` is not a host pattern an allowlist may hold, or null when it is one. */
export function hostPatternProblem(entry: string): HostProblem | null {
  const wildcard = entry.startsWith("*.");
  const host = wildcard ? entry.slice(2) : entry;
  const quoted = JSON.stringify(entry);
  if (host.length === 0 || host.length > 253) return { kind: "syntax", message: `${quoted} is not a host name` };
  if (!host.split(".").every((label) => LABEL.test(label))) {
    return { kind: "syntax", message: `${quoted} is not a host name (lowercase letters, digits, hyphens and dots; a leading "*." for subdomains)` };
  }
  const found = parse(host, PSL);
  if (found.isIp) return wildcard ? { kind: "wide", message: `${quoted} is too wide: a wildcard needs a domain name, not an IP address` } : null;
  if (found.publicSuffix === host && (found.isIcann || found.isPrivate)) {
    const why = `${host} is a public suffix (Public Suffix List): the hosts under it belong to different owners`;
    return { kind: "wide", message: wildcard ? `${quoted} is too wide: ${why}; name the exact host instead` : `${quoted} is not one owner's host: ${why}; name the exact host under it instead` };
  }
  if (wildcard && found.domain === null) return { kind: "wide", message: `${quoted} is too wide: a wildcard needs a domain with a dot (such as *.example.com)` };
  return null;
}

/** Why `entry` is not a host pattern (hostPatternProblem's message), or null when it is one. */
export function checkHostPattern(entry: string): string | null {
  return hostPatternProblem(entry)?.message ?? null;
}

/** A method list as an entry gives it: upper-cased, each once, every one of ALLOW_METHODS; null when it is not one. */
export function allowMethods(methods: unknown): AllowMethod[] | null {
  if (!Array.isArray(methods) || methods.length === 0) return null;
  const named = methods.map((method) => (typeof method === "string" ? method.toUpperCase() : ""));
  if (!named.every((method): method is AllowMethod => (ALLOW_METHODS as readonly string[]).includes(method))) return null;
  return [...new Set(named)];
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

/**
 * The whole list for a run: defaults, then the repository's, then the
 * operator's. Each named entry is checked again, so one stored under older
 * rules (a policy kept from before, a public suffix) is left out, not used.
 */
export function allowList(repository: readonly AllowRule[], operator: readonly string[]): AllowEntry[] {
  return [
    ...DEFAULT_ALLOW.map((pattern) => ({ pattern, methods: READ, source: "default" as const })),
    ...repository.flatMap((rule) => {
      const entry = repositoryEntry(rule);
      return entry ? [entry] : [];
    }),
    ...operator.filter((pattern) => checkHostPattern(pattern) === null).map((pattern) => ({ pattern, methods: null, source: "operator" as const }))
  ];
}

function repositoryEntry(rule: unknown): AllowEntry | null {
  if (typeof rule === "string") return checkHostPattern(rule) === null ? { pattern: rule, methods: null, source: "repository" } : null;
  if (rule === null || typeof rule !== "object") return null;
  const { host, methods } = rule as { host?: unknown; methods?: unknown };
  const listed = allowMethods(methods);
  if (typeof host !== "string" || listed === null || checkHostPattern(host) !== null) return null;
  return { pattern: host, methods: listed, source: "repository" };
}

/**
 * Whether `pattern` reaches `host`: an exact name, or a wildcard's subdomain
 * of the same registrable domain (`*.amazonaws.com` never reaches
 * `bucket.s3.amazonaws.com`, whose registrable domain is its own).
 */
export function hostMatches(pattern: string, host: string): boolean {
  if (!pattern.startsWith("*.")) return host === pattern;
  const domain = pattern.slice(1);
  if (!host.endsWith(domain) || host.length <= domain.length) return false;
  const own = registrableDomain(pattern.slice(2));
  return own !== null && registrableDomain(host) === own;
}

function registrableDomain(host: string): string | null {
  return parse(host, PSL).domain;
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

/** The methods the list allows to `host` (every one of ALLOW_METHODS when an entry names none), for a refusal to say. */
export function listedMethods(entries: readonly AllowEntry[], host: string): string[] {
  const methods = new Set<string>();
  for (const entry of entries) if (hostMatches(entry.pattern, host.toLowerCase())) (entry.methods ?? ALLOW_METHODS).forEach((method) => methods.add(method));
  return ALLOW_METHODS.filter((method) => methods.has(method));
}

/**
 * Why a wildcard of the list that names `host` does not reach it, or null:
 * the host belongs to another registrable domain, under a public suffix
 * below the wildcard's domain (another customer's host), so only its exact
 * name would allow it.
 */
export function wildcardMiss(entries: readonly AllowEntry[], host: string): string | null {
  const name = host.toLowerCase();
  const wildcard = entries.find((entry) => entry.pattern.startsWith("*.") && name.endsWith(entry.pattern.slice(1)) && !hostMatches(entry.pattern, name));
  if (!wildcard) return null;
  const suffix = parse(name, PSL).publicSuffix ?? name;
  return `${wildcard.pattern} does not reach ${name}: it is under ${suffix}, a public suffix whose hosts belong to different owners; only ${name} itself, listed, allows it`;
}
