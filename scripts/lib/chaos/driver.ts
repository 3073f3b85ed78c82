/**
 * One chaos run end to end, the I/O half of the suite: a fresh state
 * directory, the GitHub stand-in in this process (its records survive the
 * kills), the killable runtime (runtime.ts), the plan's runs dispatched,
 * the plan's kills, a last restart, a bounded wait for everything to
 * settle, a read-back run per issue that prints the counter file, and the
 * collected data handed to checks.ts. Used by `scripts/chaos.ts` and
 * tests-e2e/chaos.test.ts; prints only through `log`.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startGitHubStandin, type GitHubStandin } from "../github-standin";
import { dispatchResultSchema, isTerminalStatus, messagesPath, messagesResponseSchema, type MessagesResponse } from "../dev-api";
import { checkRun, countClosingComments, countProgressComments, findTokens, type Failure, type RunObservation } from "./checks";
import { readCounterInstruction, type ChaosPlan, type RunPlan } from "./plan";
import { KillableRuntime, sleep as pause } from "./runtime";
import { formatStage, logEvents, runStage } from "./timeline";
import { counterLines, interruptedSteps, stepResults } from "./transcript";

const REQUEST_TIMEOUT_MS = 15_000;
const POLL_MS = 500;
const READ_BACK_TIMEOUT_MS = 60_000;
const DISPATCH_ATTEMPTS = 3;
const DISPATCH_RETRY_MS = 1_000;
/** What wrangler prints when it rebuilds because a watched source file changed. */
const RELOAD_LINE = "Reloading local server";

export type ChaosOptions = {
  /** The repository root. */
  root: string;
  plan: ChaosPlan;
  /** After the last restart, how long every submission may take to reach a terminal status. */
  settleTimeoutMs: number;
  /** Once all are terminal, how long the comments and the command center may take to agree. */
  agreeTimeoutMs: number;
  /** Keep the state directory and logs even when every check passes. */
  keep: boolean;
  log(line: string): void;
  /**
   * Given, once they exist, a way to stop the runtime's process group and
   * the stand-in from outside (a test's afterAll, when the test timed out
   * while this still runs). Stopping twice is harmless.
   */
  onResources?(stop: () => Promise<void>): void;
};

export type ChaosTimings = { firstStartMs: number; chaosMs: number; settleMs: number; readBackMs: number; totalMs: number };

export type ChaosReport = {
  failures: Failure[];
  /**
   * How often wrangler reloaded by itself because files under it changed
   * (it watches the source tree): then the runs met more than one version
   * of the code, and more restarts than planned.
   */
  reloads: number;
  observations: RunObservation[];
  timings: ChaosTimings;
  /** The state directory and wrangler.log, when kept (a failure, or `keep`). */
  keptAt?: string;
};

