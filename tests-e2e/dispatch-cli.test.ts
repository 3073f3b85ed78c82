/**
 * `npm run dispatch` end to end: the real CLI as a child process against a
 * real `wrangler dev`, checking what a developer sees, when each line
 * arrives, and the exit codes.
 */
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { describe, expect } from "vitest";
import { freePort, ROOT, test } from "./fixture";
import { dispatch, freshIssueNumber, waitForSubmission } from "./dev-api";
import { SCRIPTED_NOTE } from "../scripts/lib/format-run";

/** A stdout line and when it arrived, in ms since the CLI was started. */
type CliLine = { text: string; atMs: number };
type CliResult = { code: number | null; stdout: string; stderr: string; lines: CliLine[]; exitedAtMs: number };

const CLI_TIMEOUT_MS = 45_000;

function runCli(args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    // What `npm run dispatch` runs, without npx's own start (about 0.4 CPU seconds a run).
    const child = spawn(join(ROOT, "node_modules", ".bin", "tsx"), ["scripts/dispatch.ts", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`, AGENT_THINK_URL: "" },
      timeout: CLI_TIMEOUT_MS
    });
    let stdout = "";
    let stderr = "";
    const lines: CliLine[] = [];
    let partial = "";
    child.stdout.on("data", (chunk: Buffer) => {
      const atMs = performance.now() - startedAt;
      const text = chunk.toString("utf8");
      stdout += text;
      const pieces = (partial + text).split("\n");
      partial = pieces.pop() ?? "";
      for (const piece of pieces) lines.push({ text: piece, atMs });
    });
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.once("error", reject);
    child.once("close", (code) =>
      resolve({ code, stdout, stderr, lines, exitedAtMs: performance.now() - startedAt })
    );
  });
}

/** When `text` was printed; it must have been printed exactly once. */
function printedAt(result: CliResult, text: string): number {
  const matches = result.lines.filter((line) => line.text === text);
  expect(matches, `"${text}" printed once in:\n${result.stdout}`).toHaveLength(1);
  return matches[0]!.atMs;
}

/**
 * A reverse proxy to `target` that passes plain HTTP and refuses WebSocket
 * upgrades, as a proxy without WebSocket support would.
 */
async function startProxyWithoutWebSockets(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const upstream = await fetch(`${target}${request.url ?? "/"}`, {
      method: request.method,
      headers: { "content-type": request.headers["content-type"] ?? "application/json" },
      body: chunks.length === 0 ? undefined : Buffer.concat(chunks)
    });
    response.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "text/plain" });
    response.end(Buffer.from(await upstream.arrayBuffer()));
  });
  server.on("upgrade", (_request, socket) => socket.end("HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\n\r\n"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve()))
  };
}

const SLOW_RUN = "TEST: run echo first\nTEST: sleep 1500\nTEST: run echo second\nTEST: reply done";
const SLOW_RUN_LINES = [
  "Running `echo first`.",
  "▸ bash  echo first",
  "  ✓ exit 0 · first",
  "Running `echo second`.",
  "▸ bash  echo second",
  "  ✓ exit 0 · second",
  "done"
];

describe("npm run dispatch", () => {
  test("follows a run to completion, printing only this run", async ({ sharedServer: server }) => {
    const issueNumber = freshIssueNumber();
    const session = `acme-widgets-${issueNumber}`;
    // An earlier turn in the same session must not be printed again.
    const earlier = await dispatch(server.url, {
      repo: "acme/widgets",
      issueNumber,
      instruction: "TEST: run echo earlier-turn\nTEST: reply earlier reply"
    });
    expect((await waitForSubmission(server.url, earlier)).submission.status).toBe("completed");

    const result = await runCli([
      `acme/widgets#${issueNumber}`,
      "TEST: run echo cli-ok\nTEST: reply all done",
      "--url",
      server.url
    ]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines).toContain(`session     ${session}`);
    expect(lines).toContain("▸ bash  echo cli-ok");
    expect(lines).toContain("  ✓ exit 0 · cli-ok");
    expect(lines).toContain("all done");
    expect(lines.some((line) => /^✓ completed in \d+\.\d s$/.test(line))).toBe(true);
    expect(lines.filter((line) => line === `thread      ${server.url}/thread/${session}`)).toHaveLength(2);
    // The run is on the scripted model, and the CLI says so under the final status.
    expect(lines.at(-3)).toBe(SCRIPTED_NOTE);
    expect(result.stdout).not.toContain("earlier");
    // The call is printed before its result, and both before the final status.
    const order = ["▸ bash  echo cli-ok", "  ✓ exit 0 · cli-ok", "all done"].map((line) => lines.indexOf(line));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  test("prints each tool call as it happens, and only this run's", async ({ sharedServer: server }) => {
    const issueNumber = freshIssueNumber();
    // Queued first and still running when the CLI connects: its stream is
    // offered to the CLI on connect and must not be printed.
    await dispatch(server.url, {
      repo: "acme/widgets",
      issueNumber,
      instruction: "TEST: run echo earlier-turn\nTEST: sleep 2000\nTEST: reply earlier reply"
    });

    const result = await runCli([`acme/widgets#${issueNumber}`, SLOW_RUN, "--url", server.url]);
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stderr).not.toContain("live updates");
    expect(result.stdout).not.toContain("earlier");

    const times = SLOW_RUN_LINES.map((line) => printedAt(result, line));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    const final = result.lines.find((line) => /^✓ completed in \d+\.\d s$/.test(line.text));
    expect(final, result.stdout).toBeDefined();
    // The first call is printed while the run still has 1.5 s of sleep ahead,
    // not in a burst when the transcript is saved at the end.
    expect(final!.atMs - printedAt(result, "▸ bash  echo first")).toBeGreaterThanOrEqual(1_000);
    expect(printedAt(result, "▸ bash  echo second") - printedAt(result, "  ✓ exit 0 · first")).toBeGreaterThanOrEqual(1_000);
    // The socket is closed when the run ends; it does not hold the CLI open.
    expect(result.exitedAtMs - final!.atMs).toBeLessThan(2_000);
  });

  test("follows by polling alone when the socket cannot connect", async ({ sharedServer: server }) => {
    const proxy = await startProxyWithoutWebSockets(server.url);
    try {
      const result = await runCli([`acme/widgets#${freshIssueNumber()}`, SLOW_RUN, "--url", proxy.url]);
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stderr).toMatch(/^dispatch: live updates unavailable \(.+\); the run prints when it ends$/m);
      const times = SLOW_RUN_LINES.map((line) => printedAt(result, line));
      expect(times).toEqual([...times].sort((a, b) => a - b));
      expect(result.stdout).toMatch(/^✓ completed in \d+\.\d s$/m);
    } finally {
      await proxy.close();
    }
  });

  test("a failed run prints its error and exits 1", async ({ sharedServer: server }) => {
    const result = await runCli([
      `acme/widgets#${freshIssueNumber()}`,
      "TEST: run cat /missing.txt\nTEST: fail the model gave up",
      "--url",
      server.url,
      "--comment-id",
      "77"
    ]);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toContain("▸ bash  cat /missing.txt");
    expect(result.stdout).toMatch(/ {2}✗ exit 1 · cat: \/missing\.txt: No such file or directory/);
    expect(result.stdout).toMatch(/^✗ error.*: the model gave up$/m);
  });

  test("gives up after --timeout, saying so, and exits 1", async ({ sharedServer: server }) => {
    const issueNumber = freshIssueNumber();
    const result = await runCli([
      `acme/widgets#${issueNumber}`,
      "TEST: sleep 4000\nTEST: reply too late",
      "--url",
      server.url,
      "--timeout",
      "1"
    ]);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toMatch(/^✗ timed out after 1 s; the run is still (pending|running)/m);
    expect(result.stdout).toContain(`thread      ${server.url}/thread/acme-widgets-${issueNumber}`);
  });

  test("says so when no server is listening", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    const result = await runCli(["acme/widgets#1", "--url", url]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot reach agent-think at ${url} (is \`npm start\` running?)`);
  });

  test("a bad issue reference is a usage error", async () => {
    const result = await runCli(["acme/widgets", "reproduce"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('"acme/widgets" is not an issue; write it as owner/repo#123');
    expect(result.stderr).toContain("usage: npm run dispatch --");
  });
});
