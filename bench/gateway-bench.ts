/**
 * What the egress gateway costs git on its heaviest paths, measured for
 * real before wrangler starts: this machine's `git` cloning and pushing
 * 50 MiB of incompressible content against a real smart-HTTP server
 * (git-http-backend behind test/support/git-http-server.ts), once through
 * the gateway as the sandbox reaches it (test/support/egress-proxy.ts as
 * `http_proxy`, the gateway attaching the tokens) and once direct, with the
 * token in an `http.extraHeader` given by GIT_CONFIG_* variables (never
 * argv). Sides alternate A B B A after a discarded warm-up clone of each.
 *
 * Each push is a new commit of fresh random files to a new branch (the
 * grant's push branch on the gateway side), so every push carries the
 * whole 50 MiB; preparing it is not timed. The goal (gateway at most
 * GATEWAY_RATIO_GOAL times direct, by median) is reported, not enforced;
 * a clone or push that fails, or a ref that does not land, ends the bench.
 *
 * It measures the gateway's code and our proxy harness in one Node process,
 * not the platform's interception in front of a real container.
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
import type { Target } from "./report";
import { ratio, summarize, type Side, type Summary } from "./stats";

/** Several files, as a repository holds them, each under git's 512 MiB core.bigFileThreshold. */
const FILE_COUNT = 5;
const FILE_BYTES = 10 * 1024 * 1024;
export const GATEWAY_REPO_BYTES = FILE_COUNT * FILE_BYTES;
/** A B B A, twice: a warm page cache or a busy moment favours neither side. */
const ORDER: Side[] = Array.from({ length: 2 }, (): Side[] => ["ours", "bare", "bare", "ours"]).flat();
/** The gateway's median at most this many times direct's, for clone and for push. */
export const GATEWAY_RATIO_GOAL = 1.2;
const REPO = "acme/widgets";
/** One clone or push of 50 MiB; far more means something hangs. */
const GIT_TIMEOUT_MS = 120_000;

type Environment = Record<string, string | undefined>;

export type GatewayOperationFigures = {
  /** ms, from spawning git to its exit. */
  gateway: Summary;
  direct: Summary;
  /** gateway p50 / direct p50 */
  ratio: number;
};

