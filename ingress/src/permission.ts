/**
 * What GitHub says a commenter may do on a repository, asked for every
 * person who mentions the bot (gates.ts: the payload's author_association
 * decides nothing), cached briefly so that a burst of comments asks GitHub
 * once.
 *
 * GitHub's collaborator permission API (`GET /repos/{owner}/{repo}/
 * collaborators/{username}/permission`, "Get repository permissions for a
 * user", asked with the repository's installation token; the App's
 * Metadata read permission covers it) answers `permission` and
 * `role_name`. `permission` is the legacy base role, `admin`, `write`,
 * `read` or `none`: the `maintain` role is reported as `write`, `triage` as
 * `read`, and a custom role as the base role it was built on. `role_name`
 * is the role's own name (`maintain`, `triage`, or a custom role's name,
 * which says nothing we could judge). So gates.ts decides on `permission`
 * and `role_name` is only logged. The answer is the highest role from every
 * grant (repository, team, organization, enterprise), so a member whose
 * membership is private is seen with the role they really have. A 404 (no
 * access, or no such user) is `null`: not a collaborator.
 *
 * The cache is the webhook app's KV (EVENT_STATE), one key per repository
 * and login (`permission:<owner>/<name>:<login>`, lowercased: GitHub names
 * are case-insensitive). An answer is used for at most
 * PERMISSION_CACHE_TTL_SECONDS by the app's clock (`askedAt` in the value,
 * as app-identity.ts keeps `learnedAt`), and KV drops the key after the
 * same time: KV's own expiry alone could serve an edge's copy a little
 * longer. KV rather than memory because the deliveries of one burst can
 * reach different isolates and locations, and it survives an isolate's
 * eviction; the price is one KV read per mention. Both answers are kept, a
 * refusal too, so a passer-by mentioning the bot again and again costs
 * GitHub one call per five minutes; the other side of that is that a new
 * maintainer may wait up to five minutes, and a removed one (or one whose
 * role was lowered) may still start runs for up to five. A failure (no
 * token, GitHub erroring or too slow, an answer without a permission) is
 * never kept: this delivery is refused (fail closed) and the next asks
 * again. A KV read or write that fails is logged and counts as a miss: the
 * cache can only ever save a call, never decide.
 *
 * Pure: KV, GitHub, the clock and the logger are parameters.
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
