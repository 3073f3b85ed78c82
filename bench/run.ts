/**
 * `npm run bench`: our real paths beside baselines measured in the same run,
 * under `wrangler dev --local` (real workerd, real Durable Objects; see
 * worker.ts, routes.ts and shell-routes.ts).
 *
 *  1. 200 distinct issues per side, 20 in flight: ours is the AgentThink.dispatch
 *     RPC over a service binding, bare is getAgentByName + one submitMessages
 *     on a bare Think agent.
 *  2. A duplicate storm: 50 concurrent calls for the same comment; our side
 *     must yield exactly one submission.
 *  3. Shell exec latency and the worker shell's output flood, ours beside a
 *     bare Workspace (shell-bench.ts).
 *  4. The container path's 100 MB flood, run before wrangler starts by this
 *     machine's bash with and without our wrapper (container-flood.ts).
 *  5. A command center holding 2,000 threads: its synced state beside its
 *     bound and its unbounded size, and snapshot latency (first and deep
 *     page) beside a `state` read (command-center-bench.ts).
 *  6. The command center under a burst: single record() calls offered at
 *     rising rates (500 to 4,000 events/s) as 1,000 concurrent runs send
 *     them, a dashboard socket connected and snapshot reads going on, beside
 *     idle phases with the same reads (command-center-burst.ts).
 *  7. The dashboard's first paint in headless Chromium, `main` seeded with
 *     2,000 threads, beside a static page of the same markup served by the
 *     same Worker (dashboard-bench.ts).
 *  8. The built dashboard JS, gzipped, read from dist/client before wrangler
 *     starts (bundle-size.ts).
 *  9. The webhook app: 1,000 signed deliveries (10% redeliveries) against the
 *     ingress Worker under its own wrangler dev, beside the bare signature
 *     check, and one dispatch per distinct comment (webhook-bench.ts).
 * 10. The egress gateway, run before wrangler starts: this machine's git
 *     cloning 50 MiB of incompressible content and pushing a new 50 MiB
 *     commit through the gateway (as the sandbox's HTTP proxy, tokens
 *     attached by the gateway) beside the same against the git server
 *     direct, goal 1.2x by median (gateway-bench.ts).
 *
 * The bench Worker drives and times the calls itself (routes.ts says why);
 * this runner plans the workload, alternates the sides (blocks A B B A ...,
 * storms A B B A) after a discarded warm-up, waits between blocks until every
 * turn a block started has finished (so one block's background turns never
 * weigh on the next), and reports ratios, because machines are noisy. Exits
 * non-zero only when the bench cannot run, our storm yields more than one
 * submission, the webhook app dispatches other than once per comment, flood
 * output past MAX_TOOL_OUTPUT_BYTES reaches the model, or the command center's
 * synced state exceeds its bound (64 KiB, 50 threads) with 2,000 threads;
 * latency and size targets are reported, not enforced.
 *
 * BENCH_ONLY=burst runs section 6 alone (wrangler dev, the burst, its report
 * and results JSON): a minute instead of several, while working on the
 * command center. BENCH_ONLY=dashboard runs sections 7 and 8 alone (`main`
 * seeded with the 2,000 threads only, then the first paint and the JS),
 * about a minute, while working on the dashboard. No other value is accepted.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { experimental_readRawConfig } from "wrangler";
import { measureBundle } from "./bundle-size";
import { measureCommandCenter, readState, seedCommandCenter } from "./command-center-bench";
import { measureBurst } from "./command-center-burst";
import { burstTargets, formatBurst } from "./command-center-burst-report";
import { measureContainerFlood } from "./container-flood";
import { dashboardTargets, formatBundle, formatDashboard, type DashboardResult } from "./command-center-report";
import { measureDashboard } from "./dashboard-bench";
import { DevServer } from "./dev-server";
import { formatGateway, gatewayTargets, measureGateway } from "./gateway-bench";
import { evaluateTargets, formatReport, type BenchResult, type Side, type StormFigures, type Target } from "./report";
import { measureShell } from "./shell-bench";
import { formatWebhooks, measureWebhooks, webhookTargets } from "./webhook-bench";
import { summarize } from "./stats";

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

const READY_TIMEOUT_MS = 90_000;
const REQUEST_TIMEOUT_MS = 60_000;
const SETTLE_TIMEOUT_MS = 30_000;
const SETTLE_POLL_MS = 100;
/** The burst section (about a minute, more when its drains are slow) and the gateway's (one to two minutes) came on top of ~4 minutes. */
const BENCH_DEADLINE_MS = 540_000;
const KILL_GRACE_MS = 5_000;

