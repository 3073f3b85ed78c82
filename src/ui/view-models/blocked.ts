/**
 * What the egress gateway refused a run, in words for the thread page: one
 * short line for the run's header and its line under "Earlier runs" ("2
 * requests blocked: evil.example"), and each host and method for the list
 * under it ("POST api.github.com × 3"). The same line as the closing
 * comment's footer (src/report/closing-text.ts `blockedText`), without its code
 * spans. Pure.
 */
import type { BlockedRequest } from "../../shared/command-center";
import { formatCount } from "./format";

/** Hosts named in the short line; the list names every one. */
export const BLOCKED_HOSTS_SHOWN = 3;

export type BlockedView = {
  /** "3 requests blocked: evil.example, api.github.com and 1 more". */
  text: string;
  /** Refused requests in all. */
  total: number;
  /** Each host and method, most frequent first: "POST api.github.com × 3". */
  entries: Array<{ key: string; text: string }>;
};

export const BLOCKED_TITLE = "Requests the egress gateway refused this run's sandbox: a host not on the allowlist, a GitHub API write, or a push the run may not make";

/** Null when nothing was refused (or nothing readable was reported). */
export function blockedView(blocked: readonly BlockedRequest[] | undefined): BlockedView | null {
  const entries = (blocked ?? []).filter((entry) => entry.count > 0);
  const total = entries.reduce((sum, entry) => sum + entry.count, 0);
  if (total === 0) return null;
  const byHost = new Map<string, number>();
  for (const entry of entries) byHost.set(entry.host, (byHost.get(entry.host) ?? 0) + entry.count);
  // A stable sort: hosts refused equally often keep the tally's order.
  const hosts = [...byHost.entries()].sort((a, b) => b[1] - a[1]).map(([host]) => host);
  const more = hosts.length - BLOCKED_HOSTS_SHOWN;
  const named = hosts.slice(0, BLOCKED_HOSTS_SHOWN).join(", ") + (more > 0 ? ` and ${formatCount(more)} more` : "");
  return {
    text: `${formatCount(total)} request${total === 1 ? "" : "s"} blocked: ${named}`,
    total,
    entries: [...entries]
      .sort((a, b) => b.count - a.count)
      .map((entry, index) => ({ key: `${index}:${entry.method} ${entry.host}`, text: `${entry.method} ${entry.host} × ${formatCount(entry.count)}` }))
  };
}
