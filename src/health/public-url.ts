/**
 * The PUBLIC_BASE_URL line: where the thread and reproduction links a run
 * posts on its issue point. In a deploy, an address that is not an http(s)
 * URL, or one on this machine (localhost, 127.x, [::1], 0.0.0.0, *.localhost),
 * blocks: every link on the issue would lead nowhere. In local dev the
 * loopback address is the right one, and only a value that is no URL warns.
 * Pure.
 */
import type { HealthCheck } from "../shared/health";
import { isLoopbackHost } from "../shared/github-urls";
import { HEALTH_LABELS } from "./labels";

const LABEL = HEALTH_LABELS["public-url"];
const FIX = "set PUBLIC_BASE_URL in wrangler.jsonc to the Worker's URL (https://agent-think.<subdomain>.workers.dev or its custom domain)";

const onThisMachine = (hostname: string) => isLoopbackHost(hostname) || hostname === "0.0.0.0" || hostname.endsWith(".localhost");

export function publicUrlHealth(env: { PUBLIC_BASE_URL?: string }, options: { localDev: boolean }): HealthCheck {
  const value = (env.PUBLIC_BASE_URL ?? "").trim();
  let url: URL | null = null;
  try {
    url = new URL(value);
  } catch {
    // Judged below.
  }
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:")) {
    return {
      id: "public-url",
      label: LABEL,
      status: options.localDev ? "warn" : "block",
      detail: `PUBLIC_BASE_URL ${value === "" ? "is empty" : `"${value.slice(0, 80)}" is not an http(s) URL`}: the thread and reproduction links posted on issues are broken`,
      fix: FIX
    };
  }
  if (onThisMachine(url.hostname) && !options.localDev) {
    return {
      id: "public-url",
      label: LABEL,
      status: "block",
      detail: `PUBLIC_BASE_URL is ${url.origin}, an address on the Worker's own machine: every thread and reproduction link posted on issues leads nowhere`,
      fix: FIX
    };
  }
  return { id: "public-url", label: LABEL, status: "ok", detail: `links posted on issues point at ${url.origin}/thread/<session>${options.localDev ? " (local dev)" : ""}` };
}
