/**
 * `npm run dispatch` end to end: the real CLI as a child process against a
 * real `wrangler dev`, checking what a developer sees and the exit codes.
 */
import { spawn } from "node:child_process";
import { dirname } from "node:path";
import { describe, expect } from "vitest";
import { freePort, ROOT, test } from "./fixture";
import { dispatch, freshIssueNumber, waitForSubmission } from "./dev-api";

type CliResult = { code: number | null; stdout: string; stderr: string };

const CLI_TIMEOUT_MS = 45_000;

function runCli(args: string[]): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn("npx", ["tsx", "scripts/dispatch.ts", ...args], {
      cwd: ROOT,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}`, AGENT_THINK_URL: "" },
      timeout: CLI_TIMEOUT_MS
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

describe("npm run dispatch", () => {
  test("follows a run to completion, printing only this run", async ({ server }) => {
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
    expect(lines).toContain("▸ exec  echo cli-ok");
    expect(lines).toContain("  ✓ exit 0 · cli-ok");
    expect(lines).toContain("all done");
    expect(lines.some((line) => /^✓ completed in \d+\.\d s$/.test(line))).toBe(true);
    expect(lines.filter((line) => line === `thread      ${server.url}/thread/${session}`)).toHaveLength(2);
    expect(result.stdout).not.toContain("earlier");
    // The call is printed before its result, and both before the final status.
    const order = ["▸ exec  echo cli-ok", "  ✓ exit 0 · cli-ok", "all done"].map((line) => lines.indexOf(line));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });

  test("a failed run prints its error and exits 1", async ({ server }) => {
    const result = await runCli([
      `acme/widgets#${freshIssueNumber()}`,
      "TEST: run cat /missing.txt\nTEST: fail the model gave up",
      "--url",
      server.url,
      "--comment-id",
      "77"
    ]);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(result.stdout).toContain("▸ exec  cat /missing.txt");
    expect(result.stdout).toMatch(/ {2}✗ exit 1 · cat: \/missing\.txt: No such file or directory/);
    expect(result.stdout).toMatch(/^✗ error.*: the model gave up$/m);
  });

  test("gives up after --timeout, saying so, and exits 1", async ({ server }) => {
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