/** Key ranges, so warm-up, blocks and storms never share an issue or an agent. */
const WARMUP_KEY = 100_000;
const WARMUP_STORM_KEY = 200_000;
const STORM_KEY = 300_000;

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CONFIG = "bench/wrangler.jsonc";
const RESULTS_DIR = fileURLToPath(new URL("./results/", import.meta.url));
/** The dashboard `npm run build` (prebench) wrote, which bench/wrangler.jsonc serves. */
const CLIENT_DIR = fileURLToPath(new URL("../dist/client/", import.meta.url));
/** The command center the dashboard shows (src/command-center.ts COMMAND_CENTER_NAME). */
const DASHBOARD_CENTER = "main";
const TERMINAL = new Set(["completed", "aborted", "skipped", "error"]);

type Call = { side: Side; agent: string; submissionId: string; ms: number };
type Batch = { calls: Call[]; elapsedMs: number };

/** Issue `key` with comment `key` on our side; agent `bare-<key>` with key `comment:<key>` on the bare side. */
function inputFor(side: Side, key: number) {
  return side === "ours"
    ? { repo: BENCH_REPO, issueNumber: key, instruction: INSTRUCTION, installationToken: BENCH_TOKEN, commentId: key }
    : { name: `bare-${key}`, text: INSTRUCTION, idempotencyKey: `comment:${key}` };
}

