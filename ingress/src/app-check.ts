/**
 * The broker's App check (`AgentThinkTokenBroker.appStatus`, index.ts):
 * `GET /app` as the App, so the agent Worker's health report learns whether
 * the App's credentials work, and the handle mentions must use. Answered,
 * never thrown (workerd prints a throwing RPC method as uncaught). One
 * answer, a failure too, is kept APP_CHECK_TTL_MS in the isolate, so
 * dashboards polling the health report ask GitHub at most once a minute per
 * isolate. It carries no token and no key: only the slug, the name, or what
 * to check. Why in docs/app-setup.md.
 */
import type { AppStatus } from "../../src/shared/app-status";
import { ConfigError, type IngressConfig } from "./config";
import type { AppCredentials } from "./github/app-client";
import { askApp, type AppInfoResult } from "./github/app-info";
import type { Logger } from "./log";

export const APP_CHECK_TTL_MS = 60_000;
/** One try within 2 s: the agent's health probe waits 2.5 s (src/health/run-checks.ts). */
export const APP_CHECK_PATIENCE = { retries: 0, timeoutMs: 2_000 } as const;

export type AppCheckDeps = {
  config(): IngressConfig;
  credentials(config: IngressConfig): AppCredentials;
  log: Logger;
  now(): number;
};

let kept: { key: string; at: number; result: AppInfoResult } | undefined;

/** Forgets the kept answer (the tests' fresh isolate). */
export function forgetAppCheck(): void {
  kept = undefined;
}

export async function checkApp(deps: AppCheckDeps): Promise<AppStatus> {
  const now = deps.now();
  const checkedAt = new Date(now).toISOString();
  let config: IngressConfig;
  try {
    config = deps.config();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { ok: false, code: "config", error: `the webhook app's ${error.message}`, mentionHandle: "", handleSet: false, checkedAt };
  }
  const credentials = deps.credentials(config);
  const key = `${credentials.appId.trim()} ${credentials.apiUrl}`;
  if (kept === undefined || kept.key !== key || kept.at > now || now - kept.at >= APP_CHECK_TTL_MS) {
    const result = await askApp(credentials, deps.log, now, APP_CHECK_PATIENCE);
    if (!result.ok) deps.log("app:check-failed", { code: result.code, error: result.error });
    kept = { key, at: now, result };
  }
  const { result, at } = kept;
  const handleSet = config.handle !== "";
  const handle = handleSet ? config.handle : result.ok ? `@${result.slug.toLowerCase()}` : "";
  const common = { mentionHandle: handle, handleSet, checkedAt: new Date(at).toISOString() };
  return result.ok ? { ok: true, slug: result.slug, name: result.name, ...common } : { ok: false, code: result.code, error: result.error, ...common };
}