type Dispatched = { plan: RunPlan; session: string; submissionId: string };

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const { plan, log } = options;
  const began = Date.now();
  const directory = await mkdtemp(join(tmpdir(), "agent-think-chaos-"));
  let standin: GitHubStandin | undefined;
  let runtime: KillableRuntime | undefined;
  let failed = true;
  try {
    standin = await startGitHubStandin();
    runtime = new KillableRuntime({ root: options.root, persistTo: join(directory, "state"), githubApiUrl: standin.url, logFile: join(directory, "wrangler.log") });
    const [ownRuntime, ownStandin] = [runtime, standin];
    options.onResources?.(async () => {
      await ownRuntime.stop();
      await closeOnce(ownStandin);
    });
    const firstStartMs = await runtime.start();
    log(`runtime up at ${runtime.url} in ${firstStartMs} ms (state: ${directory})`);

    const chaosStart = Date.now();
    const dispatched = new Map<string, Dispatched>();
    for (let start = 0; start <= plan.kills.length; start++) {
      const readyAt = Date.now();
      const due = plan.runs.filter((run) => run.dispatch.start === start);
      await Promise.all(
        due.map(async (run) => {
          await sleep(readyAt + run.dispatch.afterReadyMs - Date.now());
          const result = await dispatch(runtime!.url, run);
          dispatched.set(run.runId, result);
          log(`dispatched ${run.runId} ${Date.now() - readyAt} ms after start ${start + 1}: ${run.steps.length} steps, ${run.scriptedMs} ms of sleeps, ${result.session} ${result.submissionId}`);
        })
      );
      const kill = plan.kills[start];
      if (kill === undefined) break;
      // A dispatch slowed past its kill's moment delays the kill rather than being cut by it.
      await sleep(readyAt + kill.afterReadyMs - Date.now());
      const events = logEvents(runtime.output());
      await runtime.kill();
      const restartMs = await runtime.start();
      log(`kill ${start + 1}/${plan.kills.length}: SIGKILL ${Date.now() - restartMs - readyAt} ms after start ${start + 1} answered (planned ${kill.afterReadyMs}); restarted in ${restartMs} ms`);
      for (const run of dispatched.values()) {
        log(`  ${run.plan.runId} was ${formatStage(runStage(events, { session: run.session, submissionId: run.submissionId, steps: run.plan.steps.length }))}`);
      }
    }
    const runs = plan.runs.map((run) => dispatched.get(run.runId)!);
    const chaosMs = Date.now() - chaosStart;

    const settleStart = Date.now();
    const settled = await settle(runtime.url, runs, standin, options);
    const settleMs = Date.now() - settleStart;
    log(`settled in ${settleMs} ms: ${settled.map((entry) => `${entry.run.plan.runId} ${entry.status ?? "unknown"}`).join(", ")}`);

    const readBackStart = Date.now();
    const transcripts = await Promise.all(runs.map((run) => readBack(runtime!.url, run)));
    const readBackMs = Date.now() - readBackStart;

    const observations: RunObservation[] = settled.map((entry, index) => ({
      runId: entry.run.plan.runId,
      session: entry.run.session,
      submissionId: entry.run.submissionId,
      status: entry.status,
      thread: entry.thread,
      closingComments: entry.closingComments,
      progressComments: entry.progressComments,
      lines: entry.run.plan.steps.map((step) => step.line),
      stepResults: stepResults(transcripts[index]!.messages, entry.run.plan.steps),
      interrupted: interruptedSteps(transcripts[index]!.messages, entry.run.plan.steps),
      counter: counterLines(transcripts[index]!.messages)
    }));
    const center = await getText(`${runtime.url}/api/command-center?limit=200`);
    const failures = [
      ...observations.flatMap(checkRun),
      ...findTokens(
        {
          ...Object.fromEntries(runs.map((run, index) => [`the transcript of ${run.plan.runId} (${run.session})`, JSON.stringify(transcripts[index])])),
          "the stand-in's records (comments, reactions)": JSON.stringify(standin.records()),
          "GET /api/command-center": `${settled[0]?.centerText ?? ""}\n${center}`,
          "the runtime's stdout and stderr": runtime.output()
        },
        plan.runs.map((run) => ({ runId: run.runId, token: run.token }))
      )
    ];
    failed = failures.length > 0;
    if (failed || options.keep) {
      // What the checks read, beside the state and wrangler.log, for the post-mortem.
      const artifacts: Record<string, unknown> = {
        "observations.json": observations.map((run) => ({ ...run, stepResults: Object.fromEntries(run.stepResults) })),
        "transcripts.json": Object.fromEntries(runs.map((run, index) => [run.plan.runId, transcripts[index]])),
        "standin-records.json": standin.records(),
        "command-center.json": JSON.parse(center) as unknown
      };
      for (const [name, value] of Object.entries(artifacts)) await writeFile(join(directory, name), JSON.stringify(value, null, 2));
    }
    const reloads = runtime.output().split(RELOAD_LINE).length - 1;
    return {
      failures,
      reloads,
      observations,
      timings: { firstStartMs, chaosMs, settleMs, readBackMs, totalMs: Date.now() - began },
      ...(failed || options.keep ? { keptAt: directory } : {})
    };
  } finally {
    await runtime?.stop();
    if (standin) await closeOnce(standin);
    if (!failed && !options.keep) await rm(directory, { recursive: true, force: true });
  }
}

/**
 * POST /dev/dispatch, sent again when the connection itself fails (wrangler
 * reloading under an edited source tree cuts requests): safe, since a
 * dispatch with the same comment id is the same submission.
 */
async function postDispatch(baseUrl: string, body: Record<string, unknown>): Promise<Response> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request(`${baseUrl}/dev/dispatch`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    } catch (error) {
      if (attempt >= DISPATCH_ATTEMPTS) throw error;
      await sleep(DISPATCH_RETRY_MS);
    }
  }
}

async function dispatch(baseUrl: string, run: RunPlan): Promise<Dispatched> {
  const response = await postDispatch(baseUrl, { repo: run.repo, issueNumber: run.issueNumber, commentId: run.commentId, installationToken: run.token, instruction: run.instruction });
  const text = await response.text();
  if (response.status !== 202) throw new Error(`POST /dev/dispatch for ${run.runId} answered ${response.status}: ${plain(text)}`);
  const result = dispatchResultSchema.parse(JSON.parse(text));
  return { plan: run, session: result.session, submissionId: result.submissionId };
}