class BenchClient {
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

async function measure(
  client: BenchClient
): Promise<Omit<BenchResult, "startedAt" | "machine" | "wallMs" | "shell" | "containerFlood" | "commandCenter" | "burst" | "dashboard" | "bundle">> {
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

/** BENCH_ONLY: the sections that can run alone. */
const ONLY = process.env.BENCH_ONLY;
if (ONLY !== undefined && ONLY !== "burst" && ONLY !== "dashboard") {
  throw new Error(`BENCH_ONLY=${ONLY}: only "burst" or "dashboard" can run alone`);
}

/** A section run alone: `burst` ({ burst }) or `dashboard` ({ dashboard, bundle }) beside these. */
type OnlyResult = {
  startedAt: string;
  only: "burst" | "dashboard";
  machine: BenchResult["machine"];
  wallMs: number;
  [figures: string]: unknown;
};

function writeResults(result: BenchResult | OnlyResult): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = `${RESULTS_DIR}bench-${result.startedAt.replace(/[:.]/g, "-")}.json`;
  writeFileSync(path, `${JSON.stringify(result, null, 2)}\n`);
  return path;
}

async function main(): Promise<number> {
  const startedAt = new Date();
  const deadline = AbortSignal.timeout(BENCH_DEADLINE_MS);
  let server: DevServer | undefined;
  let interrupted = false;
  // `on`, not `once`: tsx relays the terminal's SIGINT, so it can arrive twice,
  // and a second one without a handler would end us before wrangler is stopped.
  const interrupt = (signal: NodeJS.Signals) => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\nbench: ${signal}, stopping wrangler dev`);
    void (server?.stop() ?? Promise.resolve()).finally(() => {
      server?.removeFiles();
      process.exit(130);
    });
  };
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, interrupt);
  process.once("exit", () => server?.killNow());

  let ok = false;
  const loadStart = loadavg()[0]!;
  /** One section alone (BENCH_ONLY): its own wrangler dev, its report and targets, its results JSON. */
  const runAlone = async (
    only: OnlyResult["only"],
    what: string,
    measureAlone: (client: BenchClient, baseUrl: string) => Promise<{ figures: Record<string, unknown>; lines: string[]; targets: Target[] }>
  ) => {
    server = new DevServer({ config: CONFIG, cwd: ROOT, killGraceMs: KILL_GRACE_MS });
    await server.start();
    await server.ready("/bench/ping", READY_TIMEOUT_MS);
    console.log(`bench: ready at ${server.baseUrl}; BENCH_ONLY=${only}: ${what} ...\n`);
    const { figures, lines, targets } = await measureAlone(new BenchClient(server.baseUrl, deadline), server.baseUrl);
    const reloads = server.reloads();
    if (reloads > 0) throw new Error(`wrangler dev reloaded the Worker ${reloads} time(s) mid-run; the figures are void`);
    const result: OnlyResult = {
      startedAt: startedAt.toISOString(),
      only,
      ...figures,
      machine: { cpus: availableParallelism(), loadAverage1m: { start: loadStart, end: loadavg()[0]! } },
      wallMs: Date.now() - startedAt.getTime()
    };
    console.log([...lines, "", "Targets", ...targets.map((target) => `  ${target.pass ? "PASS" : "FAIL"}  ${target.name.padEnd(68)}${target.figure}`)].join("\n"));
    console.log(`\nresults: ${writeResults(result)}`);
  };
  try {
    if (ONLY === "burst") {
      await runAlone("burst", "the command center under a burst (about a minute)", async (client, baseUrl) => {
        const burst = await measureBurst((path, body) => client.post(path, body), baseUrl);
        return { figures: { burst }, lines: formatBurst(burst), targets: burstTargets(burst) };
      });
      ok = true;
      return 0;
    }
    if (ONLY === "dashboard") {
      const bundle = measureBundle(CLIENT_DIR);
      await runAlone("dashboard", `seeding \`${DASHBOARD_CENTER}\`, then first paint in headless Chromium`, async (client, baseUrl) => {
        const dashboard = await measureMainDashboard(client, baseUrl);
        return {
          figures: { dashboard, bundle },
          lines: [...formatDashboard(dashboard, bundle), "", ...formatBundle(bundle)],
          targets: dashboardTargets(dashboard, bundle)
        };
      });
      ok = true;
      return 0;
    }
    const maxBytes = maxToolOutputBytes();
    const bundle = measureBundle(CLIENT_DIR);
    // Before wrangler starts, so nothing else of ours runs beside bash.
    console.log("bench: container-path flood with this machine's bash ...");
    const containerFlood = await measureContainerFlood(maxBytes);
    console.log("bench: egress gateway: git clone and push of 50 MiB through the gateway and direct (one to two minutes) ...");
    const gateway = await measureGateway();
    console.log("bench: webhook app: 1,000 signed deliveries against the ingress Worker under its own wrangler dev ...");
    const webhook = await measureWebhooks(ROOT);
    console.log("bench: bundling bench/worker.ts and starting wrangler dev --local ...");
    server = new DevServer({ config: CONFIG, cwd: ROOT, killGraceMs: KILL_GRACE_MS });
    await server.start();
    await server.ready("/bench/ping", READY_TIMEOUT_MS);
    console.log(`bench: ready at ${server.baseUrl}; measuring dispatch, then the shell (about a minute) ...\n`);
    const client = new BenchClient(server.baseUrl, deadline);
    const post = (path: string, body: unknown) => client.post(path, body);
    const measured = await measure(client);
    const shell = await measureShell(post, maxBytes);
    console.log("bench: command center: seeding 2,000 threads, then snapshot latency ...");
    const commandCenter = await measureCommandCenter(post);
    console.log("bench: command center under a burst: single record() calls at 500 to 4,000 events/s, a dashboard connected ...");
    const burst = await measureBurst(post, server.baseUrl);
    console.log(`bench: dashboard: seeding \`${DASHBOARD_CENTER}\` with 2,000 threads, then first paint in headless Chromium ...\n`);
    const dashboard = await measureMainDashboard(client, server.baseUrl);
    const reloads = server.reloads();
    if (reloads > 0) throw new Error(`wrangler dev reloaded the Worker ${reloads} time(s) mid-run; the figures are void`);
    const result: BenchResult = {
      startedAt: startedAt.toISOString(),
      ...measured,
      shell,
      containerFlood,
      commandCenter,
      burst,
      dashboard,
      bundle,
      machine: { cpus: availableParallelism(), loadAverage1m: { start: loadStart, end: loadavg()[0]! } },
      wallMs: Date.now() - startedAt.getTime()
    };
    const targets = [...evaluateTargets(result), ...webhookTargets(webhook), ...gatewayTargets(gateway)];
    console.log(`${formatWebhooks(webhook).join("\n")}\n`);
    console.log(`${formatGateway(gateway).join("\n")}\n`);
    console.log(formatReport(result, targets));
    console.log(`\nresults: ${writeResults(Object.assign(result, { webhook, gateway }))}`);
    const failed = targets.filter((target) => !target.pass && target.fatal);
    ok = failed.length === 0;
    for (const target of failed) console.error(`\nbench: FAIL: ${target.name} (${target.figure})`);
    return ok ? 0 : 1;
  } catch (error) {
    if (interrupted) return 130;
    console.error(`bench: failed: ${error instanceof Error ? error.message : String(error)}`);
    if (server) console.error(`\nwrangler output (last lines; full log at ${server.logPath}):\n${server.logTail()}`);
    return 1;
  } finally {
    await server?.stop();
    // A failed run keeps its log; a passing run leaves nothing behind.
    if (ok) server?.removeFiles();
  }
}

/** `main` seeded with 2,000 threads, then the dashboard's first paint over it. */
async function measureMainDashboard(client: BenchClient, baseUrl: string): Promise<DashboardResult> {
  const post = (path: string, body: unknown) => client.post(path, body);
  const seed = await seedCommandCenter(post, DASHBOARD_CENTER);
  const mainState = await readState(post, DASHBOARD_CENTER);
  return { ...(await measureDashboard(baseUrl, post)), seed, mainState };
}

/** The bound the Worker runs with, from the bench config's vars (the container flood needs it before wrangler starts). */
function maxToolOutputBytes(): number {
  const { rawConfig } = experimental_readRawConfig({ config: `${ROOT}${CONFIG}` });
  const value = Number.parseInt(String(rawConfig.vars?.MAX_TOOL_OUTPUT_BYTES ?? ""), 10);
  if (!Number.isSafeInteger(value) || value < 256) throw new Error(`${CONFIG} sets no usable MAX_TOOL_OUTPUT_BYTES`);
  return value;
}

process.exitCode = await main();
