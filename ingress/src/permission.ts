/**
 * What GitHub says a commenter may do on a repository, asked for every
 * person who mentions the bot through the collaborator permission API
 * (gates.ts decides on it). Answers, refusals too, are kept in KV for at
 * most PERMISSION_CACHE_TTL_SECONDS; a failure is never kept and refuses the
 * delivery. Why so: docs/ingress.md, "Who can start a run". Pure: KV,
 * GitHub, the clock and the logger are parameters.
 */
import { z } from "zod";
import type { Logger } from "./log";

export const PERMISSION_CACHE_TTL_SECONDS = 5 * 60;

/** GitHub's answer, or null when it answered 404. */
export type CollaboratorPermission = { permission: string; roleName: string | null } | null;

export type PermissionLookup =
  | { ok: true; answer: CollaboratorPermission; source: "cache" | "github" }
  | { ok: false; error: string };

export type PermissionCache = {
  get(key: string): Promise<string | null>;
  put(key: string, value: string, ttlSeconds: number): Promise<void>;
};

export type PermissionDeps = {
  cache: PermissionCache;
  /** GitHub's answer; throws with a public message when GitHub could not say. */
  ask(repo: { owner: string; name: string }, login: string): Promise<CollaboratorPermission>;
  log: Logger;
  /** Milliseconds since the epoch. */
  now(): number;
};

export const permissionKey = (repo: { owner: string; name: string }, login: string) =>
  `permission:${repo.owner}/${repo.name}:${login}`.toLowerCase();

/** What KV holds: GitHub's answer and when it was asked (ms). */
const cachedSchema = z.intersection(
  z.object({ askedAt: z.number() }),
  z.union([
    z.object({ collaborator: z.literal(false) }),
    z.object({ collaborator: z.literal(true), permission: z.string(), roleName: z.string().nullable() })
  ])
);

/** Asked no more than the TTL ago, and not in the future (a clock that went back: ask again). */
const fresh = (askedAt: number, now: number) => askedAt <= now && now - askedAt < PERMISSION_CACHE_TTL_SECONDS * 1000;

export async function lookupPermission(
  repo: { owner: string; name: string },
  login: string,
  deps: PermissionDeps
): Promise<PermissionLookup> {
  const key = permissionKey(repo, login);
  const cached = await readCached(key, deps);
  if (cached !== undefined) return { ok: true, answer: cached, source: "cache" };

  let answer: CollaboratorPermission;
  const askedAt = deps.now();
  try {
    answer = await deps.ask(repo, login);
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
  const value = { askedAt, ...(answer === null ? { collaborator: false } : { collaborator: true, ...answer }) };
  try {
    await deps.cache.put(key, JSON.stringify(value), PERMISSION_CACHE_TTL_SECONDS);
  } catch (error) {
    deps.log("permission:cache-failed", { key, operation: "put", error: describe(error) });
  }
  return { ok: true, answer, source: "github" };
}

/** The cached answer, or undefined for a miss (nothing kept, older than the TTL, unreadable, or KV failing). */
async function readCached(key: string, deps: PermissionDeps): Promise<CollaboratorPermission | undefined> {
  let text: string | null;
  try {
    text = await deps.cache.get(key);
  } catch (error) {
    deps.log("permission:cache-failed", { key, operation: "get", error: describe(error) });
    return undefined;
  }
  if (text === null) return undefined;
  let parsed: z.infer<typeof cachedSchema>;
  try {
    parsed = cachedSchema.parse(JSON.parse(text));
  } catch {
    return undefined;
  }
  if (!fresh(parsed.askedAt, deps.now())) return undefined;
  return parsed.collaborator ? { permission: parsed.permission, roleName: parsed.roleName } : null;
}

const describe = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));