type Settled = {
  run: Dispatched;
  status: RunObservation["status"];
  thread: RunObservation["thread"];
  closingComments: number;
  progressComments: number;
  /** The raw snapshot this was read from (the token check reads it). */
  centerText: string;
};

/**
 * Polls until every submission is terminal, every closing comment is in and
 * the command center shows each run's submission ended, or the bounds pass;
 * returns the last reading either way (the checks judge it).
 */
async function settle(baseUrl: string, runs: Dispatched[], standin: GitHubStandin, options: ChaosOptions): Promise<Settled[]> {
  const deadline = Date.now() + options.settleTimeoutMs;
  let allTerminalAt: number | null = null;
  let last: Settled[] = [];
  for (;;) {
    try {
      last = await observe(baseUrl, runs, standin);
    } catch (error) {
      options.log(`settling: ${(error as Error).message}; trying again`);
    }
    const terminal = last.length === runs.length && last.every((entry) => entry.status !== null && isTerminalStatus(entry.status));
    if (terminal) {
      allTerminalAt ??= Date.now();
      const agreed = last.every(
        (entry) => entry.closingComments >= 1 && entry.thread?.submissionId === entry.run.submissionId && ["done", "error", "cancelled"].includes(entry.thread.status)
      );
      if (agreed || Date.now() - allTerminalAt > options.agreeTimeoutMs) return last;
    } else if (Date.now() > deadline) {
      return last;
    }
    await sleep(POLL_MS);
  }
}

async function observe(baseUrl: string, runs: Dispatched[], standin: GitHubStandin): Promise<Settled[]> {
  const statuses = await Promise.all(runs.map((run) => messages(baseUrl, run.session, run.submissionId)));
  const centerText = await getText(`${baseUrl}/api/command-center?limit=200`);
  const threads = (JSON.parse(centerText) as { threads?: Array<{ session: string; status: string; submissionId: string }> }).threads ?? [];
  const records = standin.records();
  return runs.map((run, index) => {
    const thread = threads.find((candidate) => candidate.session === run.session);
    return {
      run,
      status: statuses[index]!.submission?.status ?? null,
      thread: thread ? { status: thread.status, submissionId: thread.submissionId } : null,
      closingComments: countClosingComments(records, run.submissionId),
      progressComments: countProgressComments(records, run.submissionId),
      centerText
    };
  });
}

/** A second run on the issue that prints the counter file; the session's transcript once it ended. */
async function readBack(baseUrl: string, run: Dispatched): Promise<MessagesResponse> {
  const response = await postDispatch(baseUrl, {
    repo: run.plan.repo,
    issueNumber: run.plan.issueNumber,
    commentId: run.plan.commentId + 100_000,
    installationToken: run.plan.token,
    instruction: readCounterInstruction()
  });
  const text = await response.text();
  if (response.status !== 202) throw new Error(`the read-back dispatch for ${run.plan.runId} answered ${response.status}: ${text.slice(0, 300)}`);
  const { submissionId } = dispatchResultSchema.parse(JSON.parse(text));
  const deadline = Date.now() + READ_BACK_TIMEOUT_MS;
  for (;;) {
    const snapshot = await messages(baseUrl, run.session, submissionId);
    if (snapshot.submission && isTerminalStatus(snapshot.submission.status)) return messages(baseUrl, run.session);
    if (Date.now() > deadline) return snapshot;
    await sleep(POLL_MS);
  }
}

async function messages(baseUrl: string, session: string, submissionId?: string): Promise<MessagesResponse> {
  const text = await getText(`${baseUrl}${messagesPath(session, submissionId)}`);
  return messagesResponseSchema.parse(JSON.parse(text));
}

async function getText(url: string): Promise<string> {
  const response = await request(url);
  const text = await response.text();
  if (response.status !== 200) throw new Error(`GET ${new URL(url).pathname} answered ${response.status}: ${plain(text)}`);
  return text;
}

/** An error body for one log line: wrangler's HTML error page reduced to its text. */
function plain(text: string): string {
  const title = /<title>([^<]*)<\/title>/i.exec(text)?.[1];
  const body = text.replace(/<style[\s\S]*?<\/style>|<script[\s\S]*?<\/script>/gi, " ").replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim();
  return (title ? `${title.trim()}: ${body.replace(title.trim(), "").trim()}` : body).slice(0, 300);
}

const closed = new WeakSet<GitHubStandin>();
async function closeOnce(standin: GitHubStandin): Promise<void> {
  if (closed.has(standin)) return;
  closed.add(standin);
  await standin.close();
}

function sleep(ms: number): Promise<void> {
  return ms > 0 ? pause(ms) : Promise.resolve();
}

function request(url: string, init: RequestInit = {}): Promise<Response> {
  return fetch(url, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
}
