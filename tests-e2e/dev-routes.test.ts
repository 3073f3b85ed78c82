/**
 * The local dev surface end to end: a dispatched run goes through a real
 * Think turn with the scripted model and the VFS shell, and its transcript
 * comes back through /dev/messages.
 */
import { describe, expect } from "vitest";
import { parseEnvelope } from "../src/run/envelope";
import type { TranscriptMessage } from "../scripts/lib/dev-api";
import { test } from "./fixture";
import { dispatch, freshIssueNumber, readMessages, waitForSubmission } from "./dev-api";

describe("POST /dev/dispatch", () => {
  test("runs a whole scripted turn: the shell command, the reply and the run envelope", async ({ sharedServer: server }) => {
    const issueNumber = freshIssueNumber();
    const instruction = "TEST: run echo e2e-ok\nTEST: reply finished";
    const run = await dispatch(server.url, {
      repo: "acme/widgets",
      issueNumber,
      instruction,
      issueTitle: "Widgets wobble",
      requestedBy: { login: "octocat" }
    });
    expect(run.session).toBe(`acme-widgets-${issueNumber}`);
    expect(run.threadUrl).toBe(`${server.url}/thread/${run.session}`);

    const { submission, messages } = await waitForSubmission(server.url, run);
    expect(submission, server.output()).toMatchObject({ status: "completed" });
    expect(submission.completedAt).toBeGreaterThanOrEqual(submission.startedAt!);
    expect(messages.map((message) => message.role)).toEqual(["user", "assistant"]);

    const [user, assistant] = messages as [TranscriptMessage, TranscriptMessage];
    const userText = user.parts.find((part) => part.type === "text")?.text;
    expect(userText).toMatch(/^<agent-think-run>\n/);
    expect(parseEnvelope(String(userText))).toMatchObject({
      repository: "acme/widgets",
      issue: { number: issueNumber, title: "Widgets wobble", url: `https://github.com/acme/widgets/issues/${issueNumber}` },
      instruction,
      requestedBy: { login: "octocat" },
      session: run.session
    });

    const toolParts = assistant.parts.filter((part) => part.type.startsWith("tool-"));
    expect(toolParts).toHaveLength(1);
    expect(toolParts[0]).toMatchObject({
      type: "tool-bash",
      state: "output-available",
      input: { command: "echo e2e-ok" },
      output: { backend: "shell", exitCode: 0, stdout: { text: "e2e-ok\n" }, stderr: { text: "" } }
    });
    const texts = assistant.parts.filter((part) => part.type === "text").map((part) => part.text);
    expect(texts.at(-1)).toBe("finished");
  });

  test("the same comment id twice is one submission and one turn", async ({ sharedServer: server }) => {
    const body = {
      repo: "acme/widgets",
      issueNumber: freshIssueNumber(),
      instruction: "TEST: run echo once\nTEST: reply done",
      commentId: 424242
    };
    const first = await dispatch(server.url, body);
    const second = await dispatch(server.url, body);
    expect(second).toEqual(first);

    const { submission, messages } = await waitForSubmission(server.url, first);
    expect(submission.status).toBe("completed");
    // Redelivery started nothing new: one user message (named after the comment), one answer.
    expect(messages.map((message) => [message.role, message.role === "user" ? message.id : "…"])).toEqual([
      ["user", "comment-424242"],
      ["assistant", "…"]
    ]);
    const third = await dispatch(server.url, body);
    expect(third.submissionId).toBe(first.submissionId);
    expect((await readMessages(server.url, first.session)).messages).toHaveLength(2);
  });

  test("a bad input is a 400 naming the field, and nothing is written", async ({ sharedServer: server }) => {
    const issueNumber = freshIssueNumber();
    const response = await fetch(`${server.url}/dev/dispatch`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ repo: "acme/widgets", issueNumber, commentId: -1 })
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/commentId/) });
    expect((await readMessages(server.url, `acme-widgets-${issueNumber}`)).messages).toEqual([]);
  });
});

describe("routing", () => {
  test("an unknown path is a plain 404", async ({ sharedServer: server }) => {
    for (const path of ["/nope", "/thread-ish/x", "/dev/nope"]) {
      const response = await fetch(`${server.url}${path}`);
      expect(response.status, path).toBe(404);
      expect(await response.text(), path).toBe("not found");
    }
  });
});
