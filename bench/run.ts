/**
 * `npm run bench`: dispatch latency of our real path beside a bare Think
 * baseline measured in the same run, under `wrangler dev --local` (real
 * workerd, real Durable Objects; see worker.ts and routes.ts).
 *
 *  1. 200 distinct issues per side, 20 in flight: ours is the AgentThink.dispatch
 *     RPC, bare is getAgentByName + one submitMessages on a bare Think agent.
 *  2. A duplicate storm: 50 concurrent calls for the same comment; our side
 *     must yield exactly one submission.
 *
 * Machines are noisy, so the two sides alternate (blocks A B B A ..., storms
 * A B B A) after a discarded warm-up, and the figures to read are the ratios.
 * Between blocks the runner waits until every turn a block started has
 * finished, so one block's background turns never weigh on the next. Exits
 * non-zero only when the bench cannot run or our storm yields more than one
 * submission; latency targets are reported, not enforced.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { startDevServer, type DevServer } from "./dev-server";
import {
  evaluateTargets,
  formatReport,
  summarizeCalls,
  type BenchResult,
  type Side,
  type StormFigures
} from "./report";

const ISSUES = 200;
const CONCURRENCY = 20;
const BLOCK_SIZE = 50;
const BLOCK_ORDER: Side[] = ["ours", "bare", "bare", "ours", "ours", "bare", "bare", "ours"];
const WARMUP_CALLS = 20;
const STORM_CALLS = 50;
const STORM_ORDER: Side[] = ["ours", "bare", "bare", "ours"];
/** Keeps both sides' background turns to one model step. */
const INSTRUCTION = "TEST: reply ok";
const BENCH_REPO = "bench/agent-think";
/** Shaped like an installation token so our logger's redaction runs as in production. */
const BENCH_TOKEN = `ghs_${"0".repeat(36)}`;

const READY_TIMEOUT_MS = 90_000;
const REQUEST_TIMEOUT_MS = 30_000;
const SETTLE_TIMEOUT_MS = 30_000;
const SETTLE_POLL_MS = 100;
const BENCH_DEADLINE_MS = 170_000;
const KILL_GRACE_MS = 5_000;

/** Key ranges, so warm-up, blocks and storms never share an issue or agent. */
const WARMUP_KEY = 100_000;
const WARMUP_STORM_KEY = 200_000;
const STORM_KEY = 300_000;

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const RESULTS_DIR = fileURLToPath(new URL("./results/", import.meta.url));
const TERMINAL = new Set(["completed", "aborted", "skipped", "error"]);

type Call = { side: Side; agent: string; submissionId: string; clientMs: number; workerMs: number };

class BenchClient {
  constructor(
    readonly baseUrl: string,
    readonly deadline: AbortSignal
  ) {}

