/**
 * The dispatch half of the bench (sections 1 and 2 of run.ts), through the
 * bench Worker's routes (routes.ts): ISSUES distinct issues per side in
 * blocks A B B A ... after a discarded warm-up, then duplicate storms A B B A.
 * Between blocks it waits until every turn a block started has finished, so
 * one block's background turns never weigh on the next. Also the runner's
 * client for the bench Worker (`BenchClient`), which the other sections use.
 */
import type { BenchResult, StormFigures } from "./report";
import { summarize, type Side } from "./stats";

const ISSUES = 200;
const CONCURRENCY = 20;
/** Small blocks, so a burst of other work on the machine lands on both sides alike. */
const BLOCK_SIZE = 25;
/** A B B A, repeated until each side has run ISSUES calls. */
const BLOCK_ORDER: Side[] = Array.from({ length: ISSUES / BLOCK_SIZE / 2 }, (): Side[] => ["ours", "bare", "bare", "ours"]).flat();
const WARMUP_CALLS = 20;
const STORM_CALLS = 50;
const STORM_ORDER: Side[] = ["ours", "bare", "bare", "ours"];
/** Keeps both sides' background turns to one model step. */
const INSTRUCTION = "TEST: reply ok";
const BENCH_REPO = "bench/agent-think";
/** Shaped like an installation token, so our logger's redaction runs as in production. */
const BENCH_TOKEN = `ghs_${"0".repeat(36)}`;

const REQUEST_TIMEOUT_MS = 60_000;
const SETTLE_TIMEOUT_MS = 30_000;
const SETTLE_POLL_MS = 100;

/** Key ranges, so warm-up, blocks and storms never share an issue or an agent. */
const WARMUP_KEY = 100_000;
const WARMUP_STORM_KEY = 200_000;
const STORM_KEY = 300_000;

const TERMINAL = new Set(["completed", "aborted", "skipped", "error"]);

type Call = { side: Side; agent: string; submissionId: string; ms: number };
type Batch = { calls: Call[]; elapsedMs: number };

/** Issue `key` with comment `key` on our side; agent `bare-<key>` with key `comment:<key>` on the bare side. */
function inputFor(side: Side, key: number) {
  return side === "ours"
    ? { repo: BENCH_REPO, issueNumber: key, instruction: INSTRUCTION, installationToken: BENCH_TOKEN, commentId: key }
    : { name: `bare-${key}`, text: INSTRUCTION, idempotencyKey: `comment:${key}` };
}

export class BenchClient {
  constructor(
    readonly baseUrl: string,
    readonly deadline: AbortSignal
  ) {}

  /** One call per key, at most `concurrency` in flight, timed inside the bench Worker. */
  async batch(side: Side, keys: readonly number[], concurrency: number): Promise<Batch> {
    const inputs = keys.map((key) => inputFor(side, key));
    const result = (await this.post("/bench/batch", { side, concurrency, inputs })) as {
      elapsedMs: number;
      calls: ({ agent: string; submissionId: string; ms: number } | { error: string })[];
    };
    const failed = result.calls.flatMap((call) => ("error" in call ? [call.error] : []));
    if (failed.length > 0) throw new Error(`${failed.length} ${side} call(s) failed, first: ${failed[0]}`);
    return {
      elapsedMs: result.elapsedMs,
      calls: result.calls.map((call) => ({ side, ...(call as Exclude<typeof call, { error: string }>) }))
    };
  }

  async statuses(calls: readonly Call[]): Promise<(string | null)[]> {
    const items = calls.map(({ side, agent, submissionId }) => ({ side, agent, submissionId }));
    return ((await this.post("/bench/statuses", { items })) as { statuses: (string | null)[] }).statuses;
  }

