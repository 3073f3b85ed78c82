/**
 * The bounding script, run for real by this machine's /bin/sh (a POSIX
 * shell; dash on Debian) with GNU coreutils, as the container's shell runs
 * it, its log directory a fresh temp directory per test.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  boundText,
  KILL_GRACE_SECONDS,
  LOG_DIR,
  logPath,
  MAX_LOG_DIR_BYTES,
  MAX_LOG_FILE_BYTES,
  parseReport,
  shellQuote,
  wrapCommand,
  type WrapOptions
} from "../../src/run/command-report";

const root = mkdtempSync(join(tmpdir(), "agent-think-report-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let runs = 0;
const freshDir = () => mkdtempSync(join(root, "logs-"));

function run(command: string, options: Partial<WrapOptions> = {}, env: Record<string, string> = {}) {
  const n = ++runs;
  const wrap: WrapOptions = { id: `run-${n}`, nonce: `nonce${n}x`, maxBytes: 1_000, logDir: freshDir(), ...options };
  const started = Date.now();
  const child = spawnSync("/bin/sh", ["-c", wrapCommand(command, wrap)], {
    encoding: "utf8",
    maxBuffer: 8 * 1024 * 1024,
    env: { ...process.env, ...env }
  });
  const parsed = parseReport(child.stdout, wrap);
  return { child, parsed, ms: Date.now() - started, options: wrap, dir: wrap.logDir! };
}

const size = (path: string) => statSync(path).size;
const dirBytes = (dir: string) => readdirSync(dir).reduce((sum, name) => sum + size(join(dir, name)), 0);

describe("wrapCommand and parseReport", () => {
  it("reports exit code, stdout and stderr separately, as data", () => {
    const { parsed, child } = run("echo out; echo err >&2; exit 3");
    expect(child.status).toBe(3);
    expect(parsed).toEqual({
      ok: true,
      report: {
        exitCode: 3,
        stdout: { text: "out\n", totalBytes: 4, totalLines: 1 },
        stderr: { text: "err\n", totalBytes: 4, totalLines: 1 },
        timedOut: false,
        killed: false
      }
    });
  });

  it("keeps a 100 MB flood in the log, cut to 64 MiB, and returns only its head and tail", () => {
    const { parsed, child, ms, options, dir } = run("yes 0123456789 | head -c 100000000", { maxBytes: 16_384, timeoutSeconds: 60 });
    expect(child.stdout.length).toBeLessThan(17_000);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const { stdout } = parsed.report;
    expect(stdout.totalBytes).toBe(100_000_000);
    expect(stdout.totalLines).toBe(9_090_909);
    expect(stdout.text.startsWith("0123456789\n0123456789\n")).toBe(true);
    // Over MAX_LOG_FILE_BYTES: the log keeps its first and last 32 MiB.
    const cut = 100_000_000 - MAX_LOG_FILE_BYTES;
    expect(stdout.text).toContain(
      `left out here; the whole stdout is in ${dir}/${options.id}.stdout (middle ${cut} bytes dropped)]`
    );
    expect(new TextEncoder().encode(stdout.text).length).toBeLessThan(16_384 + 300);
    expect(stdout.log).toBe(`${dir}/${options.id}.stdout`);
    const kept = size(join(dir, `${options.id}.stdout`));
    expect(kept).toBeGreaterThan(MAX_LOG_FILE_BYTES);
    expect(kept).toBeLessThan(MAX_LOG_FILE_BYTES + 100);
    expect(ms).toBeLessThan(30_000);
  });

  it("names logs under LOG_DIR by default", () => {
    expect(logPath("abc", "stderr")).toBe(`${LOG_DIR}/abc.stderr`);
    expect(wrapCommand("true", { id: "abc", nonce: "n", maxBytes: 10 })).toContain(shellQuote(LOG_DIR));
    expect(KILL_GRACE_SECONDS).toBe(5);
    expect(MAX_LOG_FILE_BYTES).toBe(64 * 1024 * 1024);
    expect(MAX_LOG_DIR_BYTES).toBe(256 * 1024 * 1024);
  });

  it("removes the logs of output that fit", () => {
    const { dir } = run("echo small");
    expect(readdirSync(dir)).toEqual([]);
  });

  it("cannot be fooled by output that imitates the markers", () => {
    const { parsed } = run(
      `printf '\\n@@nonce999x end 0\\n'; printf '\\n@@nonce999x timeout kill\\n'; echo '@@fake stdout 1 1'; exit 5`,
      { nonce: "nonce999x", timeoutSeconds: 10 }
    );
    // The command printed the real nonce's markers on its stdout: they stay text.
    expect(parsed).toMatchObject({ ok: true, report: { exitCode: 5, timedOut: false, killed: false } });
    if (parsed.ok) expect(parsed.report.stdout.text).toContain("@@nonce999x timeout kill\n@@fake stdout 1 1");
  });

  it("passes quotes, pipes and multi-line commands through unchanged", () => {
    const { parsed } = run(`x='it''s'; echo "$x" | tr a-z A-Z\nprintf '%s\\n' "two lines"`, { timeoutSeconds: 10 });
    expect(parsed).toMatchObject({ ok: true, report: { exitCode: 0, stdout: { text: "ITS\ntwo lines\n" }, timedOut: false } });
  });

  it("says so when a report is cut off", () => {
    expect(parseReport("partial output", { id: "a", nonce: "b", maxBytes: 10 })).toEqual({
      ok: false,
      reason: "the command's report is incomplete"
    });
  });

  it("reads a report without the timeout field or the cut count (an older wrapper's)", () => {
    const output = "\n@@n stdout 3 1\nab\n\n@@n stderr 0 0\n\n@@n end 124\n";
    expect(parseReport(output, { id: "a", nonce: "n", maxBytes: 10 })).toEqual({
      ok: true,
      report: { exitCode: 124, stdout: { text: "ab\n", totalBytes: 3, totalLines: 1 }, stderr: { text: "", totalBytes: 0, totalLines: 0 }, timedOut: false, killed: false }
    });
  });

  it("quotes for POSIX shells", () => {
    const quoted = shellQuote(`a'b "c" $d`);
    const echoed = spawnSync("/bin/sh", ["-c", `printf %s ${quoted}`], { encoding: "utf8" }).stdout;
    expect(echoed).toBe(`a'b "c" $d`);
  });
});

describe("the wrapper's own timeout", () => {
  it("stops a command at its timeout, says it timed out, and still reports", () => {
    const { parsed, ms } = run("echo before; sleep 5; echo after", { timeoutSeconds: 1 });
    expect(ms).toBeLessThan(4_000);
    expect(parsed).toMatchObject({ ok: true, report: { exitCode: 124, stdout: { text: "before\n" }, timedOut: true, killed: false } });
  });

  it("kills a command that ignores SIGTERM after the grace, and says so", () => {
    const { parsed, ms } = run("echo before; echo complaint >&2; trap '' TERM; sleep 30", { timeoutSeconds: 1, killGraceSeconds: 1 });
    expect(ms).toBeLessThan(5_000);
    expect(parsed).toMatchObject({
      ok: true,
      // timeout's own "sending signal" lines are not the command's stderr
      report: { exitCode: 137, stdout: { text: "before\n" }, stderr: { text: "complaint\n" }, timedOut: true, killed: true }
    });
  });

  it("tells a command's own exit 124 from a timeout", () => {
    const { parsed } = run("echo done; exit 124", { timeoutSeconds: 10 });
    expect(parsed).toMatchObject({ ok: true, report: { exitCode: 124, stdout: { text: "done\n" }, timedOut: false, killed: false } });
  });

  it("tells a command's own SIGKILL (137) from an escalation", () => {
    const { parsed } = run("kill -9 $$", { timeoutSeconds: 10 });
    expect(parsed).toMatchObject({ ok: true, report: { exitCode: 137, timedOut: false, killed: false } });
  });

  it("keeps what else lands on timeout's stderr (bash's startup warnings) in the command's stderr", () => {
    const { parsed } = run("echo ok", { timeoutSeconds: 10 }, { LC_ALL: "xx_XX.UTF-8" });
    expect(parsed).toMatchObject({ ok: true, report: { exitCode: 0, stdout: { text: "ok\n" }, timedOut: false } });
    if (parsed.ok) expect(parsed.report.stderr.text).toContain("setlocale");
  });
});

describe("log bounds", () => {
  it("cuts the middle out of a kept log larger than its bound, and says so in the log and the report", () => {
    // 4,000 lines of 11 bytes: 44,000 bytes, kept to its first and last 4,000.
    const { parsed, dir, options } = run("seq -f 'line-%05g' 1 4000", { maxBytes: 200, maxLogFileBytes: 8_000 });
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const { stdout } = parsed.report;
    expect(stdout).toMatchObject({ totalBytes: 44_000, totalLines: 4_000, log: `${dir}/${options.id}.stdout` });
    expect(stdout.text.startsWith("line-00001\n")).toBe(true);
    expect(stdout.text.endsWith("line-04000\n")).toBe(true);
    expect(stdout.text).toContain(
      `left out here; the whole stdout is in ${dir}/${options.id}.stdout (middle 36000 bytes dropped)]`
    );
    const kept = readFileSync(join(dir, `${options.id}.stdout`), "utf8");
    expect(kept.startsWith("line-00001\n")).toBe(true);
    expect(kept.endsWith("line-04000\n")).toBe(true);
    expect(kept).toContain("\n… [agent-think: 36000 bytes cut here to bound the disk] …\n");
    expect(size(join(dir, `${options.id}.stdout`))).toBeLessThan(8_000 + 100);
    expect(readdirSync(dir)).toEqual([`${options.id}.stdout`]);
  });

  it("prunes the oldest logs to the directory bound, keeping this command's and files that are not logs", () => {
    const dir = freshDir();
    const now = Date.now() / 1000;
    const old = (name: string, bytes: number, ageSeconds: number) => {
      writeFileSync(join(dir, name), "x".repeat(bytes));
      utimesSync(join(dir, name), now - ageSeconds, now - ageSeconds);
    };
    old("notes.txt", 5_000, 400);
    old("a-1.stdout", 3_000, 300);
    old("a-2.stderr", 3_000, 200);
    old("a-3.stdout", 3_000, 100);
    const { parsed, options } = run("head -c 2500 /dev/zero", { logDir: dir, maxBytes: 200, maxLogDirBytes: 8_000 });
    expect(parsed.ok).toBe(true);
    // this command's 2,500 + a-3's 3,000 fit in 8,000; a-2 and a-1 do not
    expect(readdirSync(dir).sort()).toEqual(["a-3.stdout", `${options.id}.stdout`, "notes.txt"].sort());
    expect(dirBytes(dir) - size(join(dir, "notes.txt"))).toBeLessThanOrEqual(8_000);
  });

  it("never removes this command's logs, even alone over the bound", () => {
    const dir = freshDir();
    writeFileSync(join(dir, "a-1.stdout"), "x".repeat(100));
    utimesSync(join(dir, "a-1.stdout"), Date.now() / 1000 - 60, Date.now() / 1000 - 60);
    const { options } = run("head -c 2500 /dev/zero; head -c 2500 /dev/zero >&2", { logDir: dir, maxBytes: 200, maxLogDirBytes: 1_000 });
    expect(readdirSync(dir).sort()).toEqual([`${options.id}.stderr`, `${options.id}.stdout`]);
  });

  it("leaves a log some process still writes (a command running beside this one)", async () => {
    const dir = freshDir();
    const busy = join(dir, "a-1.stdout");
    writeFileSync(busy, "x".repeat(5_000));
    utimesSync(busy, Date.now() / 1000 - 60, Date.now() / 1000 - 60);
    const holder = spawn("/bin/sh", ["-c", 'exec 3>>"$1"; exec sleep 20', "sh", busy], { stdio: "ignore" });
    try {
      await waitFor(() => readdirSync(`/proc/${holder.pid}/fd`).some((fd) => readlinkOrEmpty(`/proc/${holder.pid}/fd/${fd}`) === busy));
      run("head -c 2500 /dev/zero", { logDir: dir, maxBytes: 200, maxLogDirBytes: 3_000 });
      expect(readdirSync(dir)).toContain("a-1.stdout");
    } finally {
      holder.kill("SIGKILL");
    }
    run("head -c 2500 /dev/zero", { logDir: dir, maxBytes: 200, maxLogDirBytes: 3_000 });
    expect(readdirSync(dir)).not.toContain("a-1.stdout");
  });
});

function readlinkOrEmpty(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return "";
  }
}

async function waitFor(check: () => boolean, timeoutMs = 3_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > until) throw new Error("timed out waiting");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("boundText", () => {
  it("passes output that fits through whole", () => {
    expect(boundText("a\nb\n", { maxBytes: 10, log: "/temp/x", stream: "stdout" })).toEqual({ text: "a\nb\n", totalBytes: 4, totalLines: 2 });
  });

  it("cuts to the same head, tail and marker as the wrapper's report", () => {
    const text = Array.from({ length: 1000 }, (_, i) => `line-${i + 1}`).join("\n") + "\n";
    const bounded = boundText(text, { maxBytes: 200, log: "/temp/agent-think/logs/r.stdout", stream: "stdout" });
    expect(bounded.totalBytes).toBe(new TextEncoder().encode(text).length);
    expect(bounded.totalLines).toBe(1000);
    expect(bounded.log).toBe("/temp/agent-think/logs/r.stdout");
    expect(bounded.text.startsWith("line-1\nline-2\n")).toBe(true);
    expect(bounded.text.endsWith("line-1000\n")).toBe(true);
    expect(bounded.text).toContain("left out here; the whole stdout is in /temp/agent-think/logs/r.stdout");
    expect(new TextEncoder().encode(bounded.text).length).toBeLessThan(200 + 200);
  });
});
