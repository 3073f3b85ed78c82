/**
 * `npm run bench`: our real paths beside baselines measured in the same run,
 * under `wrangler dev --local`. This runner plans the sections, alternates the
 * sides after a warm-up, reports ratios and PASS/FAIL lines, and writes the
 * figures to bench/results/. It fails only when the bench cannot run or a
 * correctness target fails; latency and size targets are reported. What each
 * section measures, and `BENCH_ONLY` (burst, dashboard, first-sign, gateway) to run one
 * alone: docs/testing.md, "The bench".
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
import { firstSignTargets, formatFirstSign, measureFirstSign } from "./first-sign-bench";
import { formatGateway, gatewayTargets, measureGateway } from "./gateway-bench";
import { evaluateTargets, formatReport, type BenchResult, type Target } from "./report";
import { measureShell } from "./shell-bench";
import { formatWebhooks, measureWebhooks, webhookTargets } from "./webhook-bench";

const READY_TIMEOUT_MS = 90_000;
/** The burst section (about a minute, more when its drains are slow), the gateway's (two to three minutes) and the first sign's (one to four) came on top of ~4 minutes. */
const BENCH_DEADLINE_MS = 840_000;
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
if (ONLY !== undefined && ONLY !== "burst" && ONLY !== "dashboard" && ONLY !== "first-sign" && ONLY !== "gateway") {
  throw new Error(`BENCH_ONLY=${ONLY}: only "burst", "dashboard", "first-sign" or "gateway" can run alone`);
}

/** A section run alone: `burst` ({ burst }), `dashboard` ({ dashboard, bundle }), `first-sign` ({ firstSign }) or `gateway` ({ gateway }) beside these. */
type OnlyResult = {
  startedAt: string;
  only: "burst" | "dashboard" | "first-sign" | "gateway";
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
    reportAlone(only, figures, lines, targets);
  };
  /** A section's report and targets printed, its results JSON written. */
  const reportAlone = (only: OnlyResult["only"], figures: Record<string, unknown>, lines: string[], targets: Target[]) => {
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
    if (ONLY === "first-sign") {
      // Its own two wrangler dev (the webhook app and the agent Worker), not the bench Worker.
      console.log("bench: BENCH_ONLY=first-sign: mentions through the webhook app and the agent Worker, one at a time (a few minutes) ...\n");
      const firstSign = await measureFirstSign(ROOT);
      const targets = firstSignTargets(firstSign);
      reportAlone("first-sign", { firstSign }, formatFirstSign(firstSign), targets);
      ok = targets.every((target) => target.pass || !target.fatal);
      return ok ? 0 : 1;
    }
    if (ONLY === "gateway") {
      // No wrangler: git and npm against their servers, the proxy harness and the gateway in this process.
      console.log("bench: BENCH_ONLY=gateway: git clone and push, npm install, through the gateway and direct (two to three minutes) ...\n");
      const gateway = await measureGateway();
      const targets = gatewayTargets(gateway);
      reportAlone("gateway", { gateway }, formatGateway(gateway), targets);
      ok = targets.every((target) => target.pass || !target.fatal);
      return ok ? 0 : 1;
    }
    const maxBytes = maxToolOutputBytes();
    const bundle = measureBundle(CLIENT_DIR);
    // Before wrangler starts, so nothing else of ours runs beside bash.
    console.log("bench: container-path flood with this machine's bash ...");
    const containerFlood = await measureContainerFlood(maxBytes);
    console.log("bench: egress gateway: git clone and push of 50 MiB, npm install of private packages, through the gateway and direct (two to three minutes) ...");
    const gateway = await measureGateway();
    console.log("bench: webhook app: 1,000 signed deliveries against the ingress Worker under its own wrangler dev ...");
    const webhook = await measureWebhooks(ROOT);
    console.log("bench: first sign of life: mentions through the webhook app and the agent Worker, one at a time (one to four minutes) ...");
    const firstSign = await measureFirstSign(ROOT);
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
    const targets = [...evaluateTargets(result), ...webhookTargets(webhook), ...firstSignTargets(firstSign), ...gatewayTargets(gateway)];
    console.log(`${formatWebhooks(webhook).join("\n")}\n`);
    console.log(`${formatFirstSign(firstSign).join("\n")}\n`);
    console.log(`${formatGateway(gateway).join("\n")}\n`);
    console.log(formatReport(result, targets));
    console.log(`\nresults: ${writeResults(Object.assign(result, { webhook, firstSign, gateway }))}`);
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
