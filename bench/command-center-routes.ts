/**
 * The bench Worker's command-center and dashboard routes, used only by
 * bench/run.ts (command-center-bench.ts, dashboard-bench.ts):
 *   POST /bench/cc/seed    { name, events }  one recordBatch → { ms, outcomes }
 *   POST /bench/cc/state   { name }          refreshState() and the `state` read
 *                                            → sizes and counts of both, the metrics
 *   POST /bench/cc/all     { name, deepOffset } every thread, paging snapshot() 50 at
 *                                            a time → the unbounded state's size, and
 *                                            the cursor after `deepOffset` threads
 *   POST /bench/cc/calls   { name, op, cursor?, limit, calls } one call at a time,
 *                                            each timed → { ms[], resultBytes, threads }
 *   POST /bench/static-page { html }         keep a page for GET (the dashboard baseline)
 *   GET  /bench/static-page                  that page, as text/html, never cached
 *
 * Each timed call is what `GET /api/command-center` does: `commandCenter(env,
 * name)` (getAgentByName: one RPC) and then the call, on the bench Worker's
 * clock as in routes.ts. The ops: `first` is snapshot({ limit }), `deep` is
 * snapshot({ cursor, limit }) deep in the registry, `state` is the baseline:
 * the same stub's `state` read over RPC, the agent's cached bounded state,
 * a result of the same size class as a first page with no query behind it.
 * Anything else is `null`. Pure: the agent is reached through `deps`.
 */
import { z } from "zod";
import { jsonBytes } from "../src/command-center/broadcast";
import type { CommandCenter } from "../src/command-center";
import { json, readJsonPost } from "../src/http/responses";
import type { CommandCenterState, Metrics, Snapshot } from "../src/shared/command-center";
import { pool } from "./routes";

/** The command center's RPC surface plus the Agent's `state` getter (an RPC property read). */
export type BenchCommandCenter = CommandCenter & { readonly state: Promise<CommandCenterState> };

export type CommandCenterRouteDeps = {
  center(name: string): Promise<BenchCommandCenter>;
  now(): number;
};

export type CenterOp = "first" | "deep" | "state";

export type StateFigures = { bytes: number; threads: number; total: number; firstSession: string | null };
export type StateResponse = { refreshed: StateFigures; stored: StateFigures; metrics: Metrics };
export type AllResponse = {
  pages: number;
  threads: number;
  distinct: number;
  total: number;
  /** `{ metrics, recent: every thread, total, updatedAt }` as JSON: the state without its bound. */
  unboundedBytes: number;
  /** The largest thread summary, as JSON. */
  maxThreadBytes: number;
  ms: number;
  deepCursor: string | null;
};
export type CallsResponse = { ms: number[]; resultBytes: number; threads: number } | { error: string };

/** As recordBatch takes. */
const MAX_SEED_EVENTS = 5_000;
const PAGE = 50;
const MAX_PAGES = 1_000;
const MAX_CALLS = 1_000;
const MAX_PAGE_BYTES = 4 * 1024 * 1024;

const nameField = z.string().min(1).max(200);
const seedSchema = z.strictObject({ name: nameField, events: z.array(z.unknown()).min(1).max(MAX_SEED_EVENTS) });
const stateSchema = z.strictObject({ name: nameField });
const allSchema = z.strictObject({ name: nameField, deepOffset: z.number().int().min(PAGE).multipleOf(PAGE) });
const callsSchema = z.strictObject({
  name: nameField,
  op: z.enum(["first", "deep", "state"]),
  cursor: z.string().min(1).optional(),
  limit: z.number().int().min(1).max(200),
  calls: z.number().int().min(1).max(MAX_CALLS)
});
const pageSchema = z.strictObject({ html: z.string().min(1).max(MAX_PAGE_BYTES) });

/** The dashboard baseline's page, kept in this isolate (local workerd runs one; a lost page is a loud 404). */
let staticPage: string | undefined;

