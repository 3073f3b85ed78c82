/**
 * The lifecycle events that seed a command center with `threads` threads for
 * the command-center and dashboard benches (bench/run.ts): per thread a
 * `dispatched`, a `turn-started`, three `tool` calls and a `turn-ended`,
 * exactly what ThinkAgents report, sent through `recordBatch` in chunks.
 *
 * The text is shaped like real traffic with a long tail, so the bounded state
 * has real work to do: titles of 40-256 characters (GitHub's limit) and every
 * 97th at the dispatch contract's 1,024; multi-line instructions whose first
 * line is longer than the 140-character summary; avatar URLs; one run in ten
 * failing with a 2.5 KB stack trace (stored cut to 2,000 characters). The
 * newest five threads are still running, and eight old ones are running with
 * no activity for over half an hour (stale: they need attention). Times spread
 * over the last ~70 minutes (inside the 24-hour metrics window), one thread
 * every 2 s, the newest active 2.5 s before `now`, so the newest seeded
 * threads are newer than anything the bench did before seeding. Pure: `now`
 * and the id source are parameters.
 *
 * Also the burst bench's endless stream of single events (`burstEvents`):
 * 1,000 runs in flight at once, each reporting as a ThinkAgent does.
 */
import { sessionName } from "../src/shared/session-name";
import type { CommandCenterEvent } from "../src/shared/command-center-events";

/** Every seeded repo's owner: session names start with `ccbench-`. */
const SEED_OWNER = "ccbench";

const REPOS = ["api-gateway", "web", "infra-tools", "docs", "mobile-app", "billing", "search", "auth-service"].map(
  (name) => `${SEED_OWNER}/${name}`
);
const SPACING_MS = 2_000;
const RUNNING_NEWEST = 5;
const TITLE_WORDS = "flaky timeout in integration tests when the cache warms up after a deploy to the staging cluster and retries pile up behind".split(" ");
const STACK_TRACE = Array.from(
  { length: 30 },
  (_, i) => `    at handler${i} (/workspace/repo/packages/service/src/module-${i}/index.ts:${100 + i}:${7 + (i % 30)})`
).join("\n");

export type SeedSummary = { threads: number; events: number; running: number; stale: number; failed: number };

function title(i: number): string {
  const length = i % 97 === 0 ? 1_024 : 40 + ((i * 37) % 217);
  let text = `Issue ${i}:`;
  for (let w = 0; text.length < length; w++) text += ` ${TITLE_WORDS[(i + w) % TITLE_WORDS.length]}`;
  return text.slice(0, length);
}

function instruction(i: number, repo: string): string {
  return [
    `@agent-think please reproduce the failure reported in this issue on the main branch of ${repo}, find the root cause and open a pull request with a fix and a regression test (run ${i})`,
    "",
    "Steps: check out main, run the integration suite with the cache enabled, and compare with the last green build.",
    "Keep the change small; do not touch the public API."
  ].join("\n");
}

/** The events for thread `i` of `count`, in the order a ThinkAgent reports them. */
export function threadEvents(i: number, count: number, now: number, newId: () => string): CommandCenterEvent[] {
  const repo = REPOS[i % REPOS.length]!;
  const issueNumber = 1_000 + i;
  const session = sessionName(repo, issueNumber);
  const submissionId = newId();
  const running = i >= count - RUNNING_NEWEST;
  // Stale: running, and quiet for over half an hour (the stale window is 10 minutes).
  const stale = !running && i % 125 === 60 && count - i > 1_000;
  // The newest thread (running) was last active 2.5 s before `now`; every ended run ended before `now`.
  const dispatchedAt = now - (count - 1 - i) * SPACING_MS - 7_000;
  const events: CommandCenterEvent[] = [
    {
      type: "dispatched",
      session,
      repo,
      issueNumber,
      issueTitle: title(i),
      requestedBy: { login: `octo-user-${i % 40}`, avatarUrl: `https://avatars.githubusercontent.com/u/${100_000 + (i % 40)}?v=4` },
      instruction: instruction(i, repo),
      submissionId,
      at: dispatchedAt
    },
    { type: "turn-started", session, submissionId, at: dispatchedAt + 150 }
  ];
  for (let k = 0; k < 3; k++) {
    events.push({
      type: "tool",
      session,
      submissionId,
      tool: k === 1 ? "read_file" : "bash",
      ok: !(k === 2 && i % 13 === 0),
      toolCallId: `call-${i}-${k}`,
      at: dispatchedAt + 1_500 * (k + 1)
    });
  }
  if (!running && !stale) {
    const failed = i % 10 === 3;
    events.push({
      type: "turn-ended",
      session,
      submissionId,
      status: failed ? "error" : "done",
      ...(failed ? { error: `Error: the integration suite failed (exit code 1) in run ${i}\n${STACK_TRACE}\n${STACK_TRACE}` } : {}),
      tokens: { input: 12_000 + ((i * 7_919) % 60_000), output: 400 + ((i * 131) % 4_000) },
      at: dispatchedAt + 6_000 + (i % 4) * 500
    });
  }
  return events;
}

