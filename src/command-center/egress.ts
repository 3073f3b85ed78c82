/**
 * A run's egress tally as the command center keeps it: the requests the
 * egress gateway refused the run's sandbox, per host and method. Each event
 * carries the run's whole tally so far, so the registry keeps the one with
 * the larger total, and report.ts names an event by its total. A refused
 * host is text the sandbox chose (a token could ride in a subdomain), so it
 * is redacted here too, behind the reporter's redaction. Pure.
 */
import { MAX_BLOCKED_ENTRIES, type BlockedRequest } from "../shared/command-center";
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

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
