/**
 * What the egress gateway costs on its heaviest paths, measured before wrangler starts: this
 * machine's `git` cloning and pushing 50 MiB of random bytes against git-http-backend
 * (git-http-server.ts), and the real npm installing private packages from verdaccio
 * (gateway-npm.ts); each through the gateway as the sandbox reaches it (egress-proxy.ts as the
 * proxy, the gateway attaching the credentials) and direct, the client holding the token. The
 * sides alternate A B B A after a warm-up of each; a failed operation or a ref that does not
 * land ends the bench. The figures and where the time goes: docs/testing.md, "The gateway".
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { grantFor } from "../src/egress/grant";
import { EgressProxy, SANDBOX_GITHUB } from "../test/support/egress-proxy";
import { GitHttpServer } from "../test/support/git-http-server";
import { GitHubApiStub } from "../test/support/github-api-stub";
import { NPM_INSTALL_BYTES, startNpmInstallRun, timed } from "./gateway-npm";
import type { Target } from "./report";
import { ratio, summarize, type Side, type Summary } from "./stats";

/** Several files, as a repository holds them, each under git's 512 MiB core.bigFileThreshold. */
const FILE_COUNT = 5;
const FILE_BYTES = 10 * 1024 * 1024;
export const GATEWAY_REPO_BYTES = FILE_COUNT * FILE_BYTES;
/** A B B A, three times: a warm page cache or a busy moment favours neither side, and one slow sample moves no median. */
const BLOCK: readonly Side[] = ["ours", "bare", "bare", "ours"];
const ORDER: Side[] = Array.from({ length: 3 }, () => BLOCK).flat();
/** The gateway's median at most this many times direct's, for each operation. */
export const GATEWAY_RATIO_GOAL = 1.2;
const REPO = "acme/widgets";
/** The run's branch: every gateway push after the first moves it forward, so the gateway checks each one is a fast-forward. */
const PUSH_BRANCH = "agent-think/bench";
const DIRECT_BRANCH = "bench/direct";
/** One clone or push of 50 MiB; far more means something hangs. */
const GIT_TIMEOUT_MS = 120_000;

type Environment = Record<string, string | undefined>;
type Operation = "clone" | "push" | "install";
const OPERATIONS: readonly Operation[] = ["clone", "push", "install"];

export type GatewayOperationFigures = {
  /** ms, from spawning the client to its exit. */
  gateway: Summary;
  direct: Summary;
  /** gateway p50 / direct p50 */
  ratio: number;
  /** The median over the A B B A blocks of gateway's sum / direct's: a load that drifts between blocks moves it less. */
  paired: number;
  /** CPU ms this process spent while the client ran (the git server, the proxy harness and the gateway run in it; verdaccio does not). */
  cpu: { gateway: Summary; direct: Summary };
};

export type GatewayFigures = {
  repoBytes: number;
  pushBytes: number;
  installBytes: number;
  order: Side[];
  clone: GatewayOperationFigures;
  push: GatewayOperationFigures;
  install: GatewayOperationFigures;
  /** Compare API calls the gateway made to check the pushes (each gateway push after a direct one asks once). */
  compareCalls: number;
  /** Requests the gateway refused during the bench (expect 0: every request is one the grant allows). */
  refusals: number;
  /** Every timed run, in run order: wall ms and this process's CPU ms. */
  samples: { operation: Operation; side: Side; ms: number; cpuMs: number }[];
};

function git(args: string[], cwd: string, env: Environment): Promise<{ ms: number; output: string }> {
  const startedAt = performance.now();
  return new Promise((resolve, reject) => {
    execFile("git", args, { cwd, env: env as NodeJS.ProcessEnv, timeout: GIT_TIMEOUT_MS, maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      const ms = performance.now() - startedAt;
      if (error) reject(new Error(`git ${args.join(" ")} failed after ${ms.toFixed(0)} ms: ${stderr || error.message}`));
      else resolve({ ms, output: stdout.trim() });
    });
  });
}

/** FILE_COUNT files of fresh random bytes, `data/<prefix>-<i>.bin`. */
function randomFiles(prefix: string): Record<string, Uint8Array> {
  return Object.fromEntries(Array.from({ length: FILE_COUNT }, (_, i) => [`data/${prefix}-${i}.bin`, randomBytes(FILE_BYTES)]));
}

