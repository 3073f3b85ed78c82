/**
 * The first sign of life under `npm run bench`: signed `issue_comment`
 * mentions, each on an issue of its own, sent to the real webhook app, which
 * dispatches to the real agent Worker on the scripted model (both under
 * `wrangler dev --local`, sharing a private dev registry); GitHub is the
 * recording stand-in. Each mention is timed from the moment it is sent to
 * the 👀, the 🚀 and the progress comment (docs/reporting.md) as the stand-in
 * records them, beside its own HTTP round trip, one at a time, the next once
 * the run has closed: one maintainer on a quiet deployment. BENCH_MENTIONS=N.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { issueCommentPayload, signedDelivery } from "../scripts/lib/github-delivery";
import { startGitHubStandin, type StandinRecord } from "../scripts/lib/github-standin";
import { DEV_APP_ID, INGRESS_CONFIG, WEBHOOK_PATH } from "../scripts/lib/ingress-dev";
import { DevServer } from "./dev-server";
import type { Target } from "./report";
import { ratio, summarize, type Summary } from "./stats";

/** The 99th percentile is then the second slowest, not the slowest; a mention took 0.5 to 1.5 s here, so one to three minutes. */
export const DEFAULT_MENTIONS = 100;
const WARMUP_MENTIONS = 5;
const REPO = "acme/widgets";
const FIRST_ISSUE = 1_000;
const FIRST_COMMENT_ID = 5_000_000;
/** A run that reports at once, so each mention's run closes quickly and the next one starts on a quiet chain. */
const INSTRUCTION = ["@agent-think reproduce this issue", "TEST: result not-reproduced The bench measured the first sign of life.", "TEST: reply done"].join("\n");
const READY_TIMEOUT_MS = 90_000;
/** Only a hang reaches these: a run on the scripted model closes in about a second. */
const RUN_TIMEOUT_MS = 60_000;
const REQUEST_TIMEOUT_MS = 15_000;
/** How long the progress comment's last edit (its pointer) is awaited after the closing comment: pacing only. */
const POINTER_WAIT_MS = 5_000;
const KILL_GRACE_MS = 5_000;
/** Reported, not enforced: the maintainer sees the run start within two seconds. */
const ROCKET_P99_TARGET_MS = 2_000;

export type FirstSignFigures = {
  setup: { mentions: number; warmup: number; instruction: string };
  /** Each mention's delivery as this process saw it: the webhook app's HTTP round trip (the baseline). */
  webhook: Summary;
  /** From the moment a delivery is sent to the stand-in recording each sign. */
  eyes: Summary;
  rocket: Summary;
  progress: Summary;
  /** How many of each the stand-in recorded for the measured mentions (one per mention each). */
  counts: { accepted: number; eyes: number; rocket: number; progress: number; closing: number; pointers: number };
  /** What the stand-in refused (GitHub would have, or it does not model), by operation, status and reason. */
  refusals: Record<string, number>;
  /** Every measured mention, in ms, in the order sent. */
  samples: { webhook: number[]; eyes: number[]; rocket: number[]; progress: number[] };
  elapsedMs: number;
};

type Sign = "eyes" | "rocket" | "progress" | "closing" | "pointer";

/**
 * The stand-in's records as they arrive, by mention: when each sign was
 * first recorded (this process's clock) and how often, and a wait for one.
 */
class Signs {
  readonly #first = new Map<string, number>();
  readonly #count = new Map<string, number>();
  readonly #waiting = new Map<string, (at: number) => void>();
  /** A run's submission id (from its progress comment's marker) to its issue, for the pointer edit. */
  readonly #issueOf = new Map<string, number>();