/** All threads' events, in chunks of whole threads of at most `maxEvents` each (recordBatch takes 5,000). */
export function seedChunks(
  count: number,
  now: number,
  maxEvents: number,
  newId: () => string = () => crypto.randomUUID()
): { chunks: CommandCenterEvent[][]; summary: SeedSummary } {
  const chunks: CommandCenterEvent[][] = [];
  let chunk: CommandCenterEvent[] = [];
  const summary: SeedSummary = { threads: count, events: 0, running: 0, stale: 0, failed: 0 };
  for (let i = 0; i < count; i++) {
    const events = threadEvents(i, count, now, newId);
    const end = events.find((event) => event.type === "turn-ended");
    if (!end) {
      if (i >= count - RUNNING_NEWEST) summary.running++;
      else summary.stale++;
    } else if (end.status === "error") summary.failed++;
    summary.events += events.length;
    if (chunk.length + events.length > maxEvents) {
      chunks.push(chunk);
      chunk = [];
    }
    chunk.push(...events);
  }
  if (chunk.length > 0) chunks.push(chunk);
  return { chunks, summary };
}

/** The burst bench's runs in flight at once (issue 14: 1,000 concurrent runs). */
export const BURST_RUNS = 1_000;
const BURST_TOOLS_PER_RUN = 12;
const BURST_REPOS = REPOS.map((repo) => repo.replace(`${SEED_OWNER}/`, "ccburst/"));
/** Per run: dispatched, turn-started, the 🚀 notice, its tool calls, turn-ended, the closing notice. */
export const BURST_EVENTS_PER_RUN = BURST_TOOLS_PER_RUN + 5;

/**
 * Events `start` to `start + count` of an endless stream shaped as BURST_RUNS
 * concurrent runs would report them, one `record` each: run slot `s` is its
 * own issue, whose runs follow one another (a new submission when one ends),
 * each reporting BURST_EVENTS_PER_RUN events in the order a ThinkAgent does.
 * The slots are staggered, slot `s` starting `s % BURST_EVENTS_PER_RUN`
 * rounds late, so past the first rounds every step of a run (dispatches,
 * tool calls, ends) is always in the mix, as it is with runs that started
 * at different times. Deterministic (ids come from the index), so any range
 * can be made again; `at` stamps each event (the bench stamps offer time).
 */
export function burstEvents(start: number, count: number, at: (index: number) => number): CommandCenterEvent[] {
  const events: CommandCenterEvent[] = [];
  const end = start + count;
  let index = 0;
  for (let round = 0; index < end; round++) {
    for (let slot = 0; slot < BURST_RUNS && index < end; slot++) {
      const step = round - (slot % BURST_EVENTS_PER_RUN);
      if (step < 0) continue;
      if (index >= start) events.push(burstEvent(slot, step, at(index)));
      index++;
    }
  }
  return events;
}

/** Step `step` (counted over the slot's runs) of run slot `slot`. */
function burstEvent(slot: number, step: number, at: number): CommandCenterEvent {
  const generation = Math.floor(step / BURST_EVENTS_PER_RUN);
  const k = step % BURST_EVENTS_PER_RUN;
  const repo = BURST_REPOS[slot % BURST_REPOS.length]!;
  const session = sessionName(repo, 50_000 + slot);
  const submissionId = `burst-${slot}-${generation}`;
  const run = { session, submissionId, at };
  if (k === 0) {
    return {
      type: "dispatched",
      ...run,
      repo,
      issueNumber: 50_000 + slot,
      issueTitle: title(slot),
      requestedBy: { login: `octo-user-${slot % 40}`, avatarUrl: `https://avatars.githubusercontent.com/u/${100_000 + (slot % 40)}?v=4` },
      instruction: instruction(slot, repo)
    };
  }
  if (k === 1) return { type: "turn-started", ...run };
  if (k === 2) return { type: "notice", ...run, kind: "rocket", state: "sent" };
  const tool = k - 3;
  if (tool < BURST_TOOLS_PER_RUN) {
    return { type: "tool", ...run, tool: tool % 3 === 1 ? "read_file" : "bash", ok: (slot + tool) % 20 !== 0, toolCallId: `call-${slot}-${generation}-${tool}` };
  }
  if (k === BURST_EVENTS_PER_RUN - 2) {
    const failed = (slot + generation) % 10 === 3;
    return {
      type: "turn-ended",
      ...run,
      status: failed ? "error" : "done",
      ...(failed ? { error: `Error: the integration suite failed (exit code 1) in run ${slot}\n${STACK_TRACE}` } : {}),
      tokens: { input: 12_000 + ((slot * 7_919) % 60_000), output: 400 + ((slot * 131) % 4_000) }
    };
  }
  return { type: "notice", ...run, kind: "closing", state: "sent", url: `https://github.com/${repo}/issues/${50_000 + slot}#issuecomment-${slot}${generation}` };
}
