/**
 * The worker-shell half of the shell bench, driven through shell-routes.ts
 * once the bench Worker is up (bench/run.ts calls it after the dispatch
 * bench):
 *
 *  1. Exec latency: SHELL_CALLS small commands per side, in blocks
 *     A B C C B A after a discarded warm-up. A = ours (WorkspaceAgent.exec),
 *     B = bare (runtime.exec on a bare Workspace), C = the bare Workspace
 *     running the script our wrapper builds for the same command, which says
 *     how much of A - B is the script itself. One call at a time, one
 *     workspace per side: a turn runs its commands one after another (the
 *     model waits for each result), and local workerd runs every object on
 *     one thread, so calls in flight would only queue behind each other and
 *     blur the per-call cost.
 *  2. Floods: at the worker shell's output cap and past it, each as direct
 *     execs on both sides (A B B A, a fresh workspace per run) and as one
 *     scripted turn through AgentThink.dispatch, whose transcript is measured.
 *
 * Every call is checked: a latency call must print exactly what the command
 * prints, or the bench fails rather than time the wrong thing.
 */
import { LOG_DIR, parseReport, wrapCommand } from "../src/run/command-report";
import type { ExecCall, ExecFigures, TurnFigures } from "./shell-routes";
import type { ShellExecFigures, ShellFigures, ShellFloodCase, ShellSide } from "./shell-report";
import { summarize } from "./stats";

export type Post = (path: string, body: unknown) => Promise<unknown>;

const SHELL_CALLS = 200;
const SHELL_BLOCK_SIZE = 25;
const SHELL_BLOCK_ORDER: ShellSide[] = Array.from(
  { length: SHELL_CALLS / SHELL_BLOCK_SIZE / 2 },
  (): ShellSide[] => ["ours", "bare", "script", "script", "bare", "ours"]
).flat();
const SHELL_WARMUP_CALLS = 10;
/** As the bash tool passes it by default. */
const EXEC_TIMEOUT_MS = 120_000;

const BENCH_FILE = "/workspace/bench.txt";
const BENCH_FILE_TEXT = "agent-think bench\nsecond line\nthird line\n";
const COMMAND = `echo hello && cat ${BENCH_FILE}`;
const EXPECTED_STDOUT = `hello\n${BENCH_FILE_TEXT}`;
const SETUP_COMMAND = `mkdir -p /workspace && printf '${BENCH_FILE_TEXT.replaceAll("\n", "\\n")}' > ${BENCH_FILE}`;
const WORKSPACES: Record<ShellSide, string> = { ours: "bench-exec-ours", bare: "bench-exec-bare", script: "bench-exec-script" };

/** The largest printf the worker shell allows is 1 MiB; stay a round figure under the cap with our report on top. */
const FLOOD_CHUNK_BYTES = 1_000_000;
const FLOOD_ORDER: ("ours" | "bare")[] = ["ours", "bare", "bare", "ours"];
/** Where each side keeps a whole stream it cut: our wrapper's logs, and the Workspace's default output directory. */
const KEPT_DIR = { ours: LOG_DIR, bare: "/.computer/output" } as const;
const FLOOD_CASES = [
  { label: "at the cap", repeat: 1 },
  { label: "over the cap (the container's 100 MB)", repeat: 100 }
];
const BENCH_REPO = "bench/agent-think";
/** Issue numbers for the flood turns, clear of run.ts's key ranges. */
const FLOOD_ISSUE = 400_000;

/**
 * `repeat` printfs of FLOOD_CHUNK_BYTES of "0123456789\n" over and over: the
 * worker shell has no `yes`, and any output, even a `$(seq ...)`, counts
 * toward its cap, so the text is built by doubling a variable.
 */
export function shellFloodCommand(repeat: number): string {
  const chunk = FLOOD_CHUNK_BYTES;
  const print = repeat === 1 ? `printf '%s' "$s"` : `for i in $(seq ${repeat}); do printf '%s' "$s"; done`;
  return `s=$'0123456789\\n'; while [ \${#s} -lt ${chunk} ]; do s="$s$s"; done; s="\${s:0:${chunk}}"; ${print}`;
}

export async function measureShell(post: Post, maxBytes: number): Promise<ShellFigures> {
  return { exec: await measureExec(post, maxBytes), floods: await measureFloods(post) };
}

async function execBatch(post: Post, side: "ours" | "bare", calls: { workspace: string; command: string }[]): Promise<ExecFigures[]> {
  const result = (await post("/bench/exec", { side, concurrency: 1, timeoutMs: EXEC_TIMEOUT_MS, calls })) as { calls: ExecCall[] };
  return result.calls.map((call, index) => {
    if ("thrown" in call) throw new Error(`${side} exec on ${calls[index]!.workspace} threw: ${call.thrown}`);
    return call;
  });
}

