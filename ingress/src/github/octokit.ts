/**
 * The webhook app's Octokit: @octokit/rest with @octokit/plugin-retry and
 * @octokit/plugin-throttling, so GitHub's transient failures and rate
 * limits are handled the way Octokit's maintainers handle them. A limit is
 * waited out once, and only up to MAX_IN_PROCESS_WAIT_SECONDS: everything
 * here runs inside one request or its `waitUntil`. Each client gets its own
 * pacing id. `retryBaseMs` scales every wait (1000: seconds); the tests
 * shrink it. docs/ingress.md, "Retries and rate limits".
 */
/// <reference path="./bottleneck-light.d.ts" />
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { Octokit } from "@octokit/rest";
import Bottleneck from "bottleneck/light.js";
import { DEFAULT_RETRY_BASE_MS } from "../config";
import type { Logger } from "../log";

export const GitHubOctokit = Octokit.plugin(retry, throttling);

/** Tries after the first, for a call nothing waits on but the background work. */
export const DEFAULT_RETRIES = 2;
/** The longest rate-limit wait worth spending inside a request's background time. */
export const MAX_IN_PROCESS_WAIT_SECONDS = 5;

export type Patience = { retries?: number; retryBaseMs?: number };

type LimitedRequest = { method?: string; url?: string };

/** The plugin's spacing of one client's writes, and of its writes that notify (comments), in its seconds. */
const WRITE_SPACING = { write: 1, notifications: 3 } as const;
/** How long the plugin keeps an idle client's limiter in a group (its own groups' `timeout`). */
const GROUP_IDLE_MS = 2 * 60 * 1000;
const scaledGroups = new Map<number, { write: Bottleneck.Group; notifications: Bottleneck.Group }>();

/**
 * The plugin's write and notification groups, their spacing in units of
 * `retryBaseMs` rather than seconds: none at the default, so the plugin's own
 * apply; one pair per unit, shared by every client as the plugin's are (each
 * client is its own key in them).
 */
function pacingGroups(retryBaseMs: number) {
  if (retryBaseMs === DEFAULT_RETRY_BASE_MS) return {};
  let groups = scaledGroups.get(retryBaseMs);
  if (groups === undefined) {
    const group = (spacing: number) => new Bottleneck.Group({ maxConcurrent: 1, minTime: spacing * retryBaseMs, timeout: GROUP_IDLE_MS });
    groups = { write: group(WRITE_SPACING.write), notifications: group(WRITE_SPACING.notifications) };
    scaledGroups.set(retryBaseMs, groups);
  }
  return groups;
}

/** Octokit options for both plugins. */
export function patienceOptions(log: Logger, patience: Patience = {}) {
  const retryBaseMs = patience.retryBaseMs ?? DEFAULT_RETRY_BASE_MS;
  const onLimit =
    (kind: "primary" | "secondary") =>
    (retryAfterSeconds: number, request: LimitedRequest, _octokit: unknown, retryCount: number): boolean => {
      const retrying = retryCount === 0 && retryAfterSeconds <= MAX_IN_PROCESS_WAIT_SECONDS;
      log("github:rate-limited", { kind, method: request.method, url: request.url, retryAfterSeconds, retrying });
      return retrying;
    };
  return {
    retry: { retries: patience.retries ?? DEFAULT_RETRIES, retryAfterBaseValue: retryBaseMs },
    throttle: {
      id: crypto.randomUUID(),
      retryAfterBaseValue: retryBaseMs,
      ...pacingGroups(retryBaseMs),
      onRateLimit: onLimit("primary"),
      onSecondaryRateLimit: onLimit("secondary")
    }
  };
}
