/**
 * The container path's output bounding, measured for real: the exact script
 * `wrapCommand` builds for the container backend, run by this machine's bash
 * (its log directory moved to a temp dir, as test/unit/command-report.test.ts
 * does), on a 100 MB flood, beside the same command run bare with all its
 * output captured: the bytes that would cross from the container without the
 * wrapper. Both are spawned and read the same way, in alternating runs.
 *
 * It cannot measure the container itself (no container engine here), only
 * what the wrapper does where it runs; the worker-shell figures come from
 * shell-bench.ts.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOG_DIR, logPath, parseReport, wrapCommand } from "../src/run/command-report";
import { summarize, type Side, type Summary } from "./stats";

export const FLOOD_BYTES = 100_000_000;
export const CONTAINER_FLOOD_COMMAND = `yes 0123456789 | head -c ${FLOOD_BYTES}`;
/** A B B A, three times: a slow first run or a warm page cache favours neither side. */
const ORDER: Side[] = Array.from({ length: 3 }, (): Side[] => ["ours", "bare", "bare", "ours"]).flat();
/** As the container backend passes it (bash-tool's default timeout). */
const TIMEOUT_SECONDS = 120;

export type ContainerFloodFigures = {
  command: string;
  maxBytes: number;
  order: Side[];
  ours: {
    wallMs: Summary;
    exitCode: number;
    /** The report the wrapper prints: all that leaves the container. */
    reportBytes: number;
    /** The parsed stdout text: what reaches the model and the transcript. */
    stdoutTextBytes: number;
    stdoutTotalBytes: number;
    stdoutTotalLines: number;
    /** The stdout log left behind in the container's /temp. */
    logBytes: number;
  };
  bare: {
    wallMs: Summary;
    exitCode: number;
    /** Everything the command printed, captured whole. */
    capturedBytes: number;
  };
};

type Run = { ms: number; exitCode: number; stdout: Buffer };

/** `bash -c script`, all of stdout captured; timed from spawn to exit. */
function runBash(script: string): Promise<Run> {
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const child = spawn("bash", ["-c", script], { stdio: ["ignore", "pipe", "inherit"] });
    const chunks: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.once("error", reject);
    child.once("close", (code, signal) => {
      if (code === null) return reject(new Error(`bash ended by ${signal}`));
      resolve({ ms: performance.now() - startedAt, exitCode: code, stdout: Buffer.concat(chunks) });
    });
  });
}

export async function measureContainerFlood(maxBytes: number): Promise<ContainerFloodFigures> {
  const dir = mkdtempSync(join(tmpdir(), "agent-think-bench-flood-"));
  try {
    const ours: { run: Run; parsed: ReturnType<typeof parseReport>; logBytes: number }[] = [];
    const bare: Run[] = [];
    for (const [index, side] of ORDER.entries()) {
      if (side === "bare") {
        bare.push(await runBash(CONTAINER_FLOOD_COMMAND));
        continue;
      }
      const options = { id: `bench-flood-${index}`, nonce: crypto.randomUUID().replaceAll("-", ""), maxBytes };
      const script = wrapCommand(CONTAINER_FLOOD_COMMAND, { ...options, timeoutSeconds: TIMEOUT_SECONDS });
      const run = await runBash(script.replaceAll(LOG_DIR, dir));
      const parsed = parseReport(run.stdout.toString("utf8").replaceAll(dir, LOG_DIR), options);
      const logBytes = statSync(logPath(options.id, "stdout").replace(LOG_DIR, dir)).size;
      ours.push({ run, parsed, logBytes });
      // Each run leaves a 100 MB log behind, as the container would; keep the disk tidy.
      rmSync(logPath(options.id, "stdout").replace(LOG_DIR, dir), { force: true });
    }

    const first = ours[0]!;
    if (!first.parsed.ok) throw new Error(`container flood: ${first.parsed.reason} (exit ${first.run.exitCode})`);
    const { report } = first.parsed;
    for (const { parsed, run } of ours) {
      if (!parsed.ok || parsed.report.stdout.totalBytes !== report.stdout.totalBytes || run.stdout.length !== first.run.stdout.length) {
        throw new Error("container flood: the wrapped runs disagree");
      }
    }
    if (bare.some((run) => run.stdout.length !== bare[0]!.stdout.length)) throw new Error("container flood: the bare runs disagree");

    return {
      command: CONTAINER_FLOOD_COMMAND,
      maxBytes,
      order: ORDER,
      ours: {
        wallMs: summarize(ours.map(({ run }) => run.ms)),
        exitCode: report.exitCode,
        reportBytes: first.run.stdout.length,
        stdoutTextBytes: Buffer.byteLength(report.stdout.text),
        stdoutTotalBytes: report.stdout.totalBytes,
        stdoutTotalLines: report.stdout.totalLines,
        logBytes: first.logBytes
      },
      bare: {
        wallMs: summarize(bare.map((run) => run.ms)),
        exitCode: bare[0]!.exitCode,
        capturedBytes: bare[0]!.stdout.length
      }
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
