/**
 * `npm run bench`: our real paths beside baselines measured in the same run,
 * under `wrangler dev --local` (real workerd, real Durable Objects; see
 * worker.ts, routes.ts and shell-routes.ts).
 *
 *  1. 200 distinct issues per side, 20 in flight: ours is the AgentThink.dispatch
 *     RPC over a service binding, bare is getAgentByName + one submitMessages
 *     on a bare Think agent.
 *  2. A duplicate storm: 50 concurrent calls for the same comment; our side
 *     must yield exactly one submission (1 and 2: dispatch-bench.ts).
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
import { BenchClient, measureDispatch } from "./dispatch-bench";
import { formatGateway, gatewayTargets, measureGateway } from "./gateway-bench";
import { evaluateTargets, formatReport, type BenchResult, type Target } from "./report";
import { measureShell } from "./shell-bench";
import { formatWebhooks, measureWebhooks, webhookTargets } from "./webhook-bench";

const READY_TIMEOUT_MS = 90_000;
/** The burst section (about a minute, more when its drains are slow) and the gateway's (one to two minutes) came on top of ~4 minutes. */
const BENCH_DEADLINE_MS = 540_000;
const KILL_GRACE_MS = 5_000;

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CONFIG = "bench/wrangler.jsonc";
const RESULTS_DIR = fileURLToPath(new URL("./results/", import.meta.url));
/** The dashboard `npm run build` (prebench) wrote, which bench/wrangler.jsonc serves. */
const CLIENT_DIR = fileURLToPath(new URL("../dist/client/", import.meta.url));
/** The command center the dashboard shows (src/command-center.ts COMMAND_CENTER_NAME). */
const DASHBOARD_CENTER = "main";

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
    const measured = await measureDispatch(client);
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
