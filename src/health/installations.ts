/**
 * The App installations line: for each repository ALLOWED_REPOS names, the
 * webhook app's token broker is asked for a read-only token scoped to it,
 * which it refuses, saying why, when the App is not installed there. The
 * token is dropped unread; at most MAX_INSTALLATION_CHECKS repositories are
 * asked per report, side by side within the probe deadline, and each answer
 * is kept per isolate (a yes 10 minutes, anything else 1). What each answer
 * means and what cannot be checked (an `owner/*` entry): docs/health.md.
 */
import { resolveAllowlist, type AllowlistConfig } from "../run/repo-allowlist";
import { parseGitHubApiUrl, GITHUB_COM } from "../shared/github-urls";
import type { HealthCheck, HealthStatus } from "../shared/health";
import { HEALTH_LABELS } from "./labels";
import { errorText, HEALTH_PROBE_TIMEOUT_MS, withTimeout } from "./run-checks";
import { BROKER_REFUSAL_PREFIX } from "./token-broker";

/** The broker's RPC surface this line uses. */
export type InstallationBroker = { mintInstallationToken(repo: string, options: { access: "read" }): Promise<unknown> };

/** How many repositories one report asks the broker about; the rest wait for a later load. */
export const MAX_INSTALLATION_CHECKS = 10;
export const INSTALLED_KEEP_MS = 10 * 60_000;
export const NOT_INSTALLED_KEEP_MS = 60_000;

/** One repository's answer: installed, refused by the broker (with its reason), or the broker not reached. */
export type Installation = { kind: "installed" } | { kind: "missing"; reason: string } | { kind: "not-allowed"; reason: string } | { kind: "failed"; reason: string } | { kind: "unreachable"; reason: string };

/** Answers per repository, with when they lapse; one per isolate in the Worker, a fresh one per test. */
export type InstallationCache = Map<string, { answer: Installation; until: number }>;
export const createInstallationCache = (): InstallationCache => new Map();

type Options = { localDev: boolean; now: number; cache: InstallationCache; timeoutMs?: number; secrets?: readonly string[]; max?: number };
type Env = AllowlistConfig & { GITHUB_API_URL?: string };

const LABEL = HEALTH_LABELS.installations;
/** What the broker says, after its prefix, when the App is not installed on the repository (ingress/src/github/app-client.ts). */
const NOT_INSTALLED = /is not installed on|installation for \S+ is gone|installation does not include/i;
const NOT_ALLOWED = /is not in ALLOWED_REPOS/i;

export async function installationsHealth(env: Env, broker: InstallationBroker | undefined, options: Options): Promise<HealthCheck> {
  const line = (status: HealthStatus, detail: string, fix?: string): HealthCheck => ({ id: "installations", label: LABEL, status, detail, ...(fix ? { fix } : {}) });
  const allowlist = resolveAllowlist(env);
  if (allowlist.kind === "any") return line("ok", "ALLOWED_REPOS names no repository (any may be dispatched under LOCAL_DEV=1): none to check");
  if (allowlist.kind !== "listed") return line("warn", "ALLOWED_REPOS names no repository to check", "see the Allowed repositories line");

  const all = [...allowlist.repos].sort();
  // A `*` is no wildcard: ALLOWED_REPOS compares exact names, and no GitHub repository is named `*`.
  const wildcards = all.filter((repo) => repo.includes("*"));
  const named = all.filter((repo) => !repo.includes("*"));
  const answers = await askBroker(named, broker, options);

  const installed = named.filter((repo) => answers.get(repo)?.kind === "installed");
  const missing = named.filter((repo) => answers.get(repo)?.kind === "missing");
  const notAllowed = named.filter((repo) => answers.get(repo)?.kind === "not-allowed");
  const failed = named.filter((repo) => answers.get(repo)?.kind === "failed");
  const unreachable = named.filter((repo) => answers.get(repo)?.kind === "unreachable");
  const unchecked = named.filter((repo) => !answers.has(repo));

  const parts: string[] = [];
  if (installed.length > 0) parts.push(`installed on ${installed.join(", ")}`);
  if (missing.length > 0) parts.push(`not installed on ${missing.join(", ")}: mentions there never reach the Worker and runs get no token (${reasonOf(answers, missing[0]!)})`);
  if (notAllowed.length > 0) parts.push(`${notAllowed.join(", ")} not in the webhook app's ALLOWED_REPOS: it ignores their mentions and mints no token`);
  if (failed.length > 0) parts.push(`not checked on ${failed.join(", ")}: ${reasonOf(answers, failed[0]!)}`);
  if (unreachable.length > 0) parts.push(`not checked: the token broker was not reached (${reasonOf(answers, unreachable[0]!)})`);
  if (unchecked.length > 0) parts.push(`${unchecked.length} more not checked yet (at most ${options.max ?? MAX_INSTALLATION_CHECKS} are asked per load; the next loads ask them)`);
  if (wildcards.length > 0) {
    parts.push(
      `${wildcards.join(", ")} cannot be checked: ALLOWED_REPOS compares exact names, so such an entry allows no repository, and the broker mints only for a named one`
    );
  }
  const detail = parts.join("; ");

  const hard = options.localDev ? "warn" : "block";
  const web = webOrigin(env.GITHUB_API_URL);
  if (missing.length > 0) {
    const owner = missing[0]!.split("/")[0]!;
    return line(
      hard,
      detail,
      `install the GitHub App on ${missing.join(", ")}: ${web}/organizations/${owner}/settings/installations (a personal account: ${web}/settings/installations), Configure, Repository access (docs/app-setup.md)`
    );
  }
  if (notAllowed.length > 0) return line(hard, detail, "set the webhook app's ALLOWED_REPOS (ingress/wrangler.jsonc) to the same list as the agent Worker's");
  if (wildcards.length > 0) return line("warn", detail, `list each repository by its owner/name in ALLOWED_REPOS, in both wrangler.jsonc files`);
  if (unreachable.length > 0) return line("warn", detail, "see the Token broker line");
  if (failed.length > 0) return line("warn", detail, "asked again after a minute; if it persists, see the Token broker line and GitHub's status");
  if (unchecked.length > 0) return line("warn", detail, "reload the report: each load asks about the repositories not yet checked");
  return line("ok", detail);
}

