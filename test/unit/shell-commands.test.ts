/**
 * ShellCommands, one worker-shell command: streams that fit come back whole
 * and nothing is written; a stream over the bound comes back as a head and
 * a tail naming its log, and is kept whole there, under LOG_DIR.
 */
import { describe, expect, it } from "vitest";
import { ShellCommands } from "../../src/pool/shell-commands";
import type { RawRun } from "../../src/pool/container-commands";
import { LOG_DIR } from "../../src/run/command-report";

function shell(raw: RawRun, maxBytes = 256) {
  const runs: Array<{ script: string; timeoutMs: number }> = [];
  const dirs: string[] = [];
  const written = new Map<string, string>();
  let clock = 1_000;
  const commands = new ShellCommands({
    runner: () => ({
      run: async (script, options) => {
        runs.push({ script, timeoutMs: options.timeoutMs });
        clock += 42;
        return raw;
      }
    }),
    files: () => ({
      mkdir: async (path) => void dirs.push(path),
      writeFile: async (path, text) => void written.set(path, text)
    }),
    maxOutputBytes: () => maxBytes,
    now: () => clock
  });
  return { commands, runs, dirs, written };
}

describe("ShellCommands", () => {
  it("runs the command as given and returns streams that fit whole, writing nothing", async () => {
    const { commands, runs, dirs, written } = shell({ exitCode: 3, stdout: "one\ntwo\n", stderr: "" });
    expect(await commands.run("printf 'one\\ntwo\\n'; exit 3", 5_000)).toEqual({
      backend: "shell",
      exitCode: 3,
      stdout: { text: "one\ntwo\n", totalBytes: 8, totalLines: 2 },
      stderr: { text: "", totalBytes: 0, totalLines: 0 },
      durationMs: 42
    });
    expect(runs).toEqual([{ script: "printf 'one\\ntwo\\n'; exit 3", timeoutMs: 5_000 }]);
    expect(dirs).toEqual([]);
    expect(written.size).toBe(0);
  });

  it("cuts a stream over the bound to a head and a tail and keeps the whole of it under LOG_DIR", async () => {
    const flood = `${"a".repeat(300)}${"z".repeat(300)}\n`;
    const { commands, dirs, written } = shell({ exitCode: 0, stdout: "fine\n", stderr: flood });
    const result = await commands.run("flood", 1_000);
    if (!("stderr" in result)) throw new Error("expected a result with streams");
    const log = result.stderr.log!;
    expect(log.startsWith(`${LOG_DIR}/`)).toBe(true);
    expect(log.endsWith(".stderr")).toBe(true);
    expect(result.stderr.text.startsWith("a".repeat(128))).toBe(true);
    expect(result.stderr.text.endsWith(`${"z".repeat(127)}\n`)).toBe(true);
    expect(result.stderr.text).toContain(log);
    expect(result.stderr.totalBytes).toBe(601);
    expect(result.stdout).toEqual({ text: "fine\n", totalBytes: 5, totalLines: 1 });
    expect(dirs).toEqual([LOG_DIR]);
    expect([...written]).toEqual([[log, flood]]);
  });
});
