/**
 * What the shell bench found, as figures and as report sections: shell-exec
 * latency (ours beside the bare Workspace, and the diagnostic that runs our
 * wrapper's script on the bare Workspace), and the output flood on both
 * paths with the bound it is held to. Pure; report.ts places the sections.
 */
import type { ContainerFloodFigures } from "./container-flood";
import type { ExecFigures, TurnFigures } from "./shell-routes";
import { ratio, type Summary } from "./stats";

/** ours and bare as in the dispatch bench; `script` is the bare Workspace running our wrapper's script. */
export type ShellSide = "ours" | "bare" | "script";

export type ShellExecFigures = {
  command: string;
  callsPerSide: number;
  blockSize: number;
  blockOrder: ShellSide[];
  warmupCalls: number;
  latency: Record<ShellSide, Summary>;
  /** The RPC result of one call, as JSON. */
  resultBytes: Record<ShellSide, number>;
};

export type ShellFloodCase = {
  label: string;
  command: string;
  /** What the command asks to print. */
  requestedBytes: number;
  /** Direct execs, alternating sides, each on a fresh workspace. */
  exec: {
    order: ("ours" | "bare")[];
    /** The first run of each side. */
    ours: ExecFigures;
    bare: ExecFigures;
    ms: Record<"ours" | "bare", Summary>;
    /** Files left in the side's output directory after its first run (ours: /temp logs; bare: /.computer/output). */
    kept: Record<"ours" | "bare", { files: number; bytes: number }>;
  };
  turn: TurnFigures;
};

export type ShellFigures = { exec: ShellExecFigures; floods: ShellFloodCase[] };

/** Room for the note parseReport puts between head and tail (the unit test allows the same). */
export const NOTE_ALLOWANCE_BYTES = 200;

/** The bytes of text that reach the model from each flood (a: the container path; b: each shell turn), for report.ts's bound check. */
export function floodTextBytes(shell: ShellFigures, container: ContainerFloodFigures): { a: number; b: number[] } {
  return {
    a: container.ours.stdoutTextBytes,
    // An over-the-cap flood reaches the model as an error message instead; a turn without a bash call fails the check.
    b: shell.floods.map((flood) => flood.turn.bash?.stdoutTextBytes ?? flood.turn.bash?.outputBytes ?? Number.POSITIVE_INFINITY)
  };
}

export function formatShellExec(exec: ShellExecFigures): string[] {
  const lines: string[] = [];
  const { ours, bare, script } = exec.latency;
  const row = (label: string, a: string, b: string, c: string, d: string) =>
    lines.push(`  ${label.padEnd(34)}${a.padStart(10)}${b.padStart(10)}${c.padStart(12)}${d.padStart(14)}`);
  const figures = (label: string, key: "p50" | "p99" | "mean" | "max") =>
    row(label, ms(ours[key]), ms(bare[key]), `${ratio(ours[key], bare[key]).toFixed(2)}x`, ms(script[key]));
  const extra = ours.mean - bare.mean;
  const scriptShare = script.mean - bare.mean;

  lines.push(
    `Shell exec latency: \`${exec.command}\`, ${exec.callsPerSide} calls per side, one at a time on one workspace per side,`,
    `blocks of ${exec.blockSize} in order ${exec.blockOrder.map(letter).join(" ")}, after ${exec.warmupCalls} discarded warm-up calls per side`,
    "A = ours: getAgentByName + WorkspaceAgent.exec (the command as is, its output bounded in the Durable Object), as the bash tool calls it",
    "B = bare: runtime.exec + result() inside a bare Workspace with only the worker-shell backend, over one RPC",
    "C = B running the container's wrapper script for the same command (diagnostic: why the shell does not use it)"
  );
  row("", "ours", "bare", "ours/bare", "bare+script");
  figures("p50 (ms)", "p50");
  figures("p99 (ms)", "p99");
  figures("mean (ms)", "mean");
  figures("max (ms)", "max");
  row("RPC result (bytes, JSON)", bytes(exec.resultBytes.ours), bytes(exec.resultBytes.bare), "", bytes(exec.resultBytes.script));
  lines.push(
    `  Ours costs ${ms(extra)} ms more than bare per call (mean): getAgentByName, the RPC and bounding the output in the`,
    "  Durable Object. It buys a head and a tail (bare keeps only a tail), stdout and stderr apart, and a tighter bound.",
    `  The container's wrapper would cost ${ms(scriptShare)} ms more here (C): each of its file steps is a round trip from the`,
    "  shell's Dynamic Worker to the workspace's SQLite, so the worker shell's output, capped at 1 MiB by just-bash and",
    "  reaching the Durable Object anyway, is bounded there instead; only the container runs the wrapper (a, below)."
  );
  return lines;
}