  record(record: StandinRecord, at: number): void {
    const body = (record.body ?? {}) as { content?: unknown; body?: unknown };
    const prefix = `/repos/${REPO}/issues/`;
    if (record.method !== "POST" && record.method !== "PATCH") return;
    if (!record.path.startsWith(prefix) || record.refused) return;
    const rest = record.path.slice(prefix.length);
    const reaction = /^comments\/(\d+)\/reactions$/.exec(rest);
    if (record.method === "POST" && reaction && (body.content === "eyes" || body.content === "rocket")) return this.#mark(body.content, Number(reaction[1]), at);
    const text = typeof body.body === "string" ? body.body : "";
    const marker = /<!-- agent-think:([^ ]+):(progress|closing) -->/.exec(text);
    if (!marker) return;
    const comment = /^(\d+)\/comments$/.exec(rest);
    if (record.method === "POST" && comment) {
      const issue = Number(comment[1]);
      if (marker[2] === "progress") this.#issueOf.set(marker[1]!, issue);
      return this.#mark(marker[2] as Sign, issue, at);
    }
    // An edit of the progress comment after the closing comment is its last: the pointer.
    const issue = this.#issueOf.get(marker[1]!);
    if (record.method === "PATCH" && marker[2] === "progress" && issue !== undefined && this.#first.has(`closing:${issue}`)) this.#mark("pointer", issue, at);
  }

  /** When `sign` was first recorded for the comment (eyes, rocket) or issue (the rest); waits up to `timeoutMs`, else null. */
  async when(sign: Sign, id: number, timeoutMs: number): Promise<number | null> {
    const key = `${sign}:${id}`;
    const seen = this.#first.get(key);
    if (seen !== undefined) return seen;
    let timer: NodeJS.Timeout | undefined;
    const at = await new Promise<number | null>((resolve) => {
      this.#waiting.set(key, resolve);
      timer = setTimeout(() => resolve(null), timeoutMs);
    });
    clearTimeout(timer);
    this.#waiting.delete(key);
    return at;
  }

