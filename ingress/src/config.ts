/**
 * The webhook app's configuration, read from its vars once per request:
 * where GitHub is, the handle that starts a run if set, which repositories may use
 * it and on which of them the operator accepts CI follow-ups, the App's own
 * bot login if configured, and the largest delivery it reads. A value that cannot be used is a ConfigError naming the variable
 * (never its value), so a misconfigured deployment fails loudly instead of
 * quietly accepting or ignoring everything. Secrets are not read here.
 *
 * Pure.
 */
import { ALLOWED_REPOS_SHAPE, readAllowedRepos } from "../../src/shared/allowed-repos";
import { parseCiFixRepos as readCiFixRepos } from "../../src/shared/ci-fix-repos";
import { checkBotLogin } from "../../src/shared/repo";
import { normalizeHandle } from "./mention";

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
/** GitHub caps webhook payloads at 25 MB; more than that is never a delivery. */
const MAX_MAX_BODY_BYTES = 25 * 1024 * 1024;

export type IngressVars = {
  GITHUB_API_URL?: string;
  MENTION_HANDLE?: string;
  ALLOWED_REPOS?: string;
  CI_FIX_REPOS?: string;
  BOT_LOGIN?: string;
  MAX_BODY_BYTES?: string;
  GITHUB_RETRY_BASE_MS?: string;
};

export type IngressConfig = {
  /** Without a trailing slash. */
  apiUrl: string;
  /**
   * MENTION_HANDLE, lowercase, with its `@`; "" when unset: the handle is
   * then the App's own `@<slug>`, learned from GitHub (github/app-info.ts).
   */
  handle: string;
  /** Lowercase `owner/name`. */
  allowedRepos: ReadonlySet<string>;
  /**
   * CI_FIX_REPOS: where the operator accepts CI follow-ups, lowercase
   * `owner/name`, or "all" (`*`: every allowed repository); empty: none.
   * A follow-up pushes to the App's branch, which runs the repository's CI
   * with its secrets (docs/ingress.md, "CI follow-ups").
   */
  ciFixRepos: ReadonlySet<string> | "all";
  /**
   * BOT_LOGIN, lowercase; empty when unset, as it may be: the App's identity
   * is learned from GitHub (github/app-identity.ts). When set, it names the
   * own-bot refusal until then and is checked against GitHub's answer.
   */
  botLogin: string;
  maxBodyBytes: number;
  /** The unit of GitHub retry and rate-limit waits (github/octokit.ts): 1000 ms; the tests set 1. */
  retryBaseMs: number;
};

export class ConfigError extends Error {
  override readonly name = "ConfigError";
  readonly code = "config";
  constructor(readonly variable: string, detail: string) {
    super(`${variable} ${detail}`);
  }
}

export function readConfig(vars: IngressVars): IngressConfig {
  const apiUrl = (vars.GITHUB_API_URL ?? "").trim().replace(/\/+$/, "");
  if (!/^https?:\/\/[^/]/.test(apiUrl)) throw new ConfigError("GITHUB_API_URL", "must be an http(s) URL");
  const handle = (vars.MENTION_HANDLE ?? "").trim() === "" ? "" : normalizeHandle(vars.MENTION_HANDLE ?? "");
  if (handle !== "" && !/^@[a-z0-9][a-z0-9-]*$/.test(handle)) throw new ConfigError("MENTION_HANDLE", "must be an @login");
  return {
    apiUrl,
    handle,
    allowedRepos: parseAllowedRepos(vars.ALLOWED_REPOS ?? ""),
    ciFixRepos: parseCiFixRepos(vars.CI_FIX_REPOS ?? ""),
    botLogin: parseBotLogin(vars.BOT_LOGIN ?? ""),
    maxBodyBytes: parseMaxBodyBytes(vars.MAX_BODY_BYTES),
    retryBaseMs: parseRetryBaseMs(vars.GITHUB_RETRY_BASE_MS)
  };
}

export function parseAllowedRepos(value: string): ReadonlySet<string> {
  const read = readAllowedRepos(value);
  if (!read.ok) throw new ConfigError("ALLOWED_REPOS", ALLOWED_REPOS_SHAPE);
  return read.repos;
}

/** `*` is every allowed repository; otherwise a list as ALLOWED_REPOS is (src/shared/ci-fix-repos.ts); unset or empty, none. */
export function parseCiFixRepos(value: string): ReadonlySet<string> | "all" {
  const read = readCiFixRepos(value);
  if (read.kind === "invalid") throw new ConfigError("CI_FIX_REPOS", `${ALLOWED_REPOS_SHAPE}, or "*"`);
  return read.kind === "all" ? "all" : read.repos;
}

/**
 * The App's own bot login, `<slug>[bot]` (src/shared/repo.ts), lowercased;
 * empty when unset. Anything else is a ConfigError: a slip such as
 * `agent-think` would never match the App's own comments.
 */
export function parseBotLogin(value: string): string {
  const login = value.trim().toLowerCase();
  if (login === "") return "";
  const checked = checkBotLogin(login);
  if (!checked.ok) throw new ConfigError("BOT_LOGIN", `${checked.reason}, such as agent-think[bot]`);
  return login;
}

export function isAllowedRepo(config: Pick<IngressConfig, "allowedRepos">, fullName: string): boolean {
  return config.allowedRepos.has(fullName.toLowerCase());
}

/** Whether a CI follow-up may start on `fullName`: allowed, and accepted by CI_FIX_REPOS. */
export function acceptsCiFix(config: Pick<IngressConfig, "allowedRepos" | "ciFixRepos">, fullName: string): boolean {
  if (!isAllowedRepo(config, fullName)) return false;
  return config.ciFixRepos === "all" || config.ciFixRepos.has(fullName.toLowerCase());
}

function parseMaxBodyBytes(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return DEFAULT_MAX_BODY_BYTES;
  const bytes = Number(value);
  if (!Number.isSafeInteger(bytes) || bytes < 1024 || bytes > MAX_MAX_BODY_BYTES) {
    throw new ConfigError("MAX_BODY_BYTES", `must be a whole number of bytes from 1024 to ${MAX_MAX_BODY_BYTES}`);
  }
  return bytes;
}

/** The unit of GitHub's waits as the plugins count them: seconds. */
export const DEFAULT_RETRY_BASE_MS = 1_000;

/** GITHUB_RETRY_BASE_MS: whole milliseconds, 1 to 1000; unset is 1000 (the plugins' seconds). */
function parseRetryBaseMs(value: string | undefined): number {
  if (value === undefined || value.trim() === "") return DEFAULT_RETRY_BASE_MS;
  const ms = Number(value);
  if (!Number.isSafeInteger(ms) || ms < 1 || ms > DEFAULT_RETRY_BASE_MS) throw new ConfigError("GITHUB_RETRY_BASE_MS", "must be a whole number of milliseconds from 1 to 1000");
  return ms;
}
