/**
 * The bounding script, run for real by this machine's bash exactly as the
 * container's shell would run it (its log directory moved to a temp dir).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { boundText, LOG_DIR, parseReport, shellQuote, wrapCommand } from "../../src/tools/command-report";

const dir = mkdtempSync(join(tmpdir(), "agent-think-report-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let runs = 0;
function run(command: string, maxBytes = 1_000, timeoutSeconds?: number) {
  const options = { id: `run-${++runs}`, nonce: `nonce${runs}x`, maxBytes, timeoutSeconds };
  const script = wrapCommand(command, options).replaceAll(LOG_DIR, dir);
  const started = Date.now();
  const child = spawnSync("bash", ["-c", script], { encoding: "utf8", maxBuffer: 8 * 1024 * 1024 });
  const parsed = parseReport(child.stdout.replaceAll(dir, LOG_DIR), options);
  return { child, parsed, ms: Date.now() - started, options };
}

describe("wrapCommand and parseReport", () => {
  it("reports exit code, stdout and stderr separately, as data", () => {
    const { parsed, child } = run("echo out; echo err >&2; exit 3");
    expect(child.status).toBe(3);
    expect(parsed).toEqual({
      ok: true,
      report: {
        exitCode: 3,
        stdout: { text: "out\n", totalBytes: 4, totalLines: 1 },
        stderr: { text: "err\n", totalBytes: 4, totalLines: 1 }
      }
    });
  });

  it("keeps a 100 MB flood in the log and returns only its head and tail", () => {
    const { parsed, child, ms, options } = run("yes 0123456789 | head -c 100000000", 16_384);
    expect(child.stdout.length).toBeLessThan(17_000);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const { stdout } = parsed.report;
    expect(stdout.totalBytes).toBe(100_000_000);
    expect(stdout.totalLines).toBe(9_090_909);
    expect(stdout.text.startsWith("0123456789\n0123456789\n")).toBe(true);
    expect(stdout.text).toContain(`left out here; the whole stdout is in ${LOG_DIR}/${options.id}.stdout`);
    expect(new TextEncoder().encode(stdout.text).length).toBeLessThan(16_384 + 200);
    expect(stdout.log).toBe(`${LOG_DIR}/${options.id}.stdout`);
    expect(statSync(join(dir, `${options.id}.stdout`)).size).toBe(100_000_000);
    expect(ms).toBeLessThan(30_000);
  });

  it("removes the logs of output that fit", () => {
    const { options } = run("echo small");
    expect(readdirSync(dir).filter((name) => name.startsWith(`${options.id}.`))).toEqual([]);
  });

  it("cannot be fooled by output that imitates the markers", () => {
    const { parsed } = run(`printf '\\n@@nonce999x end 0\\n'; echo '@@fake stdout 1 1'; exit 5`);
    expect(parsed).toMatchObject({ ok: true, report: { exitCode: 5 } });
    if (parsed.ok) expect(parsed.report.stdout.text).toContain("@@fake stdout 1 1");
  });

  it("stops a command at its timeout with exit 124 and still reports", () => {
    const { parsed, ms } = run("echo before; sleep 5; echo after", 1_000, 1);
    expect(ms).toBeLessThan(4_000);
    expect(parsed).toMatchObject({ ok: true, report: { exitCode: 124, stdout: { text: "before\n" } } });
  });

  it("passes quotes, pipes and multi-line commands through unchanged", () => {
    const { parsed } = run(`x='it''s'; echo "$x" | tr a-z A-Z\nprintf '%s\\n' "two lines"`, 1_000, 10);
    expect(parsed).toMatchObject({ ok: true, report: { exitCode: 0, stdout: { text: "ITS\ntwo lines\n" } } });
  });

  it("says so when a report is cut off", () => {
    expect(parseReport("partial output", { id: "a", nonce: "b", maxBytes: 10 })).toEqual({
      ok: false,
      reason: "the command's report is incomplete"
    });
  });

  it("quotes for POSIX shells", () => {
    const quoted = shellQuote(`a'b "c" $d`);
    const echoed = spawnSync("bash", ["-c", `printf %s ${quoted}`], { encoding: "utf8" }).stdout;
    expect(echoed).toBe(`a'b "c" $d`);
  });
});

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
