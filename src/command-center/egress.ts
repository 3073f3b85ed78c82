/**
 * A run's egress as the command center keeps it: the requests the egress
 * gateway refused the run's sandbox, per host and method (each event carries
 * the whole tally so far, so the registry keeps the one with the larger
 * total, and report.ts names an event by its total), and the private
 * registries it was given a credential for (the union of every event's
 * hosts). A refused host is text the sandbox chose (a token could ride in a
 * subdomain), so hosts are redacted here too, behind the reporter's. Pure.
 */
import { MAX_BLOCKED_ENTRIES, MAX_PRIVATE_SOURCES, type BlockedRequest } from "../shared/command-center";
import { redactTokens } from "./text";

/** Refused requests in all: the tally's order. */
export function blockedTotal(blocked: readonly BlockedRequest[] | undefined): number {
  return (blocked ?? []).reduce((sum, entry) => sum + entry.count, 0);
}

/** The tally as stored: hosts redacted, most frequent first (ties by host, then method), at most MAX_BLOCKED_ENTRIES. */
export function storedBlocked(blocked: readonly BlockedRequest[]): BlockedRequest[] {
  return blocked
    .map((entry) => ({ host: redactTokens(entry.host), method: entry.method, count: entry.count }))
    .sort((a, b) => b.count - a.count || compare(a.host, b.host) || compare(a.method, b.method))
    .slice(0, MAX_BLOCKED_ENTRIES);
}

/** Whether `next` tells more than the tally known: a larger total. The same tally again, or an older one, does not. */
export function replacesTally(known: readonly BlockedRequest[] | undefined, next: readonly BlockedRequest[]): boolean {
  return blockedTotal(next) > blockedTotal(known);
}

/** The run's private sources with `hosts` joined: redacted, unique, sorted, at most MAX_PRIVATE_SOURCES. */
export function mergedPrivateSources(known: readonly string[] | undefined, hosts: readonly string[]): string[] {
  const all = new Set([...(known ?? []), ...hosts.map((host) => redactTokens(host))]);
  return [...all].sort(compare).slice(0, MAX_PRIVATE_SOURCES);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