  /** One call for `key`: issue `key` and comment `key` on our side, agent `bare-<key>` on the bare side. */
  async call(side: Side, key: number): Promise<Call> {
    const body =
      side === "ours"
        ? { repo: BENCH_REPO, issueNumber: key, instruction: INSTRUCTION, installationToken: BENCH_TOKEN, commentId: key }
        : { name: `bare-${key}`, text: INSTRUCTION, idempotencyKey: `comment:${key}` };
    const startedAt = performance.now();
    const result = (await this.#post(`/bench/${side}`, body)) as { submissionId: string; workerMs: number; session?: string };
    const clientMs = performance.now() - startedAt;
    const agent = side === "ours" ? result.session! : `bare-${key}`;
    return { side, agent, submissionId: result.submissionId, clientMs, workerMs: result.workerMs };
  }

  async status(side: Side, agent: string, submissionId: string): Promise<string | null> {
    const result = (await this.#post("/bench/status", { side, agent, submissionId })) as { status: string | null };
    return result.status;
  }

  async #post(path: string, body: unknown): Promise<unknown> {
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

/** Run `task` for each item with at most `concurrency` in flight; results in item order. */
async function pool<T, R>(items: readonly T[], concurrency: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

const range = (start: number, count: number) => Array.from({ length: count }, (_, i) => start + i);

/** Wait until every submission the calls started is terminal; count their final statuses. */
async function settle(client: BenchClient, calls: readonly Call[]): Promise<Record<string, number>> {
  const pending = new Map(calls.map((c) => [`${c.side}\n${c.agent}\n${c.submissionId}`, c]));
  const statuses: Record<string, number> = {};
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  while (pending.size > 0) {
    const checked = await pool([...pending], CONCURRENCY, async ([id, c]) => ({
      id,
      status: await client.status(c.side, c.agent, c.submissionId)
    }));
    for (const { id, status } of checked) {
      if (status === null || !TERMINAL.has(status)) continue;
      statuses[status] = (statuses[status] ?? 0) + 1;
      pending.delete(id);
    }
    if (pending.size === 0) break;
    if (Date.now() > deadline) {
      statuses["still running"] = pending.size;
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, SETTLE_POLL_MS));
  }
  return statuses;
}

function addCounts(into: Record<string, number>, from: Record<string, number>) {
  for (const [status, count] of Object.entries(from)) into[status] = (into[status] ?? 0) + count;
}

async function storm(client: BenchClient, side: Side, key: number): Promise<Call[]> {
  const calls = await Promise.all(range(0, STORM_CALLS).map(() => client.call(side, key)));
  await settle(client, calls);
  return calls;
}

async function measure(client: BenchClient): Promise<Omit<BenchResult, "startedAt" | "wallMs">> {
  // Warm-up, discarded: the first call loads Think's module graph.
  const coldMs = {
    ours: (await client.call("ours", WARMUP_KEY)).clientMs,
    bare: (await client.call("bare", WARMUP_KEY)).clientMs
  };
  for (const side of ["ours", "bare"] as const) {
    await settle(client, await pool(range(WARMUP_KEY + 1, WARMUP_CALLS), CONCURRENCY, (key) => client.call(side, key)));
    await storm(client, side, WARMUP_STORM_KEY);
  }

  // Dispatch latency: 200 distinct issues per side, in alternating blocks.
  const calls: Record<Side, Call[]> = { ours: [], bare: [] };
  const turns: Record<Side, Record<string, number>> = { ours: {}, bare: {} };
  for (const side of BLOCK_ORDER) {
    const keys = range(1 + calls[side].length, BLOCK_SIZE);
    const block = await pool(keys, CONCURRENCY, (key) => client.call(side, key));
    calls[side].push(...block);
    addCounts(turns[side], await settle(client, block));
  }
  for (const side of ["ours", "bare"] as const) {
    if (calls[side].length !== ISSUES) throw new Error(`block plan ran ${calls[side].length} ${side} calls, not ${ISSUES}`);
  }

  // Duplicate storms, alternating.
  const storms: Record<Side, Call[][]> = { ours: [], bare: [] };
  for (const [index, side] of STORM_ORDER.entries()) storms[side].push(await storm(client, side, STORM_KEY + index));
  const stormFigures = (side: Side): StormFigures => ({
    distinctIds: storms[side].map((calls) => new Set(calls.map((c) => c.submissionId)).size),
    ...summarizeCalls(storms[side].flat())
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
    dispatch: {
      ours: { ...summarizeCalls(calls.ours), turns: turns.ours },
      bare: { ...summarizeCalls(calls.bare), turns: turns.bare }
    },
    storm: { ours: stormFigures("ours"), bare: stormFigures("bare") }
  };
}

function writeResults(result: BenchResult): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = `${RESULTS_DIR}dispatch-${result.startedAt.replace(/[:.]/g, "-")}.json`;
  writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`);
  return path;
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const deadline = AbortSignal.timeout(BENCH_DEADLINE_MS);
  let server: DevServer | undefined;
  const interrupt = (signal: NodeJS.Signals) => {
    console.error(`\nbench: ${signal}, stopping wrangler dev`);
    void (server?.stop() ?? Promise.resolve()).finally(() => process.exit(130));
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, interrupt);
  process.once("exit", () => server?.killNow());

  let ok = false;
  try {
    console.log("bench: starting wrangler dev --local (bench/wrangler.jsonc) ...");
    server = await startDevServer({
      config: "bench/wrangler.jsonc",
      cwd: ROOT,
      readyPath: "/bench/ping",
      readyTimeoutMs: READY_TIMEOUT_MS,
      killGraceMs: KILL_GRACE_MS
    });
    console.log(`bench: ready at ${server.baseUrl}; measuring (about a minute) ...\n`);
    const measured = await measure(new BenchClient(server.baseUrl, deadline));
    const result: BenchResult = { startedAt: startedAt.toISOString(), ...measured, wallMs: Date.now() - startedAt.getTime() };
    const targets = evaluateTargets(result);
    console.log(formatReport(result, targets));
    console.log(`\nresults: ${writeResults(result)}`);
    ok = targets.every((target) => target.pass || !target.fatal);
    if (!ok) console.error("\nbench: FAIL: a duplicate storm yielded more than one submission on our side");
    return ok ? 0 : 1;
  } catch (error) {
    console.error(`bench: failed: ${error instanceof Error ? error.message : String(error)}`);
    if (server) console.error(`\nwrangler dev output (last lines, full log at ${server.logPath}):\n${server.logTail()}`);
    return 1;
  } finally {
    await server?.stop();
    // Keep the log of a failed run; a passing run leaves nothing behind.
    if (ok) server?.removeFiles();
  }
}

process.exitCode = await main();