export async function handleCommandCenterRoute(request: Request, deps: CommandCenterRouteDeps): Promise<Response | null> {
  const { pathname } = new URL(request.url);
  if (pathname === "/bench/static-page" && (request.method === "GET" || request.method === "HEAD")) {
    if (staticPage === undefined) return json({ error: "no static page posted yet" }, 404);
    return new Response(request.method === "HEAD" ? null : staticPage, {
      headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" }
    });
  }
  if (!pathname.startsWith("/bench/cc/") && pathname !== "/bench/static-page") return null;
  const read = await readJsonPost(request);
  if (!read.ok) return read.response;
  const body = read.body;
  try {
    switch (pathname) {
      case "/bench/static-page": {
        const input = pageSchema.safeParse(body);
        if (!input.success) return json({ error: z.prettifyError(input.error) }, 400);
        staticPage = input.data.html;
        return json({ bytes: new TextEncoder().encode(staticPage).byteLength });
      }
      case "/bench/cc/seed": {
        const input = seedSchema.safeParse(body);
        if (!input.success) return json({ error: z.prettifyError(input.error) }, 400);
        const center = await deps.center(input.data.name);
        const startedAt = deps.now();
        const results = await center.recordBatch(input.data.events);
        const ms = deps.now() - startedAt;
        const outcomes: Record<string, number> = {};
        for (const result of results) {
          const key = result.applied ? "applied" : result.reason;
          outcomes[key] = (outcomes[key] ?? 0) + 1;
        }
        return json({ ms, outcomes });
      }
      case "/bench/cc/state": {
        const input = stateSchema.safeParse(body);
        if (!input.success) return json({ error: z.prettifyError(input.error) }, 400);
        const center = await deps.center(input.data.name);
        const refreshed = await center.refreshState();
        const stored = await center.state;
        return json({ refreshed: stateFigures(refreshed), stored: stateFigures(stored), metrics: refreshed.metrics } satisfies StateResponse);
      }
      case "/bench/cc/all": {
        const input = allSchema.safeParse(body);
        if (!input.success) return json({ error: z.prettifyError(input.error) }, 400);
        return json(await allThreads(deps, input.data.name, input.data.deepOffset));
      }
      case "/bench/cc/calls": {
        const input = callsSchema.safeParse(body);
        if (!input.success) return json({ error: z.prettifyError(input.error) }, 400);
        return json(await timedCalls(deps, input.data));
      }
      default:
        return json({ error: "not found" }, 404);
    }
  } catch (error) {
    return json({ error: error instanceof Error ? error.message : String(error) }, 500);
  }
}

function stateFigures(state: CommandCenterState): StateFigures {
  return { bytes: jsonBytes(state), threads: state.recent.length, total: state.total, firstSession: state.recent[0]?.session ?? null };
}

async function allThreads(deps: CommandCenterRouteDeps, name: string, deepOffset: number): Promise<AllResponse> {
  const center = await deps.center(name);
  const startedAt = deps.now();
  const threads: Snapshot["threads"] = [];
  let first: Snapshot | undefined;
  let cursor: string | undefined;
  let deepCursor: string | null = null;
  let pages = 0;
  do {
    const page = await center.snapshot({ limit: PAGE, ...(cursor ? { cursor } : {}) });
    first ??= page;
    threads.push(...page.threads);
    cursor = page.nextCursor;
    pages++;
    if (threads.length === deepOffset && cursor) deepCursor = cursor;
  } while (cursor && pages < MAX_PAGES);
  const ms = deps.now() - startedAt;
  if (!first) throw new Error("snapshot returned no page");
  const unbounded: CommandCenterState = { metrics: first.metrics, recent: threads, total: first.total, updatedAt: first.generatedAt };
  return {
    pages,
    threads: threads.length,
    distinct: new Set(threads.map((thread) => thread.session)).size,
    total: first.total,
    unboundedBytes: jsonBytes(unbounded),
    maxThreadBytes: Math.max(0, ...threads.map(jsonBytes)),
    ms,
    deepCursor
  };
}

async function timedCalls(deps: CommandCenterRouteDeps, input: z.infer<typeof callsSchema>): Promise<CallsResponse> {
  const { name, op, cursor, limit } = input;
  if (op === "deep" && !cursor) return { error: "a deep page needs a cursor" };
  let last: Snapshot | CommandCenterState | undefined;
  const ms = await pool(Array.from({ length: input.calls }), 1, async () => {
    const startedAt = deps.now();
    const center = await deps.center(name);
    last = op === "state" ? await center.state : await center.snapshot({ limit, ...(op === "deep" ? { cursor } : {}) });
    return deps.now() - startedAt;
  });
  const threads = last === undefined ? 0 : "recent" in last ? last.recent.length : last.threads.length;
  return { ms, resultBytes: jsonBytes(last), threads };
}
