/**
 * The dashboard's HTTP API: the command center's snapshot pages, thread
 * details and each repository's record, Continue on a failed or stale run,
 * and the health report (200 even when it blocks: the body says). Continue
 * is a write the gate (gate.ts) lets through only from the dashboard's own
 * origin with a JSON body. Every route is behind Access. Pure: the command
 * center, the continuation (src/service.ts) and the health checks
 * (src/health/) are `deps`; other paths → null. docs/contracts.md, "HTTP".
 */
import { z } from "zod";
import { decodeCursor } from "../command-center/cursor";
import { isRepoNotAllowed } from "../run/repo-allowlist";
import { isMonthlyBudgetRefusal } from "../shared/monthly-budget";
import { isSessionName } from "../shared/session-name";
import {
  DEFAULT_SNAPSHOT_LIMIT,
  MAX_SNAPSHOT_LIMIT,
  type ContinueOutcome,
  type Snapshot,
  type SnapshotOptions,
  type ThreadDetail
} from "../shared/command-center";
import type { HealthReport } from "../shared/health";
import type { RepositoryRecords } from "../shared/repository-records";
import { json } from "./responses";

export type ApiRouteDeps = {
  snapshot(options: SnapshotOptions): Promise<Snapshot>;
  /** `operator`: who pressed Continue (the Access identity, or "local operator"). */
  continueRun(session: string, operator: string): Promise<ContinueOutcome>;
  /** Who is asking, for a request the gate let through (src/http/access.ts `accessIdentity`). */
  operator(request: Request): string;
  threadDetail(session: string): Promise<ThreadDetail | null>;
  /** Each repository's record (the command center's `repositories`). */
  repositories(): Promise<RepositoryRecords>;
  /** Told about a continuation that failed past its claim; the client gets a plain 502. */
  onError?(error: unknown): void;
};

export type HealthRouteDeps = {
  /** The report; never throws (a failing check is a line of it). */
  health(): Promise<HealthReport>;
};

const SNAPSHOT_PATH = "/api/command-center";
const HEALTH_PATH = "/api/health";
const REPOSITORIES_PATH = "/api/repositories";
const CONTINUE_PATH = /^\/api\/command-center\/continue\/([^/]+)$/;
const THREAD_PATH = /^\/api\/command-center\/threads\/([^/]+)$/;

export const snapshotQuerySchema = z.object({
  cursor: z
    .string()
    .refine((cursor) => decodeCursor(cursor) !== null, "not a cursor from this server")
    .optional(),
  limit: z.coerce.number().int().min(1).max(MAX_SNAPSHOT_LIMIT).default(DEFAULT_SNAPSHOT_LIMIT)
});

const NO_STORE = { "cache-control": "no-store" };

export async function handleApiRoute(request: Request, deps: ApiRouteDeps): Promise<Response | null> {
  const url = new URL(request.url);

  if (url.pathname === SNAPSHOT_PATH) {
    if (request.method !== "GET") return json({ error: "method not allowed" }, 405, { allow: "GET" });
    const query = snapshotQuerySchema.safeParse({
      cursor: url.searchParams.get("cursor") ?? undefined,
      limit: url.searchParams.get("limit") ?? undefined
    });
    if (!query.success) {
      const issue = query.error.issues[0];
      return json({ error: `invalid query: ${issue?.path.join(".") || "query"}: ${issue?.message ?? "invalid"}` }, 400);
    }
    const options: SnapshotOptions = { limit: query.data.limit, ...(query.data.cursor ? { cursor: query.data.cursor } : {}) };
    return json(await deps.snapshot(options), 200, NO_STORE);
  }

  if (url.pathname === REPOSITORIES_PATH) {
    if (request.method !== "GET") return json({ error: "method not allowed" }, 405, { allow: "GET" });
    return json(await deps.repositories(), 200, NO_STORE);
  }

  const thread = THREAD_PATH.exec(url.pathname);
  if (thread) {
    if (request.method !== "GET") return json({ error: "method not allowed" }, 405, { allow: "GET" });
    const session = safeDecode(thread[1]!);
    const detail = session !== null && isSessionName(session) ? await deps.threadDetail(session) : null;
    return detail ? json(detail, 200, NO_STORE) : json({ error: "no such thread" }, 404, NO_STORE);
  }

  const match = CONTINUE_PATH.exec(url.pathname);
  if (match) {
    if (request.method !== "POST") return json({ error: "method not allowed" }, 405, { allow: "POST" });
    const session = safeDecode(match[1]!);
    if (session === null || !isSessionName(session)) return json({ error: "not found" }, 404);
    let outcome: ContinueOutcome;
    try {
      outcome = await deps.continueRun(session, deps.operator(request));
    } catch (error) {
      deps.onError?.(error);
      // Refused by the operator's own settings, in words we wrote: the client may read them.
      if (isRepoNotAllowed(error) || isMonthlyBudgetRefusal(error)) return json({ error: (error as Error).message }, 403);
      return json({ error: "the continuation could not be submitted" }, 502);
    }
    if (outcome.ok) return json(outcome.result, 202, NO_STORE);
    return outcome.reason === "not_found"
      ? json({ error: "not found" }, 404)
      : json({ error: "this run is neither failed nor stale", reason: outcome.reason }, 409);
  }

  return null;
}

export async function handleHealthRoute(request: Request, deps: HealthRouteDeps): Promise<Response | null> {
  if (new URL(request.url).pathname !== HEALTH_PATH) return null;
  if (request.method !== "GET") return json({ error: "method not allowed" }, 405, { allow: "GET" });
  return json(await deps.health(), 200, NO_STORE);
}

function safeDecode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}
