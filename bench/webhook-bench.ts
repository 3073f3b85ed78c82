/**
 * The webhook app under `npm run bench`: 1,000 signed `issue_comment`
 * deliveries, 10% of them redeliveries of an earlier comment (some while the
 * first is still in flight), sent 10 at a time to the ingress Worker under
 * `wrangler dev --local`, and timed from this process. Beside them, in the
 * same run, the bare signature check: @octokit/webhooks `verify` alone over
 * the same 1,000 bodies, in this process.
 *
 * The Worker is the ingress test worker (ingress/test/worker.ts): the real
 * webhook app with the agent Worker's dispatch recorded instead of run, so
 * the figures are the webhook's own. GitHub is the recording stand-in
 * (scripts/lib/github-standin.ts) started here. Correctness is checked, not
 * only timed: one dispatch per distinct comment, 202 for each first
 * delivery, `ignored:duplicate` for each redelivery.
 */
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Webhooks } from "@octokit/webhooks";
import { issueCommentPayload, signedDelivery, type Delivery } from "../scripts/lib/github-delivery";
import { startGitHubStandin } from "../scripts/lib/github-standin";
import { RECORDED_PATH } from "../ingress/test/support/recording";
import { DevServer } from "./dev-server";
import type { Target } from "./report";
import { summarize, type Summary } from "./stats";

const DISTINCT_COMMENTS = 900;
const DUPLICATES = 100;
const CONCURRENCY = 10;
const WARMUP_DELIVERIES = 20;
/** Also sent one at a time, after the main run: latency without queueing behind the other nine. */
const SEQUENTIAL_DELIVERIES = 100;
/** A redelivery lands this many places after its original at most, so some overlap it. */
const MAX_DUPLICATE_LAG = 30;
const REPO = "acme/widgets";
/** Comment ids of the measured deliveries start here; warm-up ones below, the one-at-a-time ones far above. */
const FIRST_COMMENT_ID = 1_000_000;
const SEQUENTIAL_FIRST_COMMENT_ID = 2_000_000;
const CONFIG = "ingress/test/wrangler.jsonc";
const READY_TIMEOUT_MS = 90_000;
const REQUEST_TIMEOUT_MS = 15_000;
const SETTLE_TIMEOUT_MS = 20_000;
const KILL_GRACE_MS = 5_000;
/** GitHub waits this long for a webhook's answer; a later one is a failed delivery it does not redeliver. */
const GITHUB_DEADLINE_MS = 10_000;
/** The target is far under GitHub's deadline. */
const P99_TARGET_MS = 1_000;

export type WebhookFigures = {
  setup: { deliveries: number; distinctComments: number; duplicates: number; concurrency: number; warmup: number };
  /** Every measured delivery, as this process saw it (HTTP round trip to wrangler dev). */
  latency: Summary;
  /** First deliveries (claim and marker; token, 👀 and dispatch after the answer) and redeliveries (claim refused) apart. */
  firstDeliveries: Summary;
  redeliveries: Summary;
  /** First deliveries sent one at a time. */
  sequential: Summary;
  /** @octokit/webhooks verify alone over the same bodies, in this process. */
  bareVerify: Summary;
  outcomes: Record<string, number>;
  /** What the recording agent entrypoint received for the measured comments. */
  dispatches: { total: number; distinctComments: number };
  github: { tokens: number; eyes: number };
  elapsedMs: number;
};

type Planned = { commentId: number; first: boolean; delivery: Delivery };
type Timed = Planned & { ms: number; status: number; outcome: string };