export function formatFloods(shell: ShellFigures, container: ContainerFloodFigures): string[] {
  const half = Math.floor(container.maxBytes / 2);
  const lines: string[] = [];
  const row = (label: string, a: string, b: string) => lines.push(`    ${label.padEnd(38)}${a.padStart(26)}${b.padStart(20)}`);
  const { ours, bare } = container;

  lines.push(
    `Output flood. Bound: MAX_TOOL_OUTPUT_BYTES = ${bytes(container.maxBytes)} (bench/wrangler.jsonc): a stream over it reaches the model`,
    `as its first and last ${bytes(half)} bytes plus a note naming the log that keeps it (in the container, up to 64 MiB: its head and tail).`,
    "",
    "  (a) Container path: the exact wrapCommand script (with `timeout`), run by this machine's bash, on",
    `      \`${container.command}\`; ${container.order.length / 2} runs per side in order ${container.order.map(letter).join(" ")}`,
    "      (A = wrapped, as the container runs it; B = the bare command, all its output captured)"
  );
  row("", "ours (wrapped)", "bare (captured)");
  row("wall p50 / max (ms)", `${ms(ours.wallMs.p50)} / ${ms(ours.wallMs.max)}`, `${ms(bare.wallMs.p50)} / ${ms(bare.wallMs.max)}`);
  row("exit code", String(ours.exitCode), String(bare.exitCode));
  row("bytes leaving the command's process", bytes(ours.reportBytes), bytes(bare.capturedBytes));
  row("stdout text reaching the model", bytes(ours.stdoutTextBytes), "all of it");
  row("stdout reported (bytes / lines)", `${bytes(ours.stdoutTotalBytes)} / ${bytes(ours.stdoutTotalLines)}`, "-");
  row("log left behind in /temp (bytes)", bytes(ours.logBytes), "-");
  lines.push(
    `    => ${(bare.capturedBytes / ours.reportBytes).toFixed(0)}x fewer bytes leave the container; wall time ${ratio(ours.wallMs.p50, bare.wallMs.p50).toFixed(2)}x the bare capture's (p50).`,
    "",
    "  (b) Worker shell, end to end in workerd. just-bash caps a command's total output at 1 MiB (1,048,576 bytes). The shell",
    `      has no \`yes\`: the floods print "0123456789\\n" over and over from a variable.`
  );
  for (const flood of shell.floods) {
    const { exec, turn } = flood;
    const execRow = (label: string, a: string, b: string) => lines.push(`      ${label.padEnd(36)}${a.padStart(22)}${b.padStart(22)}`);
    lines.push(
      "",
      `    ${flood.label}: ${bytes(flood.requestedBytes)} bytes asked for`,
      `      \`${flood.command}\``,
      `      direct exec, order ${exec.order.map(letter).join(" ")}, each run on a fresh workspace:`
    );
    execRow("", "ours", "bare");
    execRow("time p50 / max (ms)", `${ms(exec.ms.ours.p50)} / ${ms(exec.ms.ours.max)}`, `${ms(exec.ms.bare.p50)} / ${ms(exec.ms.bare.max)}`);
    execRow("outcome", outcome(exec.ours), outcome(exec.bare));
    execRow("stdout text returned (bytes)", bytes(exec.ours.stdoutBytes), bytes(exec.bare.stdoutBytes));
    execRow("command's stdout, as reported (bytes)", bytes(exec.ours.commandStdoutBytes), bytes(exec.bare.commandStdoutBytes));
    execRow("RPC result (bytes, JSON)", bytes(exec.ours.resultBytes), bytes(exec.bare.resultBytes));
    execRow("files / bytes left in its output dir", kept(exec.kept.ours), kept(exec.kept.bare));
    if (exec.ours.error !== undefined) {
      lines.push(
        `      ours: the shell stopped our script before its report, so the caller gets only the error, no head or tail:`,
        `        ${oneLine(exec.ours.error)}`
      );
    }
    if (exec.bare.exitCode !== 0) {
      lines.push(
        `      bare: exit ${exec.bare.exitCode} with the last ${bytes(exec.bare.stdoutBytes)} bytes of the ${bytes(exec.bare.commandStdoutBytes)} printed before it stopped`,
        "        (@cloudflare/computer's default output limits: 2,000 lines or 64 KiB, the rest saved to /.computer/output)"
      );
    }

    lines.push(`      scripted turn \`TEST: run <this command>\` through AgentThink.dispatch: ${turn.status} in ${ms(turn.turnMs)} ms`);
    if (!turn.bash) {
      lines.push("      the turn made no bash call");
      continue;
    }
    const { bash } = turn;
    lines.push(
      bash.stdoutTextBytes === undefined
        ? `      reaches the transcript: an error, ${oneLine(bash.error ?? "")}`
        : `      reaches the transcript: ${bytes(bash.stdoutTextBytes)} bytes of stdout text of the ${bytes(bash.stdoutTotalBytes ?? 0)} printed (exit ${bash.exitCode}, exec ${bash.durationMs} ms)`,
      `      bash tool output ${bytes(bash.outputBytes)} B (its part ${bytes(bash.partBytes)} B), its assistant message ${bytes(bash.messageBytes)} B,`,
      `      whole transcript ${bytes(turn.transcriptBytes)} B in ${turn.transcriptMessages} messages (all as JSON)`
    );
  }
  return lines;
}

const letter = (side: ShellSide) => (side === "ours" ? "A" : side === "bare" ? "B" : "C");

function outcome(figures: ExecFigures): string {
  return figures.error !== undefined ? "error" : `exit ${figures.exitCode}`;
}

function kept({ files, bytes: size }: { files: number; bytes: number }): string {
  return `${files} / ${bytes(size)}`;
}

function ms(value: number): string {
  return Number.isFinite(value) ? value.toFixed(1) : "-";
}

function bytes(value: number): string {
  return Number.isFinite(value) ? value.toLocaleString("en-US") : "-";
}

function percent(part: number, whole: number): string {
  return whole > 0 ? `${((part / whole) * 100).toFixed(0)}%` : "-";
}

function oneLine(text: string): string {
  const line = text.trim().replaceAll("\n", " ⏎ ");
  return line.length > 140 ? `${line.slice(0, 140)}…` : line;
}