  count(sign: Sign, ids: readonly number[]): number {
    return ids.reduce((sum, id) => sum + (this.#count.get(`${sign}:${id}`) ?? 0), 0);
  }

  #mark(sign: Sign, id: number, at: number): void {
    const key = `${sign}:${id}`;
    this.#count.set(key, (this.#count.get(key) ?? 0) + 1);
    if (this.#first.has(key)) return;
    this.#first.set(key, at);
    this.#waiting.get(key)?.(at);
  }
}

export function mentionsFromEnv(value = process.env.BENCH_MENTIONS): number {
  if (value === undefined || value.trim() === "") return DEFAULT_MENTIONS;
  const mentions = Number(value);
  if (!Number.isSafeInteger(mentions) || mentions < 1) throw new Error(`BENCH_MENTIONS=${value}: a whole number of mentions, at least 1`);
  return mentions;
}

export async function measureFirstSign(root = fileURLToPath(new URL("..", import.meta.url)), mentions = mentionsFromEnv()): Promise<FirstSignFigures> {
  const signs = new Signs();
  const standin = await startGitHubStandin({ webhook: null, onRecord: (record) => signs.record(record, performance.now()) });
  const registryPath = mkdtempSync(join(tmpdir(), "agent-think-first-sign-registry-"));
  const secret = randomBytes(32).toString("hex");
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048, privateKeyEncoding: { type: "pkcs1", format: "pem" }, publicKeyEncoding: { type: "spki", format: "pem" } });
  // The agent Worker as `npm start` runs it (scripts/lib/wrangler-dev.ts): local dev, the scripted model, no container, GitHub the stand-in.
  const agent = new DevServer({
    config: "wrangler.jsonc",
    cwd: root,
    killGraceMs: KILL_GRACE_MS,
    registryPath,
    bundleArgs: ["--containers-rollout=none"],
    devArgs: ["LOCAL_DEV:1", "CI_FIX_REPOS:*", `GITHUB_API_URL:${standin.url}`, "CONTAINERS_ENABLED:"].flatMap((pair) => ["--var", pair])
  });
  // The production webhook app, its secrets from the environment (never a command line), as `npm run dev:ingress` runs it.
  const ingress = new DevServer({
    config: INGRESS_CONFIG,
    cwd: root,
    killGraceMs: KILL_GRACE_MS,
    registryPath,
    devArgs: [`GITHUB_API_URL:${standin.url}`, `ALLOWED_REPOS:${REPO}`].flatMap((pair) => ["--var", pair]),
    env: { GITHUB_WEBHOOK_SECRET: secret, GITHUB_APP_ID: DEV_APP_ID, GITHUB_APP_PRIVATE_KEY: privateKey }
  });
  const killOnExit = () => {
    agent.killNow();
    ingress.killNow();
  };
  process.once("exit", killOnExit);
  try {
    // Both settled before going on, so a failed start never leaves the other one starting after the stop below.
    const failed = (await Promise.allSettled([agent.start(), ingress.start()])).find((result) => result.status === "rejected");
    if (failed) throw failed.reason;
    await agent.ready("/api/command-center", READY_TIMEOUT_MS);
    // The webhook app answers 404 to anything but a delivery: any answer means it is serving.
    await ingress.ready("/", READY_TIMEOUT_MS, () => true);
    const mention = (i: number) => measureOne(ingress.baseUrl, secret, signs, FIRST_ISSUE + i, FIRST_COMMENT_ID + i);
    for (let i = 0; i < WARMUP_MENTIONS; i++) await mention(i);
    const started = performance.now();
    const measured: Measured[] = [];
    for (let i = WARMUP_MENTIONS; i < WARMUP_MENTIONS + mentions; i++) measured.push(await mention(i));
    const elapsedMs = performance.now() - started;
    const reloads = agent.reloads() + ingress.reloads();
    if (reloads > 0) throw new Error(`wrangler dev reloaded a Worker ${reloads} time(s) mid-run; the figures are void`);
    const issues = measured.map((one) => one.issue);
    const comments = measured.map((one) => one.commentId);
    const samples = {
      webhook: measured.map((one) => one.webhook),
      eyes: measured.map((one) => one.eyes),
      rocket: measured.map((one) => one.rocket),
      progress: measured.map((one) => one.progress)
    };
    return {
      setup: { mentions, warmup: WARMUP_MENTIONS, instruction: INSTRUCTION },
      webhook: summarize(samples.webhook),
      eyes: summarize(samples.eyes),
      rocket: summarize(samples.rocket),
      progress: summarize(samples.progress),
      counts: {
        accepted: measured.length,
        eyes: signs.count("eyes", comments),
        rocket: signs.count("rocket", comments),
        progress: signs.count("progress", issues),
        closing: signs.count("closing", issues),
        pointers: measured.filter((one) => one.pointer).length
      },
      refusals: countBy(standin.refusals().map((record) => `${record.operation ?? `${record.method} ${record.path}`} ${record.refused!.status}: ${record.refused!.message.replace(/\s+/g, " ").slice(0, 100)}`)),
      samples,
      elapsedMs
    };
  } catch (error) {
    const logs = `--- agent (${agent.logPath}) ---\n${agent.logTail()}\n--- webhook app (${ingress.logPath}) ---\n${ingress.logTail()}`;
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${logs}`);
  } finally {
    await Promise.all([agent.stop(), ingress.stop()]);
    process.off("exit", killOnExit);
    agent.removeFiles();
    ingress.removeFiles();
    rmSync(registryPath, { recursive: true, force: true });
    await standin.close();
  }
}

type Measured = { issue: number; commentId: number; webhook: number; eyes: number; rocket: number; progress: number; pointer: boolean };

/** One mention, signed before the clock starts; resolves once its run has closed (and, briefly awaited, pointed its progress comment there). */
async function measureOne(baseUrl: string, secret: string, signs: Signs, issue: number, commentId: number): Promise<Measured> {
  const delivery = await signedDelivery(secret, issueCommentPayload({ repo: REPO, issueNumber: issue, commentId, body: INSTRUCTION }));
  const sent = performance.now();
  const response = await fetch(`${baseUrl}${WEBHOOK_PATH}`, { method: "POST", headers: delivery.headers, body: delivery.body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  const text = await response.text();
  const webhook = performance.now() - sent;
  if (response.status !== 202) throw new Error(`mention on #${issue}: the webhook app answered ${response.status} ${response.headers.get("agent-think-outcome") ?? ""} ${text.slice(0, 200)}`);
  const after = async (sign: Sign, id: number) => {
    const at = await signs.when(sign, id, RUN_TIMEOUT_MS);
    if (at === null) throw new Error(`mention on #${issue}: no ${sign} within ${RUN_TIMEOUT_MS / 1000} s`);
    return at - sent;
  };
  const [eyes, rocket, progress] = [await after("eyes", commentId), await after("rocket", commentId), await after("progress", issue)];
  await after("closing", issue);
  const pointer = (await signs.when("pointer", issue, POINTER_WAIT_MS)) !== null;
  return { issue, commentId, webhook, eyes, rocket, progress, pointer };
}

export function firstSignTargets(figures: FirstSignFigures): Target[] {
  const { mentions } = figures.setup;
  const { counts } = figures;
  const refused = Object.values(figures.refusals).reduce((sum, count) => sum + count, 0);
  return [
    {
      name: `first sign: one 👀, 🚀 and progress comment per mention (${mentions})`,
      pass: counts.eyes === mentions && counts.rocket === mentions && counts.progress === mentions && counts.closing === mentions,
      figure: `${counts.eyes} / ${counts.rocket} / ${counts.progress} (closing ${counts.closing})`,
      fatal: true
    },
    { name: "first sign: the stand-in refused no request", pass: refused === 0, figure: String(refused), fatal: false },
    {
      name: `first sign: mention → 🚀 p99 under ${ROCKET_P99_TARGET_MS} ms`,
      pass: figures.rocket.p99 < ROCKET_P99_TARGET_MS,
      figure: `${ms(figures.rocket.p99)} ms (${ratio(figures.rocket.p99, figures.webhook.p99).toFixed(1)}x the webhook's p99)`,
      fatal: false
    }
  ];
}

export function formatFirstSign(figures: FirstSignFigures): string[] {
  const { setup, webhook } = figures;
  const row = (label: string, summary: Summary, baseline = true) =>
    `  ${label.padEnd(40)}${ms(summary.p50).padStart(10)}${ms(summary.p99).padStart(10)}${ms(summary.mean).padStart(10)}${ms(summary.max).padStart(10)}` +
    (baseline ? `${`${ratio(summary.p50, webhook.p50).toFixed(1)}x`.padStart(10)}${`${ratio(summary.p99, webhook.p99).toFixed(1)}x`.padStart(10)}` : "");
  return [
    `First sign of life: ${setup.mentions} signed issue_comment mentions, each on its own issue, one at a time (the next once the run closed),`,
    "webhook app → agent Worker (both wrangler dev --local, scripted model) → GitHub = local stand-in;",
    `timed from sending the delivery to the stand-in recording each sign; ${setup.warmup} warm-up mentions discarded`,
    `  ${"".padEnd(40)}${"p50 ms".padStart(10)}${"p99 ms".padStart(10)}${"mean ms".padStart(10)}${"max ms".padStart(10)}${"p50/wh".padStart(10)}${"p99/wh".padStart(10)}`,
    row("webhook round trip (wh, the baseline)", webhook, false),
    row("mention → 👀 (webhook app, after 202)", figures.eyes),
    row("mention → 🚀 (the run's turn started)", figures.rocket),
    row("mention → progress comment", figures.progress),
    `  the stand-in saw ${figures.counts.eyes} 👀, ${figures.counts.rocket} 🚀, ${figures.counts.progress} progress and ${figures.counts.closing} closing comments` +
      ` (${figures.counts.pointers} pointer edits within ${POINTER_WAIT_MS / 1000} s); ${((figures.elapsedMs / 1000) / setup.mentions).toFixed(2)} s a mention`,
    ...Object.entries(figures.refusals).map(([what, count]) => `  refused ${count}x: ${what}`)
  ];
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

function ms(value: number): string {
  return Number.isFinite(value) ? value.toFixed(1) : "-";
}

// `tsx bench/first-sign-bench.ts` runs this part alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const figures = await measureFirstSign();
  const targets = firstSignTargets(figures);
  console.log([...formatFirstSign(figures), "", ...targets.map((t) => `  ${t.pass ? "PASS" : "FAIL"}  ${t.name.padEnd(68)}${t.figure}`)].join("\n"));
  process.exitCode = targets.some((target) => !target.pass && target.fatal) ? 1 : 0;
}