  async post(path: string, body: unknown): Promise<unknown> {
    const response = await fetch(this.baseUrl + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      signal: AbortSignal.any([this.deadline, AbortSignal.timeout(REQUEST_TIMEOUT_MS)])
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`POST ${path} → ${response.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text);
  }
}

const range = (start: number, count: number) => Array.from({ length: count }, (_, i) => start + i);

/** Wait until every submission the calls started is terminal; count their final statuses. */
async function settle(client: BenchClient, calls: readonly Call[]): Promise<Record<string, number>> {
  const unique = new Map(calls.map((call) => [`${call.side}\n${call.agent}\n${call.submissionId}`, call]));
  let pending = [...unique.values()];
  const counts: Record<string, number> = {};
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while (pending.length > 0) {
    const statuses = await client.statuses(pending);
    const still: Call[] = [];
    pending.forEach((call, i) => {
      const status = statuses[i];
      if (status && TERMINAL.has(status)) counts[status] = (counts[status] ?? 0) + 1;
      else still.push(call);
    });
    pending = still;
    if (pending.length > 0 && Date.now() > deadline) {
      counts["still running"] = pending.length;
      break;
    }
    if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
  return counts;
}

function addCounts(into: Record<string, number>, from: Record<string, number>) {
  for (const [status, count] of Object.entries(from)) into[status] = (into[status] ?? 0) + count;
}

/** STORM_CALLS calls for one key, all in flight at once. */
async function storm(client: BenchClient, side: Side, key: number): Promise<Call[]> {
  const { calls } = await client.batch(side, new Array<number>(STORM_CALLS).fill(key), STORM_CALLS);
  await settle(client, calls);
  return calls;
}

/** What the dispatch half contributes to the results: its setup, figures and samples. */
export type DispatchMeasured = Pick<BenchResult, "setup" | "dispatch" | "storm" | "samples">;

export async function measureDispatch(client: BenchClient): Promise<DispatchMeasured> {
  // Warm-up, discarded. The first call loads Think's module graph.
  const coldMs = {
    ours: (await client.batch("ours", [WARMUP_KEY], 1)).calls[0]!.ms,
    bare: (await client.batch("bare", [WARMUP_KEY], 1)).calls[0]!.ms
  };
  for (const side of ["ours", "bare"] as const) {
    await settle(client, (await client.batch(side, range(WARMUP_KEY + 1, WARMUP_CALLS), CONCURRENCY)).calls);
    await storm(client, side, WARMUP_STORM_KEY);
  }

  // Dispatch latency: ISSUES distinct issues per side, in alternating blocks.
  const calls: Record<Side, Call[]> = { ours: [], bare: [] };
  const blocks: BenchResult["samples"]["blocks"] = [];
  const elapsedMs: Record<Side, number> = { ours: 0, bare: 0 };
  const turns: Record<Side, Record<string, number>> = { ours: {}, bare: {} };
  for (const side of BLOCK_ORDER) {
    const block = await client.batch(side, range(1 + calls[side].length, BLOCK_SIZE), CONCURRENCY);
    calls[side].push(...block.calls);
    blocks.push({ side, ms: block.calls.map((call) => call.ms) });
    elapsedMs[side] += block.elapsedMs;
    addCounts(turns[side], await settle(client, block.calls));
  }
  for (const side of ["ours", "bare"] as const) {
    if (calls[side].length !== ISSUES) throw new Error(`the block plan ran ${calls[side].length} ${side} calls, not ${ISSUES}`);
  }

  // Duplicate storms, alternating.
  const storms: Record<Side, Call[][]> = { ours: [], bare: [] };
  const stormSamples: BenchResult["samples"]["storms"] = [];
  for (const [index, side] of STORM_ORDER.entries()) {
    const calls = await storm(client, side, STORM_KEY + index);
    storms[side].push(calls);
    stormSamples.push({ side, ms: calls.map((call) => call.ms) });
  }
  const stormFigures = (side: Side): StormFigures => ({
    distinctIds: storms[side].map((one) => new Set(one.map((call) => call.submissionId)).size),
    latency: summarize(storms[side].flat().map((call) => call.ms))
  });
  const dispatchFigures = (side: Side) => ({
    latency: summarize(calls[side].map((call) => call.ms)),
    callsPerSecond: (calls[side].length * 1000) / elapsedMs[side],
    turns: turns[side]
  });

  return {
    setup: {
      issues: ISSUES,
      concurrency: CONCURRENCY,
      blockOrder: BLOCK_ORDER,
      blockSize: BLOCK_SIZE,
      stormCalls: STORM_CALLS,
      stormOrder: STORM_ORDER,
      instruction: INSTRUCTION,
      warmup: { coldMs, calls: WARMUP_CALLS }
    },
    dispatch: { ours: dispatchFigures("ours"), bare: dispatchFigures("bare") },
    storm: { ours: stormFigures("ours"), bare: stormFigures("bare") },
    samples: { blocks, storms: stormSamples }
  };
}