async function measureExec(post: Post, maxBytes: number): Promise<ShellExecFigures> {
  let scriptRuns = 0;
  /** Each `script` call gets the fresh id and nonce WorkspaceAgent.exec would give it. */
  const commandsFor = (side: ShellSide, count: number) =>
    Array.from({ length: count }, () => {
      if (side !== "script") return { workspace: WORKSPACES[side], command: COMMAND, check: (call: ExecFigures) => call.stdoutHead === EXPECTED_STDOUT };
      const options = { id: `bench-script-${++scriptRuns}`, nonce: crypto.randomUUID().replaceAll("-", ""), maxBytes };
      return {
        workspace: WORKSPACES.script,
        command: wrapCommand(COMMAND, options),
        check: (call: ExecFigures) => {
          const parsed = parseReport(call.stdoutHead, options);
          return parsed.ok && parsed.report.stdout.text === EXPECTED_STDOUT;
        }
      };
    });
  const run = async (side: ShellSide, count: number) => {
    const planned = commandsFor(side, count);
    const calls = await execBatch(post, side === "ours" ? "ours" : "bare", planned.map(({ workspace, command }) => ({ workspace, command })));
    calls.forEach((call, index) => {
      if (call.exitCode !== 0 || !planned[index]!.check(call)) {
        throw new Error(`shell exec (${side}) printed something else: ${JSON.stringify(call).slice(0, 500)}`);
      }
    });
    return calls;
  };

  // Setup and warm-up, discarded: the first call on a workspace loads its shell's Dynamic Worker.
  for (const side of ["ours", "bare", "script"] as const) {
    const [setup] = await execBatch(post, side === "ours" ? "ours" : "bare", [{ workspace: WORKSPACES[side], command: SETUP_COMMAND }]);
    if (setup!.exitCode !== 0) throw new Error(`shell exec setup (${side}) failed: ${JSON.stringify(setup).slice(0, 500)}`);
    await run(side, SHELL_WARMUP_CALLS);
  }

  const calls: Record<ShellSide, ExecFigures[]> = { ours: [], bare: [], script: [] };
  for (const side of SHELL_BLOCK_ORDER) calls[side].push(...(await run(side, SHELL_BLOCK_SIZE)));
  for (const side of ["ours", "bare", "script"] as const) {
    if (calls[side].length !== SHELL_CALLS) throw new Error(`the shell block plan ran ${calls[side].length} ${side} calls, not ${SHELL_CALLS}`);
  }
  const latency = (side: ShellSide) => summarize(calls[side].map((call) => call.ms));
  const resultBytes = (side: ShellSide) => calls[side][0]!.resultBytes;
  return {
    command: COMMAND,
    callsPerSide: SHELL_CALLS,
    blockSize: SHELL_BLOCK_SIZE,
    blockOrder: SHELL_BLOCK_ORDER,
    warmupCalls: SHELL_WARMUP_CALLS,
    latency: { ours: latency("ours"), bare: latency("bare"), script: latency("script") },
    resultBytes: { ours: resultBytes("ours"), bare: resultBytes("bare"), script: resultBytes("script") }
  };
}

async function measureFloods(post: Post): Promise<ShellFloodCase[]> {
  const cases: ShellFloodCase[] = [];
  for (const [caseIndex, { label, repeat }] of FLOOD_CASES.entries()) {
    const command = shellFloodCommand(repeat);
    const runs: Record<"ours" | "bare", ExecFigures[]> = { ours: [], bare: [] };
    const kept: Partial<Record<"ours" | "bare", { files: number; bytes: number }>> = {};
    for (const [index, side] of FLOOD_ORDER.entries()) {
      const workspace = `bench-flood-${caseIndex}-${index}`;
      const [call] = await execBatch(post, side, [{ workspace, command }]);
      runs[side].push(call!);
      // A fresh workspace, so whatever is in the directory is this run's.
      const { files } = (await post("/bench/files", { side, workspace, dir: KEPT_DIR[side] })) as { files: { size: number }[] };
      kept[side] ??= { files: files.length, bytes: files.reduce((sum, file) => sum + file.size, 0) };
    }
    const turn = (await post("/bench/turn", {
      repo: BENCH_REPO,
      issueNumber: FLOOD_ISSUE + caseIndex,
      instruction: `TEST: run ${command}`
    })) as TurnFigures;
    cases.push({
      label,
      command,
      requestedBytes: FLOOD_CHUNK_BYTES * repeat,
      exec: {
        order: FLOOD_ORDER,
        ours: runs.ours[0]!,
        bare: runs.bare[0]!,
        ms: { ours: summarize(runs.ours.map((call) => call.ms)), bare: summarize(runs.bare.map((call) => call.ms)) },
        kept: { ours: kept.ours!, bare: kept.bare! }
      },
      turn
    });
  }
  return cases;
}
