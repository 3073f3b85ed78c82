/**
 * The command-center half of the bench, driven through command-center-routes.ts
 * once the bench Worker is up (bench/run.ts calls it after the shell bench):
 *
 *  1. Seed a fresh-named CommandCenterAgent with THREADS threads
 *     (command-center-seed.ts) through recordBatch, in chunks of whole threads.
 *  2. The synced state after seeding, as refreshState() returns it and as the
 *     `state` getter reads it, beside its bound (MAX_BROADCAST_BYTES,
 *     MAX_RECENT_THREADS) and beside what it would weigh unbounded: every
 *     thread, paged out of snapshot().
 *  3. Snapshot latency, one call at a time: the first page and a deep page
 *     (after DEEP_OFFSET threads) of SNAPSHOT_LIMIT threads, beside the
 *     baseline, the same stub's `state` read, in blocks A B C C B A after a
 *     discarded warm-up.
 *
 * `seedCommandCenter` also seeds `main`, the command center the dashboard
 * shows (dashboard-bench.ts).
 */
import { MAX_BROADCAST_BYTES, MAX_RECENT_THREADS } from "../src/shared/command-center";
import type { AllResponse, CallsResponse, CenterOp, StateResponse } from "./command-center-routes";
import { seedChunks, type SeedSummary } from "./command-center-seed";
import { summarize, type Summary } from "./stats";

export type Post = (path: string, body: unknown) => Promise<unknown>;

export const THREADS = 2_000;
/** recordBatch takes at most 5,000 events. */
const MAX_BATCH_EVENTS = 5_000;
export const SNAPSHOT_LIMIT = 50;
/** Page 39 of 40: a full page with a next cursor, as deep as the registry goes. */
const DEEP_OFFSET = 1_900;
const CALLS = 200;
const BLOCK_SIZE = 25;
const WARMUP_CALLS = 10;
const BLOCK_ORDER: CenterOp[] = Array.from({ length: CALLS / BLOCK_SIZE / 2 }, (): CenterOp[] => ["first", "deep", "state", "state", "deep", "first"]).flat();

export type SeedFigures = SeedSummary & {
  name: string;
  chunks: number;
  /** Each recordBatch call on the bench Worker's clock. */
  chunkMs: number[];
  outcomes: Record<string, number>;
};

export type CommandCenterFigures = {
  seed: SeedFigures;
  state: StateResponse & { maxBytes: number; maxThreads: number };
  unbounded: Omit<AllResponse, "deepCursor">;
  snapshot: {
    limit: number;
    deepOffset: number;
    callsPerOp: number;
    blockSize: number;
    blockOrder: CenterOp[];
    warmupCalls: number;
    latency: Record<CenterOp, Summary>;
    /** One result of each op, as JSON. */
    resultBytes: Record<CenterOp, number>;
    threads: Record<CenterOp, number>;
  };
};

/** Seed `name` with `threads` threads; throws unless every event is applied. */
export async function seedCommandCenter(post: Post, name: string, threads: number = THREADS): Promise<SeedFigures> {
  const { chunks, summary } = seedChunks(threads, Date.now(), MAX_BATCH_EVENTS);
  const chunkMs: number[] = [];
  const outcomes: Record<string, number> = {};
  for (const events of chunks) {
    const result = (await post("/bench/cc/seed", { name, events })) as { ms: number; outcomes: Record<string, number> };
    chunkMs.push(result.ms);
    for (const [key, count] of Object.entries(result.outcomes)) outcomes[key] = (outcomes[key] ?? 0) + count;
  }
  if (outcomes.applied !== summary.events) {
    throw new Error(`seeding ${name}: ${summary.events} events sent, outcomes ${JSON.stringify(outcomes)}`);
  }
  return { ...summary, name, chunks: chunks.length, chunkMs, outcomes };
}

export async function readState(post: Post, name: string): Promise<StateResponse> {
  return (await post("/bench/cc/state", { name })) as StateResponse;
}

export async function measureCommandCenter(post: Post): Promise<CommandCenterFigures> {
  const name = `bench-cc-${crypto.randomUUID()}`;
  const seed = await seedCommandCenter(post, name);

  const state = await readState(post, name);
  if (state.refreshed.total !== THREADS) throw new Error(`the seeded command center counts ${state.refreshed.total} threads, not ${THREADS}`);

  const all = (await post("/bench/cc/all", { name, deepOffset: DEEP_OFFSET })) as AllResponse;
  if (all.threads !== THREADS || all.distinct !== THREADS) {
    throw new Error(`paging the snapshot gave ${all.threads} threads (${all.distinct} distinct), not ${THREADS}`);
  }
  const { deepCursor, ...unbounded } = all;
  if (!deepCursor) throw new Error(`no cursor after ${DEEP_OFFSET} threads`);

  const expectedThreads: Record<CenterOp, number> = { first: SNAPSHOT_LIMIT, deep: SNAPSHOT_LIMIT, state: state.stored.threads };
  const resultBytes = {} as Record<CenterOp, number>;
  const run = async (op: CenterOp, calls: number) => {
    const result = (await post("/bench/cc/calls", {
      name,
      op,
      limit: SNAPSHOT_LIMIT,
      calls,
      ...(op === "deep" ? { cursor: deepCursor } : {})
    })) as CallsResponse;
    if ("error" in result) throw new Error(`command center ${op} calls failed: ${result.error}`);
    if (result.threads !== expectedThreads[op]) throw new Error(`command center ${op} returned ${result.threads} threads, not ${expectedThreads[op]}`);
    resultBytes[op] = result.resultBytes;
    return result.ms;
  };

  for (const op of ["first", "deep", "state"] as const) await run(op, WARMUP_CALLS);
  const ms: Record<CenterOp, number[]> = { first: [], deep: [], state: [] };
  for (const op of BLOCK_ORDER) ms[op].push(...(await run(op, BLOCK_SIZE)));
  for (const op of ["first", "deep", "state"] as const) {
    if (ms[op].length !== CALLS) throw new Error(`the command-center block plan ran ${ms[op].length} ${op} calls, not ${CALLS}`);
  }

  return {
    seed,
    state: { ...state, maxBytes: MAX_BROADCAST_BYTES, maxThreads: MAX_RECENT_THREADS },
    unbounded,
    snapshot: {
      limit: SNAPSHOT_LIMIT,
      deepOffset: DEEP_OFFSET,
      callsPerOp: CALLS,
      blockSize: BLOCK_SIZE,
      blockOrder: BLOCK_ORDER,
      warmupCalls: WARMUP_CALLS,
      latency: { first: summarize(ms.first), deep: summarize(ms.deep), state: summarize(ms.state) },
      resultBytes,
      threads: expectedThreads
    }
  };
}