export type GatewayFigures = {
  repoBytes: number;
  pushBytes: number;
  order: Side[];
  clone: GatewayOperationFigures;
  push: GatewayOperationFigures;
  /** Requests the gateway refused during the bench (expect 0: every clone and push is one the grant allows). */
  refusals: number;
  /** Every timed run in ms, in run order. */
  samples: { operation: "clone" | "push"; side: Side; ms: number }[];
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
  try {
    const server = await GitHttpServer.start({ readToken, writeToken });
    closers.push(() => server.close());
    const api = await GitHubApiStub.start();
    closers.push(() => api.close());
    server.createRepo(REPO, { files: randomFiles("seed") });
    // The grant names the branch the next gateway push goes to: each push makes a new branch.
    let pushBranch = "agent-think/bench-0";
    const proxy = await EgressProxy.start({
      gitOrigin: server.origin,
      apiOrigin: api.origin,
      grant: () => grantFor({ submissionId: "bench", repo: REPO, pushBranch, readToken, writeToken })
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
    const mainOid = server.refs(REPO).find((ref) => ref.ref === "refs/heads/main")?.oid;

    let clones = 0;
    const clone = async (side: Side): Promise<number> => {
      const target = join(dir, `clone-${clones++}`);
      const { ms } = await git(["clone", "-q", remote[side], target], dir, cloneEnv[side]);
      const head = (await git(["rev-parse", "HEAD"], target, base)).output;
      if (head !== mainOid) throw new Error(`gateway bench: a ${side} clone checked out ${head}, not main (${mainOid})`);
      rmSync(target, { recursive: true, force: true });
      return ms;
    };

    // The pushing clone: each push is a new commit of FILE_COUNT fresh files on top of the last.
    const work = join(dir, "work");
    await git(["clone", "-q", remote.bare, work], dir, directWith(readToken));
    mkdirSync(join(work, "data"), { recursive: true });
    let pushes = 0;
    const push = async (side: Side): Promise<number> => {
      const n = ++pushes;
      for (const [path, bytes] of Object.entries(randomFiles(`push-${n}`))) writeFileSync(join(work, path), bytes);
      // Stored uncompressed: preparing is not timed, and the push deflates the objects into its pack either way.
      await git(["-c", "core.looseCompression=0", "add", "-A"], work, base);
      await git(["commit", "-q", "-m", `push ${n}`], work, base);
      const commit = (await git(["rev-parse", "HEAD"], work, base)).output;
      const branch = side === "ours" ? `agent-think/bench-${n}` : `bench/direct-${n}`;
      pushBranch = branch;
      const { ms } = await git(["push", "-q", remote[side], `HEAD:refs/heads/${branch}`], work, pushEnv[side]);
      const landed = server.refs(REPO).find((ref) => ref.ref === `refs/heads/${branch}`)?.oid;
      if (landed !== commit) throw new Error(`gateway bench: the ${side} push to ${branch} did not land (${landed ?? "no ref"})`);
      return ms;
    };

    // Warm-up, discarded: the first clone of each side pays for cold caches and connection setup.
    await clone("ours");
    await clone("bare");

    const samples: GatewayFigures["samples"] = [];
    for (const side of ORDER) samples.push({ operation: "clone", side, ms: await clone(side) });
    for (const side of ORDER) samples.push({ operation: "push", side, ms: await push(side) });

    const figures = (operation: "clone" | "push"): GatewayOperationFigures => {
      const of = (side: Side) => summarize(samples.filter((one) => one.operation === operation && one.side === side).map((one) => one.ms));
      const gateway = of("ours");
      const direct = of("bare");
      return { gateway, direct, ratio: ratio(gateway.p50, direct.p50) };
    };
    return {
      repoBytes: GATEWAY_REPO_BYTES,
      pushBytes: GATEWAY_REPO_BYTES,
      order: ORDER,
      clone: figures("clone"),
      push: figures("push"),
      refusals: proxy.refusals.length,
      samples
    };
  } finally {
    for (const close of closers.reverse()) await close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The report's section. */
export function formatGateway(figures: GatewayFigures): string[] {
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
  const order = figures.order.map((side) => (side === "ours" ? "A" : "B")).join(" ");
  const row = (label: string, one: GatewayOperationFigures) =>
    `  ${label.padEnd(34)}${ms(one.direct.p50).padStart(10)}${ms(one.gateway.p50).padStart(10)}${`${one.ratio.toFixed(2)}x`.padStart(12)}`;
  return [
    `Egress gateway: git clone of ${mib(figures.repoBytes)} and push of a new ${mib(figures.pushBytes)} commit, incompressible content,`,
    `A = through the gateway (HTTP proxy harness, tokens attached by the gateway), B = direct with the token; order ${order}, after one warm-up clone each`,
    `  ${"median (ms)".padEnd(34)}${"direct".padStart(10)}${"gateway".padStart(10)}${"gw/direct".padStart(12)}`,
    row(`clone (n=${figures.clone.gateway.n} per side)`, figures.clone),
    row(`push (n=${figures.push.gateway.n} per side)`, figures.push),
    `  goal: at most ${GATEWAY_RATIO_GOAL}x (reported, not enforced); refusals during the bench: ${figures.refusals}`
  ];
}

/** The report's target lines: the goal is reported, never fatal. */
export function gatewayTargets(figures: GatewayFigures): Target[] {
  return (["clone", "push"] as const).map((operation) => ({
    name: `gateway git ${operation} median within ${GATEWAY_RATIO_GOAL}x of direct`,
    pass: figures[operation].ratio <= GATEWAY_RATIO_GOAL,
    figure: `${figures[operation].ratio.toFixed(2)}x (${ms(figures[operation].gateway.p50)} ms vs ${ms(figures[operation].direct.p50)} ms)`,
    fatal: false
  }));
}

function ms(value: number): string {
  return Number.isFinite(value) ? value.toFixed(0) : "-";
}