export async function measureWebhooks(root = fileURLToPath(new URL("..", import.meta.url))): Promise<WebhookFigures> {
  const secret = randomBytes(32).toString("hex");
  const standin = await startGitHubStandin();
  const server = new DevServer({ config: CONFIG, cwd: root, killGraceMs: KILL_GRACE_MS });
  const registry = mkdtempSync(join(tmpdir(), "agent-think-webhook-registry-"));
  const killOnExit = () => server.killNow();
  process.once("exit", killOnExit);
  try {
    await startIngress(server, secret, standin.url, registry);
    await server.ready(RECORDED_PATH, READY_TIMEOUT_MS);
    await sendAll(server.baseUrl, await plan(secret, 1, WARMUP_DELIVERIES, 0), CONCURRENCY);

    const planned = await plan(secret, FIRST_COMMENT_ID, DISTINCT_COMMENTS, DUPLICATES);
    const started = performance.now();
    const timed = await sendAll(server.baseUrl, planned, CONCURRENCY);
    const elapsedMs = performance.now() - started;
    const dispatched = await settledDispatches(server.baseUrl, DISTINCT_COMMENTS);
    const records = standin.records().filter((record) => Number(/\/comments\/(\d+)\//.exec(record.path)?.[1] ?? 0) >= FIRST_COMMENT_ID);
    const tokens = standin.records().filter((record) => record.path.endsWith("/access_tokens")).length - WARMUP_DELIVERIES;
    const sequential = await sendAll(server.baseUrl, await plan(secret, SEQUENTIAL_FIRST_COMMENT_ID, SEQUENTIAL_DELIVERIES, 0), 1);
    const bareVerify = await timeBareVerify(secret, planned);
    return {
      setup: { deliveries: planned.length, distinctComments: DISTINCT_COMMENTS, duplicates: DUPLICATES, concurrency: CONCURRENCY, warmup: WARMUP_DELIVERIES },
      latency: summarize(timed.map((one) => one.ms)),
      firstDeliveries: summarize(timed.filter((one) => one.first).map((one) => one.ms)),
      redeliveries: summarize(timed.filter((one) => !one.first).map((one) => one.ms)),
      sequential: summarize(sequential.map((one) => one.ms)),
      bareVerify,
      outcomes: countBy(timed.map((one) => `${one.status} ${one.outcome}`)),
      dispatches: { total: dispatched.length, distinctComments: new Set(dispatched).size },
      github: {
        // Tokens cannot be told apart by comment: those minted after the warm-up and before the one-at-a-time pass.
        tokens,
        eyes: records.filter((record) => (record.body as { content?: string } | undefined)?.content === "eyes").length
      },
      elapsedMs
    };
  } catch (error) {
    throw new Error(`${error instanceof Error ? error.message : String(error)}\nwrangler output (full log at ${server.logPath}):\n${server.logTail()}`);
  } finally {
    await server.stop();
    process.off("exit", killOnExit);
    server.removeFiles();
    rmSync(registry, { recursive: true, force: true });
    await standin.close();
  }
}

/**
 * The bench's wrangler reads the config's `secrets.required` and its vars
 * from the environment (never a command line), so they are set only while
 * it spawns. It also gets a dev registry of its own: registering in, and
 * leaving, the machine-wide one makes other wrangler dev sessions (the
 * agent bench that follows, a developer's `npm start`) reload mid-run.
 */
async function startIngress(server: DevServer, secret: string, githubApiUrl: string, registry: string): Promise<void> {
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" }
  });
  const values = { GITHUB_WEBHOOK_SECRET: secret, GITHUB_APP_PRIVATE_KEY: privateKey, GITHUB_API_URL: githubApiUrl, WRANGLER_REGISTRY_PATH: registry };
  const saved = Object.fromEntries(Object.keys(values).map((name) => [name, process.env[name]]));
  Object.assign(process.env, values);
  try {
    await server.start();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

/** `distinct` first deliveries in order, each of `duplicates` redeliveries a few places after its original. */
async function plan(secret: string, firstId: number, distinct: number, duplicates: number): Promise<Planned[]> {
  const random = seeded(42);
  const firsts: Planned[] = [];
  for (let i = 0; i < distinct; i++) {
    const commentId = firstId + i;
    const payload = issueCommentPayload({ repo: REPO, issueNumber: 1 + (i % 50), commentId, body: `@agent-think reproduce this issue (${i})` });
    firsts.push({ commentId, first: true, delivery: await signedDelivery(secret, payload) });
  }
  const order: Planned[] = [...firsts];
  for (let k = 0; k < duplicates; k++) {
    const original = firsts[Math.floor((k * distinct) / duplicates)]!;
    const at = order.indexOf(original) + 1 + Math.floor(random() * MAX_DUPLICATE_LAG);
    // A redelivery is the same delivery again: same body, signature and delivery id.
    order.splice(Math.min(at, order.length), 0, { ...original, first: false });
  }
  return order;
}

async function sendAll(baseUrl: string, planned: Planned[], concurrency: number): Promise<Timed[]> {
  const timed: Timed[] = new Array(planned.length);
  let next = 0;
  const worker = async () => {
    while (next < planned.length) {
      const index = next++;
      const one = planned[index]!;
      const started = performance.now();
      const response = await fetch(`${baseUrl}/webhooks/github`, {
        method: "POST",
        headers: one.delivery.headers,
        body: one.delivery.body,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS)
      });
      await response.arrayBuffer();
      timed[index] = { ...one, ms: performance.now() - started, status: response.status, outcome: response.headers.get("agent-think-outcome") ?? "" };
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return timed;
}

/** The measured comment ids the recording agent received, once `expected` arrived or time ran out (dispatch runs after the 202). */
async function settledDispatches(baseUrl: string, expected: number): Promise<number[]> {
  const deadline = Date.now() + SETTLE_TIMEOUT_MS;
  for (;;) {
    const response = await fetch(`${baseUrl}${RECORDED_PATH}`);
    const { commentIds } = (await response.json()) as { commentIds: number[] };
    const measured = commentIds.filter((id) => id >= FIRST_COMMENT_ID && id < SEQUENTIAL_FIRST_COMMENT_ID);
    if (measured.length >= expected || Date.now() > deadline) return measured;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function timeBareVerify(secret: string, planned: Planned[]): Promise<Summary> {
  const webhooks = new Webhooks({ secret });
  const verifyOne = async (one: Planned) => {
    const started = performance.now();
    const ok = await webhooks.verify(one.delivery.body, one.delivery.headers["x-hub-signature-256"]!);
    if (!ok) throw new Error("the bare verification refused a delivery the bench signed");
    return performance.now() - started;
  };
  for (const one of planned.slice(0, 50)) await verifyOne(one);
  const samples: number[] = [];
  for (const one of planned) samples.push(await verifyOne(one));
  return summarize(samples);
}

export function webhookTargets(figures: WebhookFigures): Target[] {
  const { distinctComments, duplicates } = figures.setup;
  const accepted = figures.outcomes["202 accepted"] ?? 0;
  const duplicate = figures.outcomes["204 ignored:duplicate"] ?? 0;
  return [
    {
      name: `webhook: dispatches equal the ${distinctComments} distinct comments, none twice`,
      pass: figures.dispatches.total === distinctComments && figures.dispatches.distinctComments === distinctComments,
      figure: `${figures.dispatches.total} (${figures.dispatches.distinctComments} distinct)`,
      fatal: true
    },
    {
      name: `webhook: 202 per first delivery, ignored:duplicate per redelivery`,
      pass: accepted === distinctComments && duplicate === duplicates,
      figure: `${accepted} / ${duplicate}`,
      fatal: true
    },
    {
      name: `webhook: p99 under ${P99_TARGET_MS} ms (GitHub waits ${GITHUB_DEADLINE_MS / 1000} s)`,
      pass: figures.latency.p99 < P99_TARGET_MS,
      figure: `${ms(figures.latency.p99)} ms`,
      fatal: false
    }
  ];
}

export function formatWebhooks(figures: WebhookFigures): string[] {
  const { setup } = figures;
  // Beside each time to answer, GitHub's deadline for it (none for the bare check: it answers nobody).
  const row = (label: string, summary: Summary, deadline = true) =>
    `  ${label.padEnd(40)}${ms(summary.p50).padStart(10)}${ms(summary.p99).padStart(10)}${ms(summary.mean).padStart(10)}${ms(summary.max).padStart(10)}${(deadline ? String(GITHUB_DEADLINE_MS) : "").padStart(14)}`;
  return [
    `Webhook handling: ${setup.deliveries} signed issue_comment deliveries (${setup.distinctComments} comments + ${setup.duplicates} redeliveries), ${setup.concurrency} in flight,`,
    `ingress Worker under wrangler dev --local, GitHub = local stand-in, dispatch recorded; ${setup.warmup} warm-up deliveries discarded`,
    `  ${"".padEnd(40)}${"p50 ms".padStart(10)}${"p99 ms".padStart(10)}${"mean ms".padStart(10)}${"max ms".padStart(10)}${"deadline ms".padStart(14)}`,
    row("all deliveries (HTTP round trip)", figures.latency),
    row("  first deliveries (claim, marker)", figures.firstDeliveries),
    row("  redeliveries (claim refused)", figures.redeliveries),
    row(`first deliveries one at a time (${figures.sequential.n})`, figures.sequential),
    row("bare @octokit/webhooks verify (Node)", figures.bareVerify, false),
    `  deadline: GitHub waits ${GITHUB_DEADLINE_MS.toLocaleString("en-US")} ms for an answer; token, 👀 and dispatch run after it (waitUntil)`,
    `  throughput ${((setup.deliveries * 1000) / figures.elapsedMs).toFixed(1)} deliveries/s; outcomes ${Object.entries(figures.outcomes)
      .map(([key, count]) => `${key}: ${count}`)
      .join(", ")}`,
    `  dispatches ${figures.dispatches.total} for ${setup.distinctComments} distinct comments; GitHub saw ${figures.github.tokens} token mints and ${figures.github.eyes} 👀`
  ];
}

function countBy(values: string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const value of values) counts[value] = (counts[value] ?? 0) + 1;
  return counts;
}

/** A small deterministic PRNG (mulberry32), so every run sends the same order. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Signature checks take microseconds: small figures keep three decimals. */
function ms(value: number): string {
  if (!Number.isFinite(value)) return "-";
  return value.toFixed(value < 1 ? 3 : 1);
}

// `tsx bench/webhook-bench.ts` runs this part alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const figures = await measureWebhooks();
  const targets = webhookTargets(figures);
  console.log([...formatWebhooks(figures), "", ...targets.map((t) => `  ${t.pass ? "PASS" : "FAIL"}  ${t.name.padEnd(68)}${t.figure}`)].join("\n"));
  process.exitCode = targets.some((target) => !target.pass && target.fatal) ? 1 : 0;
}