/** Each repository's answer, from the cache or the broker; at most `max` asked, side by side. */
async function askBroker(repos: readonly string[], broker: InstallationBroker | undefined, options: Options): Promise<Map<string, Installation>> {
  const answers = new Map<string, Installation>();
  const toAsk: string[] = [];
  for (const repo of repos) {
    const kept = options.cache.get(repo);
    if (kept && kept.until > options.now) answers.set(repo, kept.answer);
    else toAsk.push(repo);
  }
  const asked = toAsk.slice(0, options.max ?? MAX_INSTALLATION_CHECKS);
  const results = await Promise.all(asked.map((repo) => askOne(repo, broker, options)));
  asked.forEach((repo, index) => {
    const answer = results[index]!;
    answers.set(repo, answer);
    // Nothing was learnt from GitHub when the broker was not reached: ask again next load.
    if (answer.kind !== "unreachable") options.cache.set(repo, { answer, until: options.now + (answer.kind === "installed" ? INSTALLED_KEEP_MS : NOT_INSTALLED_KEEP_MS) });
  });
  return answers;
}

async function askOne(repo: string, broker: InstallationBroker | undefined, options: Options): Promise<Installation> {
  if (broker === undefined || typeof broker.mintInstallationToken !== "function") return { kind: "unreachable", reason: "GITHUB_AUTH is not bound" };
  try {
    // The answer holds a token: it is never read, so it cannot reach the report.
    await withTimeout(Promise.resolve().then(() => broker.mintInstallationToken(repo, { access: "read" })), options.timeoutMs ?? HEALTH_PROBE_TIMEOUT_MS, "GITHUB_AUTH");
    return { kind: "installed" };
  } catch (error) {
    const text = errorText(error, options.secrets);
    if (!text.includes(BROKER_REFUSAL_PREFIX)) return { kind: "unreachable", reason: text };
    const reason = text.slice(text.indexOf(BROKER_REFUSAL_PREFIX) + BROKER_REFUSAL_PREFIX.length).trim();
    if (NOT_INSTALLED.test(reason)) return { kind: "missing", reason };
    if (NOT_ALLOWED.test(reason)) return { kind: "not-allowed", reason };
    return { kind: "failed", reason };
  }
}

const reasonOf = (answers: Map<string, Installation>, repo: string): string => {
  const answer = answers.get(repo);
  return answer && "reason" in answer ? answer.reason : "";
};

/** The web origin of the GitHub GITHUB_API_URL names; github.com when it names none (the github line says so). */
function webOrigin(apiUrl: string | undefined): string {
  const parsed = parseGitHubApiUrl(apiUrl);
  return parsed.ok ? parsed.github.web : GITHUB_COM.web;
}