export async function measureGateway(): Promise<GatewayFigures> {
  const dir = mkdtempSync(join(tmpdir(), "agent-think-bench-gateway-"));
  const readToken = `bench-read-${crypto.randomUUID()}`;
  const writeToken = `bench-write-${crypto.randomUUID()}`;
  const closers: (() => Promise<void>)[] = [];
  const samples: GatewayFigures["samples"] = [];
  try {
    const server = await GitHttpServer.start({ readToken, writeToken });
    closers.push(() => server.close());
    const stub = await GitHubApiStub.start();
    closers.push(() => stub.close());
    // The compare API the gateway asks before a push moves the run's branch, answered from the repository.
    const api = await server.startApi(stub.origin);
    server.createRepo(REPO, { files: randomFiles("seed") });
    const proxy = await EgressProxy.start({
      gitOrigin: server.origin,
      apiOrigin: api,
      grant: grantFor({ submissionId: "bench", repo: REPO, pushBranch: PUSH_BRANCH, readToken, writeToken })
    });
    closers.push(() => proxy.close());

    const home = join(dir, "home");
    mkdirSync(home);
    writeFileSync(join(home, ".gitconfig"), "[user]\n\tname = Bench\n\temail = bench@example.invalid\n");
    const base: Environment = { PATH: process.env.PATH, HOME: home, LANG: "C", GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0" };
    const viaGateway: Environment = { ...base, http_proxy: proxy.url, HTTP_PROXY: proxy.url, no_proxy: "", NO_PROXY: "" };
    const directWith = (token: string): Environment => ({
      ...base,
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "http.extraHeader",
      GIT_CONFIG_VALUE_0: `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`
    });
    const remote: Record<Side, string> = { ours: `${SANDBOX_GITHUB.web}/${REPO}.git`, bare: `${server.origin}/${REPO}.git` };
    const cloneEnv: Record<Side, Environment> = { ours: viaGateway, bare: directWith(readToken) };
    const pushEnv: Record<Side, Environment> = { ours: viaGateway, bare: directWith(writeToken) };
    const branch: Record<Side, string> = { ours: PUSH_BRANCH, bare: DIRECT_BRANCH };
    const mainOid = server.refs(REPO).find((ref) => ref.ref === "refs/heads/main")?.oid;

    let clones = 0;
    const clone = async (side: Side): Promise<{ ms: number; cpuMs: number }> => {
      const target = join(dir, `clone-${clones++}`);
      const took = await timed(() => git(["clone", "-q", remote[side], target], dir, cloneEnv[side]));
      const head = (await git(["rev-parse", "HEAD"], target, base)).output;
      if (head !== mainOid) throw new Error(`gateway bench: a ${side} clone checked out ${head}, not main (${mainOid})`);
      rmSync(target, { recursive: true, force: true });
      return took;
    };

    // The pushing clone: each push is a new commit of FILE_COUNT fresh files on top of the last, so it carries 50 MiB.
    const work = join(dir, "work");
    await git(["clone", "-q", remote.bare, work], dir, directWith(readToken));
    mkdirSync(join(work, "data"), { recursive: true });
    let pushes = 0;
    /** A new commit, made before the clock starts. */
    const prepare = async (): Promise<string> => {
      const n = ++pushes;
      for (const [path, bytes] of Object.entries(randomFiles(`push-${n}`))) writeFileSync(join(work, path), bytes);
      // Stored uncompressed: preparing is not timed, and the push deflates the objects into its pack either way.
      await git(["-c", "core.looseCompression=0", "add", "-A"], work, base);
      await git(["commit", "-q", "-m", `push ${n}`], work, base);
      return (await git(["rev-parse", "HEAD"], work, base)).output;
    };
    const push = async (side: Side, commit: string): Promise<{ ms: number; cpuMs: number }> => {
      const took = await timed(() => git(["push", "-q", remote[side], `HEAD:refs/heads/${branch[side]}`], work, pushEnv[side]));
      const landed = server.refs(REPO).find((ref) => ref.ref === `refs/heads/${branch[side]}`)?.oid;
      if (landed !== commit) throw new Error(`gateway bench: the ${side} push to ${branch[side]} did not land (${landed ?? "no ref"})`);
      return took;
    };

    // Warm-ups, discarded: the first clone of each side pays for cold caches, the first push of each creates its branch
    // (after the clones, which would otherwise fetch the pushed branches too).
    await clone("ours");
    await clone("bare");
    for (const side of ORDER) samples.push({ operation: "clone", side, ...(await clone(side)) });

    for (const side of ["ours", "bare"] as const) await push(side, await prepare());
    for (const side of ORDER) {
      const commit = await prepare();
      samples.push({ operation: "push", side, ...(await push(side, commit)) });
    }
    const compareCalls = server.compareCalls.length;
    if (compareCalls === 0) throw new Error("gateway bench: the gateway never asked the compare API: the pushes did not go through its fast-forward check");

    const npm = await startNpmInstallRun();
    closers.push(() => npm.close());
    await npm.install("ours");
    await npm.install("bare");
    for (const side of ORDER) samples.push({ operation: "install", side, ...(await npm.install(side)) });

    const figures = (operation: Operation): GatewayOperationFigures => {
      const runs = samples.filter((one) => one.operation === operation);
      const of = (side: Side, value: "ms" | "cpuMs") => summarize(runs.filter((one) => one.side === side).map((one) => one[value]));
      const gateway = of("ours", "ms");
      const direct = of("bare", "ms");
      return { gateway, direct, ratio: ratio(gateway.p50, direct.p50), paired: pairedRatio(runs), cpu: { gateway: of("ours", "cpuMs"), direct: of("bare", "cpuMs") } };
    };
    return {
      repoBytes: GATEWAY_REPO_BYTES,
      pushBytes: GATEWAY_REPO_BYTES,
      installBytes: NPM_INSTALL_BYTES,
      order: ORDER,
      clone: figures("clone"),
      push: figures("push"),
      install: figures("install"),
      compareCalls,
      refusals: proxy.refusals.length + npm.refusals(),
      samples
    };
  } finally {
    for (const close of closers.reverse()) await close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The median over ORDER's blocks (A B B A) of gateway's time in the block over direct's. */
function pairedRatio(runs: readonly { side: Side; ms: number }[]): number {
  const blocks: number[] = [];
  for (let at = 0; at + BLOCK.length <= runs.length; at += BLOCK.length) {
    const sum = (side: Side) => runs.slice(at, at + BLOCK.length).reduce((total, one) => total + (one.side === side ? one.ms : 0), 0);
    blocks.push(ratio(sum("ours"), sum("bare")));
  }
  return summarize(blocks).p50;
}

/** The report's section. */
export function formatGateway(figures: GatewayFigures): string[] {
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
  const order = figures.order.map((side) => (side === "ours" ? "A" : "B")).join(" ");
  const range = (summary: Summary) => `${ms(summary.min)}-${ms(summary.max)}`;
  const row = (label: string, one: GatewayOperationFigures) =>
    `  ${label.padEnd(30)}${ms(one.direct.p50).padStart(8)}${ms(one.gateway.p50).padStart(9)}${`${one.ratio.toFixed(2)}x`.padStart(11)}${`${one.paired.toFixed(2)}x`.padStart(8)}` +
    `${range(one.direct).padStart(13)}${range(one.gateway).padStart(13)}${ms(one.cpu.direct.p50).padStart(8)}${ms(one.cpu.gateway.p50).padStart(9)}`;
  const n = (operation: Operation) => figures[operation].gateway.n;
  return [
    `Egress gateway: git clone of ${mib(figures.repoBytes)}, push of a new ${mib(figures.pushBytes)} commit (a fast-forward of the branch), npm install of ${mib(figures.installBytes)} of private packages;`,
    `A = through the gateway (HTTP proxy harness, credentials attached by the gateway), B = direct with the token; order ${order}, after one warm-up each`,
    `  ${"median (ms)".padEnd(30)}${"direct".padStart(8)}${"gateway".padStart(9)}${"gw/direct".padStart(11)}${"paired".padStart(8)}${"direct range".padStart(13)}${"gw range".padStart(13)}${"CPU dir".padStart(8)}${"CPU gw".padStart(9)}`,
    row(`git clone (n=${n("clone")} per side)`, figures.clone),
    row(`git push (n=${n("push")} per side)`, figures.push),
    row(`npm install (n=${n("install")} per side)`, figures.install),
    `  paired: the median over the A B B A blocks of the gateway's time over direct's; CPU: this process's median ms per operation`,
    `  (the git server, the proxy harness and the gateway run in it; git, npm and verdaccio do not); compare API calls: ${figures.compareCalls}`,
    `  goal: at most ${GATEWAY_RATIO_GOAL}x (reported, not enforced); refusals during the bench: ${figures.refusals}`
  ];
}

/** The report's target lines: the ratios are reported; a refusal of a request the grant allows fails the bench. */
export function gatewayTargets(figures: GatewayFigures): Target[] {
  const label: Record<Operation, string> = { clone: "git clone", push: "git push", install: "npm install" };
  return [
    ...OPERATIONS.map((operation) => ({
      name: `gateway ${label[operation]} median within ${GATEWAY_RATIO_GOAL}x of direct`,
      pass: figures[operation].ratio <= GATEWAY_RATIO_GOAL,
      figure: `${figures[operation].ratio.toFixed(2)}x (${ms(figures[operation].gateway.p50)} ms vs ${ms(figures[operation].direct.p50)} ms)`,
      fatal: false
    })),
    { name: "gateway refused nothing the grant allows", pass: figures.refusals === 0, figure: `${figures.refusals} refusal(s)`, fatal: true }
  ];
}

function ms(value: number): string {
  return Number.isFinite(value) ? value.toFixed(0) : "-";
}
