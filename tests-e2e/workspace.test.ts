/**
 * The workspace end to end on `wrangler dev --local`: a scripted turn writes,
 * edits, reads and runs a file through the real tools, the transcript shows
 * each call with its bounded output, and without a container engine the
 * container backend answers at once that it is unavailable. The real
 * container path runs only where a Docker engine is present.
 */
import { describe, expect } from "vitest";
import type { TranscriptMessage } from "../scripts/lib/dev-api";
import { lacks, needs } from "../test/support/external-tools";
import { startDevServer, test } from "./fixture";
import { dispatch, freshIssueNumber, waitForSubmission } from "./dev-api";

function toolParts(messages: TranscriptMessage[]) {
  return messages
    .filter((message) => message.role === "assistant")
    .flatMap((message) => message.parts)
    .filter((part) => part.type.startsWith("tool-"));
}

describe("the workspace", () => {
  test("a scripted turn writes, edits, reads and runs a file on the shell backend", async ({ sharedServer: server }) => {
    const run = await dispatch(server.url, {
      repo: "acme/widgets",
      issueNumber: freshIssueNumber(),
      instruction: [
        "TEST: write /workspace/app.sh echo 'version 1'",
        "TEST: edit /workspace/app.sh version 1 => version 2",
        "TEST: read /workspace/app.sh",
        "TEST: run bash /workspace/app.sh && for i in $(seq 1 3000); do echo line-$i; done",
        "TEST: reply ran it"
      ].join("\n")
    });
    const { submission, messages } = await waitForSubmission(server.url, run);
    expect(submission, server.output()).toMatchObject({ status: "completed" });

    const tools = toolParts(messages);
    expect(tools.map((part) => [part.type, part.state])).toEqual([
      ["tool-write", "output-available"],
      ["tool-edit", "output-available"],
      ["tool-read", "output-available"],
      ["tool-bash", "output-available"]
    ]);
    expect(JSON.stringify(tools[2]!.output)).toContain("version 2");
    const bash = tools[3]!.output as { exitCode: number; stdout: { text: string; totalBytes: number; log?: string } };
    expect(bash.exitCode).toBe(0);
    // 3,000 lines of output reach the transcript as a bounded head and tail.
    expect(bash.stdout.totalBytes).toBe(28_903);
    expect(new TextEncoder().encode(bash.stdout.text).length).toBeLessThan(17_000);
    expect(bash.stdout.text.startsWith("version 2\nline-1\n")).toBe(true);
    expect(bash.stdout.text.endsWith("line-3000\n")).toBe(true);
    expect(bash.stdout.text).toContain("left out here; the whole stdout is in /temp/agent-think/logs/");
    expect(bash.stdout.log).toMatch(/^\/temp\/agent-think\/logs\/.+\.stdout$/);
  });

  test("the container backend says at once that it is unavailable without a container engine", async ({ sharedServer: server }) => {
    const run = await dispatch(server.url, {
      repo: "acme/widgets",
      issueNumber: freshIssueNumber(),
      instruction: "TEST: container npm --version\nTEST: reply noted"
    });
    const started = Date.now();
    const { submission, messages } = await waitForSubmission(server.url, run);
    expect(submission).toMatchObject({ status: "completed" });
    expect(Date.now() - started).toBeLessThan(10_000);
    const [bash] = toolParts(messages);
    expect(bash).toMatchObject({
      type: "tool-bash",
      input: { command: "npm --version", backend: "container" },
      output: { backend: "container", error: expect.stringMatching(/^container backend unavailable/) }
    });
  });
});

describe(`a real container${needs("docker")}`, { skip: lacks("docker") }, () => {
  // wrangler dev builds the image from ./Dockerfile first: slow the first time.
  test("runs a command in the container backend", { timeout: 15 * 60_000 }, async () => {
    const server = await startDevServer({ localDev: true, containers: true, readyTimeoutMs: 15 * 60_000 });
    try {
      const run = await dispatch(server.url, {
        repo: "acme/widgets",
        issueNumber: freshIssueNumber(),
        instruction: "TEST: container node --version && echo from-the-container\nTEST: reply done"
      });
      const { submission, messages } = await waitForSubmission(server.url, run, { timeoutMs: 10 * 60_000 });
      expect(submission, server.output()).toMatchObject({ status: "completed" });
      const [bash] = toolParts(messages);
      expect(bash).toMatchObject({
        output: { backend: "container", exitCode: 0, stdout: { text: expect.stringMatching(/^v22\..*\nfrom-the-container\n$/s) } }
      });
    } finally {
      await server.stop();
    }
  });
});
