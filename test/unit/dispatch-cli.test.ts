/**
 * The pure parts of `npm run dispatch` and `npm start`: argument parsing,
 * picking one run's messages out of a session's transcript, the events a
 * follower prints once, the agent socket's frames and the live events in
 * them, how they read, and the wrangler command line. The socket follower
 * runs against a fake socket that records what it was sent.
 */
import { describe, expect, it } from "vitest";
import { formatEnvelope } from "../../src/run/envelope";
import {
  DEFAULT_BASE_URL,
  DEFAULT_INSTRUCTION,
  DEFAULT_TIMEOUT_SECONDS,
  parseDispatchArgs,
  parseTarget
} from "../../scripts/lib/dispatch-args";
import type { SubmissionStatus, TranscriptMessage } from "../../scripts/lib/dev-api";
import { clip, formatEvent, formatFinal, MAX_LINE_CHARS, SCRIPTED_NOTE } from "../../scripts/lib/format-run";
import { isScriptedEvent, runEvents, runMessages, takeUnseen, type RunAnchor, type RunEvent } from "../../scripts/lib/run-events";
import { planScript } from "../../src/model/script";
import { agentSocketUrl, parseAgentFrame, resumeAckFrame, type AgentFrame } from "../../scripts/lib/agent-frames";
import { LiveRun } from "../../scripts/lib/live-run";
import { openAgentSocket, type SocketEvent, type SocketLike } from "../../scripts/lib/agent-socket";
import { findReadyUrl, parsePort, startBanner, wranglerDevArgs } from "../../scripts/lib/wrangler-dev";

describe("parseDispatchArgs", () => {
  const run = (argv: string[], env = {}) => {
    const parsed = parseDispatchArgs(argv, env, () => 1_234);
    if (!parsed.ok || parsed.kind !== "run") throw new Error(`expected a run, got ${JSON.stringify(parsed)}`);
    return parsed.args;
  };
  const error = (argv: string[], env = {}) => {
    const parsed = parseDispatchArgs(argv, env);
    if (parsed.ok) throw new Error(`expected an error, got ${JSON.stringify(parsed)}`);
    return parsed.error;
  };

  it("takes the issue and defaults the rest, with a new comment id so the run gets its 🚀", () => {
    expect(run(["acme/widgets#7"])).toEqual({
      request: { repo: "acme/widgets", issueNumber: 7, instruction: DEFAULT_INSTRUCTION, commentId: 1_234 },
      baseUrl: DEFAULT_BASE_URL,
      timeoutSeconds: DEFAULT_TIMEOUT_SECONDS
    });
  });

  it("takes a new comment id from the clock for each dispatch", () => {
    const before = Date.now();
    const parsed = parseDispatchArgs(["acme/widgets#7"]);
    if (!parsed.ok || parsed.kind !== "run") throw new Error(JSON.stringify(parsed));
    expect(parsed.args.request.commentId).toBeGreaterThanOrEqual(before);
    expect(parsed.args.request.commentId).toBeLessThanOrEqual(Date.now());
    expect(Number.isSafeInteger(parsed.args.request.commentId)).toBe(true);
  });

  it("takes the instruction and every option, in any order and in both spellings", () => {
    expect(
      run([
        "--url",
        "http://localhost:9000/",
        "Acme-Co/wid.gets_2#123",
        "--comment-id=42",
        "open a PR fixing this",
        "--timeout",
        "12.5",
        "--title",
        "Widgets wobble"
      ])
    ).toEqual({
      request: {
        repo: "Acme-Co/wid.gets_2",
        issueNumber: 123,
        instruction: "open a PR fixing this",
        commentId: 42,
        issueTitle: "Widgets wobble"
      },
      baseUrl: "http://localhost:9000",
      timeoutSeconds: 12.5
    });
  });

  it("joins an unquoted instruction and keeps one that looks like an option after --", () => {
    expect(run(["a/b#1", "reproduce", "this", "issue"]).request.instruction).toBe("reproduce this issue");
    expect(run(["a/b#1", "--", "--help me"]).request.instruction).toBe("--help me");
  });

  it("reads the base URL from AGENT_THINK_URL unless --url is given", () => {
    expect(run(["a/b#1"], { AGENT_THINK_URL: "https://agent.example.com" }).baseUrl).toBe("https://agent.example.com");
    expect(run(["a/b#1"], { AGENT_THINK_URL: "" }).baseUrl).toBe(DEFAULT_BASE_URL);
    expect(run(["a/b#1", "--url", "http://127.0.0.1:1234"], { AGENT_THINK_URL: "https://x.test" }).baseUrl).toBe(
      "http://127.0.0.1:1234"
    );
    expect(error(["a/b#1"], { AGENT_THINK_URL: "ftp://x" })).toMatch(/^AGENT_THINK_URL must be an http\(s\) URL/);
  });

  it("asks for help", () => {
    expect(parseDispatchArgs(["--help"])).toEqual({ ok: true, kind: "help" });
    expect(parseDispatchArgs(["a/b#1", "-h"])).toEqual({ ok: true, kind: "help" });
  });

  it.each([
    [[], "missing the issue, e.g. acme/widgets#7"],
    [["acme/widgets"], '"acme/widgets" is not an issue; write it as owner/repo#123'],
    [["acme/widgets#"], '"acme/widgets#" is not an issue; write it as owner/repo#123'],
    [["acme/widgets#0"], '"0" is not an issue number'],
    [["acme/widgets#99999999999999999999"], '"99999999999999999999" is not an issue number'],
    [["acme#7"], '"acme" is not a repository: must be "owner/name"'],
    [["-acme/widgets#7"], "unknown option -acme/widgets#7"],
    [["acme_x/widgets#7"], '"acme_x/widgets" is not a repository: owner must be an Enterprise Managed User\'s handle_shortcode, with a short code of 3-8 letters or digits'],
    [["a/b#1", "   "], "the instruction must not be empty"],
    [["a/b#1", "x".repeat(8_001)], "the instruction must be at most 8000 characters"],
    [["a/b#1", "--comment-id", "-3"], '--comment-id must be a positive integer, got "-3"'],
    [["a/b#1", "--comment-id", "1.5"], '--comment-id must be a positive integer, got "1.5"'],
    [["a/b#1", "--timeout", "0"], '--timeout must be a positive number of seconds, got "0"'],
    [["a/b#1", "--timeout", "soon"], '--timeout must be a positive number of seconds, got "soon"'],
    [["a/b#1", "--url", "localhost:8787"], "--url must be an http(s) URL such as http://127.0.0.1:8787"],
    [["a/b#1", "--title", ""], "--title must not be empty"],
    [["a/b#1", "--timeout"], "--timeout needs a value"],
    [["a/b#1", "--verbose"], "unknown option --verbose"]
  ])("rejects %j", (argv, message) => {
    expect(error(argv)).toBe(message);
  });

  it("parses a target on its own", () => {
    expect(parseTarget("cloudflare/agents#1859")).toEqual({ ok: true, repo: "cloudflare/agents", issueNumber: 1859 });
  });
});

const part = (fields: Record<string, unknown> & { type: string }) => fields;
const userMessage = (id: string, instruction: string): TranscriptMessage => ({
  id,
  role: "user",
  parts: [
    {
      type: "text",
      text: `${formatEnvelope({
        repository: "acme/widgets",
        issue: { number: 7, url: "https://github.com/acme/widgets/issues/7" },
        instruction,
        session: "acme-widgets-7",
        submittedAt: "2026-01-01T00:00:00.000Z"
      })}\n\nA maintainer asked about acme/widgets#7.`
    }
  ]
});
const assistantMessage = (id: string, ...parts: TranscriptMessage["parts"]): TranscriptMessage => ({
  id,
  role: "assistant",
  parts
});

describe("runMessages", () => {
  const earlier = [userMessage("u1", "reproduce this issue"), assistantMessage("a1", part({ type: "text", text: "old" }))];
  const anchor = (fields: Partial<RunAnchor> = {}): RunAnchor => ({
    instruction: "reproduce this issue",
    knownMessageIds: new Set(["u1", "a1"]),
    ...fields
  });

  it("is null until the run's user message is in the transcript", () => {
    expect(runMessages(earlier, anchor())).toBeNull();
  });

  it("never takes an earlier turn with the same instruction", () => {
    const transcript = [...earlier, userMessage("u2", "reproduce this issue"), assistantMessage("a2")];
    expect(runMessages(transcript, anchor())?.map((message) => message.id)).toEqual(["a2"]);
  });

  it("stops at the next user message, which is another run", () => {
    const transcript = [
      ...earlier,
      userMessage("u2", "reproduce this issue"),
      assistantMessage("a2"),
      userMessage("u3", "open a PR"),
      assistantMessage("a3")
    ];
    expect(runMessages(transcript, anchor())?.map((message) => message.id)).toEqual(["a2"]);
  });

  it("skips a new run with another instruction", () => {
    const transcript = [...earlier, userMessage("u2", "open a PR"), assistantMessage("a2"), userMessage("u3", "reproduce this issue")];
    expect(runMessages(transcript, anchor())).toEqual([]);
  });

  it("finds a comment's run by its message id, even when it was there before (a redelivery)", () => {
    const transcript = [userMessage("comment-42", "reproduce this issue"), assistantMessage("a1"), ...earlier];
    const messages = runMessages(transcript, anchor({ commentId: 42, knownMessageIds: new Set(["comment-42", "a1"]) }));
    expect(messages?.map((message) => message.id)).toEqual(["a1"]);
  });

  it("ignores a user message without an envelope", () => {
    const plain: TranscriptMessage = { id: "u2", role: "user", parts: [{ type: "text", text: "reproduce this issue" }] };
    expect(runMessages([...earlier, plain], anchor())).toBeNull();
  });
});

describe("runEvents", () => {
  const exec = (state: string, extra: Record<string, unknown> = {}) =>
    part({ type: "tool-exec", toolCallId: "c1", toolName: "exec", state, input: { command: "echo hi" }, ...extra });

  it("lists text, tool calls and results in order, with stable keys", () => {
    const events = runEvents([
      userMessage("u1", "x"),
      assistantMessage(
        "a1",
        part({ type: "step-start" }),
        part({ type: "text", text: "Running it.", state: "done" }),
        exec("output-available", { output: { exitCode: 0, stdout: "hi\n", stderr: "" } }),
        part({ type: "reasoning", text: "hmm" }),
        part({ type: "dynamic-tool", toolName: "mcp_search", toolCallId: "c2", state: "output-error", input: {}, errorText: "nope" }),
        part({ type: "text", text: "done" })
      )
    ]);
    expect(events).toEqual([
      { key: "text:0:Running it.", kind: "text", text: "Running it." },
      { key: "call:c1", kind: "tool-call", toolName: "exec", input: { command: "echo hi" } },
      { key: "result:c1", kind: "tool-result", toolName: "exec", output: { exitCode: 0, stdout: "hi\n", stderr: "" } },
      { key: "call:c2", kind: "tool-call", toolName: "mcp_search", input: {} },
      { key: "result:c2", kind: "tool-error", toolName: "mcp_search", error: "nope" },
      { key: "text:0:done", kind: "text", text: "done" }
    ]);
  });

  it("holds back text still streaming and tool input still streaming", () => {
    const events = runEvents([
      assistantMessage(
        "a1",
        part({ type: "text", text: "Runn", state: "streaming" }),
        part({ type: "tool-exec", toolCallId: "c1", state: "input-streaming", input: { command: "ec" } }),
        part({ type: "text", text: "  " })
      )
    ]);
    expect(events).toEqual([]);
  });

  it("keys a text by its content and how often it came before, across the run's messages", () => {
    const events = runEvents([
      assistantMessage("a1", part({ type: "text", text: "Checking." }), part({ type: "text", text: " Checking.\n" })),
      assistantMessage("a2", part({ type: "text", text: "Checking." }))
    ]);
    expect(events.map((event) => event.key)).toEqual(["text:0:Checking.", "text:1:Checking.", "text:2:Checking."]);
  });

  it("a follower prints a call when it starts and its result once it settles, each once", () => {
    const printed = new Set<string>();
    const snapshot = (toolPart: Record<string, unknown> & { type: string }) => runEvents([assistantMessage("a1", toolPart)]);
    const kinds = (events: RunEvent[]) => events.map((event) => event.kind);

    expect(kinds(takeUnseen(snapshot(exec("input-available")), printed))).toEqual(["tool-call"]);
    expect(kinds(takeUnseen(snapshot(exec("input-available")), printed))).toEqual([]);
    const settled = exec("output-available", { output: { exitCode: 0, stdout: "hi\n", stderr: "" } });
    expect(kinds(takeUnseen(snapshot(settled), printed))).toEqual(["tool-result"]);
    expect(kinds(takeUnseen(snapshot(settled), printed))).toEqual([]);
  });
});

describe("formatEvent", () => {
  const call = (toolName: string, input: unknown) => formatEvent({ key: "k", kind: "tool-call", toolName, input });
  const result = (output: unknown) => formatEvent({ key: "k", kind: "tool-result", toolName: "t", output });

  it("shows a tool call by its command or path", () => {
    expect(call("exec", { command: "echo hello" })).toBe("▸ exec  echo hello");
    expect(call("exec", { command: "set -e\n  npm test" })).toBe("▸ exec  set -e ↵ npm test");
    expect(call("read", { path: "/workspace/a.txt" })).toBe("▸ read  /workspace/a.txt");
    expect(call("write", { path: "/workspace/é.txt", content: "héllo" })).toBe("▸ write  /workspace/é.txt (6 bytes)");
    expect(call("grep", { pattern: "x", limit: 3 })).toBe('▸ grep  {"pattern":"x","limit":3}');
  });

  it("shows a command's exit code and first line of output", () => {
    expect(result({ exitCode: 0, stdout: "hello\nworld\n", stderr: "" })).toBe("  ✓ exit 0 · hello");
    expect(result({ exitCode: 0, stdout: "", stderr: "" })).toBe("  ✓ exit 0");
    expect(result({ exitCode: 2, stdout: "partial\n", stderr: "\nboom: no such file\nmore" })).toBe(
      "  ✗ exit 2 · boom: no such file"
    );
    expect(result({ exitCode: 1, stdout: "only stdout", stderr: "" })).toBe("  ✗ exit 1 · only stdout");
  });

  it("shows other tools' results and errors briefly", () => {
    expect(result({ error: "File not found: /x" })).toBe("  ✗ File not found: /x");
    expect(result({ path: "/a", bytesWritten: 11 })).toBe("  ✓ 11 bytes written");
    expect(result({ path: "/a", content: "first\nsecond", totalLines: 2 })).toBe("  ✓ 2 lines · first");
    expect(result({ path: "/", count: 2, entries: [{}, {}] })).toBe("  ✓ 2 entries");
    expect(result("plain text\nmore")).toBe("  ✓ plain text");
    expect(result({ ok: true })).toBe('  ✓ {"ok":true}');
    expect(formatEvent({ key: "k", kind: "tool-error", toolName: "t", error: "\nbad input\nstack" })).toBe("  ✗ bad input");
  });

  it("keeps lines short", () => {
    const line = call("exec", { command: `echo ${"x".repeat(500)}` });
    expect([...line]).toHaveLength(MAX_LINE_CHARS);
    expect(line.endsWith("…")).toBe(true);
    expect(clip("short")).toBe("short");
  });

  it("prints assistant text as written", () => {
    expect(formatEvent({ key: "k", kind: "text", text: "\nLine one.\nLine two.\n" })).toBe("Line one.\nLine two.");
  });
});

describe("isScriptedEvent", () => {
  it("knows the scripted model by its tool call ids and by the demonstration's summary", () => {
    expect(isScriptedEvent({ key: "call:scripted-1xr452v-1", kind: "tool-call", toolName: "bash", input: {} })).toBe(true);
    expect(isScriptedEvent({ key: "result:scripted-1xr452v-1", kind: "tool-result", toolName: "bash", output: {} })).toBe(true);
    const demoResult = planScript("reproduce this issue").find((step) => step.kind === "tool" && step.toolName === "report_result")!;
    expect(isScriptedEvent({ key: "call:call_abc", kind: "tool-call", toolName: "report_result", input: (demoResult as { input: unknown }).input })).toBe(true);
  });

  it("takes a model's calls, and text that only talks about scripts, for a model's", () => {
    expect(isScriptedEvent({ key: "call:call_abc", kind: "tool-call", toolName: "bash", input: { command: "echo scripted-" } })).toBe(false);
    expect(isScriptedEvent({ key: "call:toolu_01", kind: "tool-call", toolName: "report_result", input: { outcome: "reproduced", summary: "It crashes." } })).toBe(false);
    expect(isScriptedEvent({ key: "text:0:scripted-1", kind: "text", text: "scripted-1" })).toBe(false);
  });

  it("says under the final status that no model ran", () => {
    expect(SCRIPTED_NOTE).toMatch(/^scripted model: a demonstration, no model ran/);
  });
});

describe("formatFinal", () => {
  const status = (fields: Partial<SubmissionStatus>): SubmissionStatus => ({
    status: "completed",
    createdAt: 1_000,
    startedAt: 1_000,
    completedAt: 2_250,
    ...fields
  });

  it("says how the run ended, with its error", () => {
    expect(formatFinal(status({}))).toBe("✓ completed in 1.3 s");
    expect(formatFinal(status({ status: "error", error: "kaput\nat line 3" }))).toBe("✗ error in 1.3 s: kaput");
    expect(formatFinal({ status: "aborted", createdAt: 1 })).toBe("✗ aborted");
  });
});

// Frames as Think 0.23 sends them on `wrangler dev` (recorded from a real run).
const OURS = "00581553-5a1b-4418-a439-3f0ee6fa9817";
const EARLIER = "a82bf505-6a1a-46f6-a9bd-8650f54334b0";
const chunkFrame = (id: string, seq: number, chunk: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: "cf_agent_use_chat_response", id, body: JSON.stringify(chunk), done: false, seq, ...extra });
const doneFrame = (id: string, outcome = "completed") =>
  JSON.stringify({ type: "cf_agent_use_chat_response", id, body: "", done: true, outcome });
const execOutput = (command: string, stdout: string) => ({ command, cwd: null, backend: "shell", exitCode: 0, stdout, stderr: "" });
/** One scripted step as streamed: text, then a tool call and its result. */
const stepChunks = (textId: string, say: string, callId: string, command: string, stdout: string) => [
  { type: "start-step" },
  { type: "text-start", id: textId },
  { type: "text-delta", id: textId, delta: say },
  { type: "text-end", id: textId },
  { type: "tool-input-available", toolCallId: callId, toolName: "exec", input: { command } },
  { type: "tool-output-available", toolCallId: callId, output: execOutput(command, stdout) },
  { type: "finish-step" }
];
const streamFrames = (id: string, chunks: Record<string, unknown>[]) => chunks.map((chunk, seq) => chunkFrame(id, seq, chunk));
const ourChunks = [
  { type: "start", messageId: "1effa8d6-35d6-489a-9b93-779ca0d4467b" },
  ...stepChunks("t", "Running `echo first`.", "scripted-1xr452v-1", "echo first", "first\n"),
  ...stepChunks("aitxt-U", "Running `echo second`.", "scripted-1xr452v-2", "echo second", "second\n"),
  { type: "start-step" },
  { type: "text-start", id: "aitxt-K" },
  { type: "text-delta", id: "aitxt-K", delta: "do" },
  { type: "text-delta", id: "aitxt-K", delta: "ne" },
  { type: "text-end", id: "aitxt-K" },
  { type: "finish-step" },
  { type: "finish", finishReason: "stop" }
];
const earlierChunks = [
  { type: "start", messageId: "3f343163-e34e-4075-aca1-b7144c24e5d9" },
  ...stepChunks("t", "Running `echo earlier`.", "scripted-1s9q7v9-1", "echo earlier", "earlier\n")
];
/** The same run as the poll reads it once the turn has saved its message. */
const ourPersisted: TranscriptMessage = assistantMessage(
  "1effa8d6-35d6-489a-9b93-779ca0d4467b",
  part({ type: "step-start" }),
  part({ type: "text", text: "Running `echo first`.", state: "done" }),
  exec2("scripted-1xr452v-1", "echo first", "first\n"),
  part({ type: "step-start" }),
  part({ type: "text", text: "Running `echo second`.", state: "done" }),
  exec2("scripted-1xr452v-2", "echo second", "second\n"),
  part({ type: "step-start" }),
  part({ type: "text", text: "done", state: "done" })
);
function exec2(toolCallId: string, command: string, stdout: string) {
  return part({ type: "tool-exec", toolCallId, state: "output-available", input: { command }, output: execOutput(command, stdout) });
}
const feed = (run: LiveRun, frames: string[]) => frames.flatMap((frame) => run.accept(parseAgentFrame(frame)));
const lines = (events: RunEvent[]) => events.map(formatEvent);

describe("parseAgentFrame", () => {
  it("reads a live chunk and a replayed one", () => {
    expect(parseAgentFrame(chunkFrame(OURS, 5, { type: "tool-input-available", toolCallId: "c1", toolName: "exec", input: {} }))).toEqual({
      kind: "chunk",
      requestId: OURS,
      chunk: { type: "tool-input-available", toolCallId: "c1", toolName: "exec", input: {} },
      seq: 5,
      replay: false
    });
    expect(parseAgentFrame(chunkFrame(OURS, 0, { type: "start" }, { replay: true }))).toMatchObject({ kind: "chunk", seq: 0, replay: true });
  });

  it("reads how a request's stream ended, and a stream error", () => {
    expect(parseAgentFrame(doneFrame(OURS))).toEqual({ kind: "end", requestId: OURS, outcome: "completed" });
    expect(parseAgentFrame(doneFrame(OURS, "recovering"))).toEqual({ kind: "end", requestId: OURS, outcome: "recovering" });
    const bare = JSON.stringify({ type: "cf_agent_use_chat_response", id: OURS, body: "", done: true });
    expect(parseAgentFrame(bare)).toEqual({ kind: "end", requestId: OURS, outcome: "completed" });
    const failed = { type: "cf_agent_use_chat_response", id: OURS, body: "the model gave up", error: true };
    expect(parseAgentFrame(JSON.stringify({ ...failed, done: false }))).toEqual({ kind: "error", requestId: OURS, error: "the model gave up" });
    expect(parseAgentFrame(JSON.stringify({ ...failed, done: true }))).toEqual({
      kind: "end",
      requestId: OURS,
      outcome: "error",
      error: "the model gave up"
    });
  });

  it("reads a resume offer", () => {
    expect(parseAgentFrame(JSON.stringify({ type: "cf_agent_stream_resuming", id: EARLIER }))).toEqual({ kind: "resuming", requestId: EARLIER });
  });

  it.each([
    ["the end of a replay", JSON.stringify({ type: "cf_agent_use_chat_response", id: OURS, body: "", done: false, replay: true, replayComplete: true })],
    ["the transcript", JSON.stringify({ type: "cf_agent_chat_messages", messages: [], connect: true })],
    ["the identity", JSON.stringify({ type: "cf_agent_identity", name: "acme-widgets-7", agent: "think-agent" })],
    ["a keep-waiting frame", JSON.stringify({ type: "cf_agent_stream_pending", id: OURS })],
    ["a body that is not a chunk", JSON.stringify({ type: "cf_agent_use_chat_response", id: OURS, body: "[1]", done: false })],
    ["a response without an id", JSON.stringify({ type: "cf_agent_use_chat_response", body: "{}", done: false })],
    ["text that is not JSON", "hello"],
    ["a binary frame", new ArrayBuffer(4)]
  ])("ignores %s", (_name, data) => {
    expect(parseAgentFrame(data)).toEqual({ kind: "ignored" });
  });

  it("acknowledges a resume offer by its request id", () => {
    expect(JSON.parse(resumeAckFrame(OURS))).toEqual({ type: "cf_agent_stream_resume_ack", id: OURS });
  });

  it("finds a session's socket under the server's base URL", () => {
    expect(agentSocketUrl("http://127.0.0.1:8787", "acme-widgets-7")).toBe("ws://127.0.0.1:8787/agents/think-agent/acme-widgets-7");
    expect(agentSocketUrl("https://agent.example.com/", "a-b-1")).toBe("wss://agent.example.com/agents/think-agent/a-b-1");
  });
});

describe("LiveRun", () => {
  it("prints only this run's text, calls and results, as they stream, the way the poll prints them", () => {
    const run = new LiveRun(OURS);
    const frames = [...streamFrames(EARLIER, earlierChunks), doneFrame(EARLIER), ...streamFrames(OURS, ourChunks)];
    const events = feed(run, frames);
    expect(lines(events)).toEqual([
      "Running `echo first`.",
      "▸ exec  echo first",
      "  ✓ exit 0 · first",
      "Running `echo second`.",
      "▸ exec  echo second",
      "  ✓ exit 0 · second",
      "done"
    ]);
    expect(events).toEqual(runEvents([ourPersisted]));
  });

  it("prints a call as soon as its input is available, before its result exists", () => {
    const run = new LiveRun(OURS);
    const upToCall = streamFrames(OURS, ourChunks).slice(0, 6);
    expect(lines(feed(run, upToCall))).toEqual(["Running `echo first`.", "▸ exec  echo first"]);
  });

  it("leaves nothing for the poll to print twice", () => {
    const printed = new Set<string>();
    takeUnseen(feed(new LiveRun(OURS), streamFrames(OURS, ourChunks)), printed);
    expect(takeUnseen(runEvents([ourPersisted]), printed)).toEqual([]);
  });

  it("applies a replay once, whether it comes before live chunks or repeats them", () => {
    const run = new LiveRun(OURS);
    const all = streamFrames(OURS, ourChunks);
    const replayed = (frames: string[]) => frames.map((frame) => JSON.stringify({ ...JSON.parse(frame), replay: true }));
    // Joined mid-turn: the replay brings the first step, live chunks the rest.
    const first = feed(run, [...replayed(all.slice(0, 9)), ...all.slice(9)]);
    expect(first).toEqual(runEvents([ourPersisted]));
    // A second acknowledgement replays the same chunks again.
    expect(feed(run, replayed(all))).toEqual([]);
  });

  it("leaves a result whose call it did not see to the poll, so the two print in order", () => {
    const run = new LiveRun(OURS);
    const joinedLate = streamFrames(OURS, ourChunks).slice(6);
    expect(lines(feed(run, joinedLate))).toEqual(["Running `echo second`.", "▸ exec  echo second", "  ✓ exit 0 · second", "done"]);
  });

  it("prints tool errors and denials, and skips preliminary outputs", () => {
    const run = new LiveRun(OURS);
    const call = (toolCallId: string) => ({ type: "tool-input-available", toolCallId, toolName: "read", input: { path: "/x" } });
    const events = feed(
      run,
      streamFrames(OURS, [
        call("c1"),
        { type: "tool-output-available", toolCallId: "c1", output: { content: "partial" }, preliminary: true },
        { type: "tool-output-error", toolCallId: "c1", errorText: "File not found: /x\nat read" },
        call("c2"),
        { type: "tool-output-denied", toolCallId: "c2" },
        { type: "tool-input-error", toolCallId: "c3", toolName: "write", input: { path: 3 }, errorText: "path must be a string" }
      ])
    );
    expect(events.map((event) => [event.key, formatEvent(event)])).toEqual([
      ["call:c1", "▸ read  /x"],
      ["result:c1", "  ✗ File not found: /x"],
      ["call:c2", "▸ read  /x"],
      ["result:c2", "  ✗ denied"],
      ["call:c3", '▸ write  {"path":3}'],
      ["result:c3", "  ✗ path must be a string"]
    ]);
  });

  it("leaves how the stream ended to the poll's final status", () => {
    const run = new LiveRun(OURS);
    const failed = { type: "cf_agent_use_chat_response", id: OURS, body: "the model gave up", error: true, done: false };
    expect(feed(run, [JSON.stringify(failed), doneFrame(OURS, "error"), doneFrame(OURS)])).toEqual([]);
  });
});

/** A socket that records what it was sent; the test plays the server. */
class FakeSocket implements SocketLike {
  readonly sent: string[] = [];
  readonly closes: Array<[number | undefined, string | undefined]> = [];
  readonly #listeners = new Map<string, Array<(event: SocketEvent) => void>>();

  addEventListener(type: string, listener: (event: SocketEvent) => void): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener]);
  }
  send(data: string): void {
    this.sent.push(data);
  }
  close(code?: number, reason?: string): void {
    this.closes.push([code, reason]);
  }
  emit(type: string, fields: Omit<SocketEvent, "type"> = {}): void {
    for (const listener of this.#listeners.get(type) ?? []) listener({ type, ...fields });
  }
}

describe("openAgentSocket", () => {
  const open = (fake: FakeSocket, connectTimeoutMs = 1_000) =>
    openAgentSocket({ url: "ws://127.0.0.1:1/agents/think-agent/a-b-1", connectTimeoutMs, createSocket: () => fake });

  it("hands over frames that came before the listener, acknowledges resume offers, and closes normally", async () => {
    const fake = new FakeSocket();
    const opening = open(fake);
    fake.emit("open");
    const opened = await opening;
    if (!opened.ok) throw new Error(opened.reason);

    fake.emit("message", { data: JSON.stringify({ type: "cf_agent_identity", name: "a-b-1" }) });
    fake.emit("message", { data: JSON.stringify({ type: "cf_agent_stream_resuming", id: EARLIER }) });
    fake.emit("message", { data: chunkFrame(OURS, 0, { type: "start" }) });
    expect(fake.sent.map((frame) => JSON.parse(frame))).toEqual([{ type: "cf_agent_stream_resume_ack", id: EARLIER }]);

    const frames: AgentFrame[] = [];
    const drops: string[] = [];
    opened.socket.listen((frame) => frames.push(frame), (reason) => drops.push(reason));
    fake.emit("message", { data: doneFrame(OURS) });
    expect(frames.map((frame) => frame.kind)).toEqual(["resuming", "chunk", "end"]);

    opened.socket.close();
    opened.socket.close();
    fake.emit("close", { code: 1000, reason: "" });
    expect(fake.closes).toEqual([[1000, "run followed"]]);
    expect(drops).toEqual([]);
  });

  it("reports a drop once, even one that came before the listener", async () => {
    const fake = new FakeSocket();
    const opening = open(fake);
    fake.emit("open");
    const opened = await opening;
    if (!opened.ok) throw new Error(opened.reason);
    fake.emit("close", { code: 1006, reason: "" });
    fake.emit("error", { message: "socket hang up" });
    const drops: string[] = [];
    opened.socket.listen(() => {}, (reason) => drops.push(reason));
    expect(drops).toEqual(["connection closed (code 1006)"]);
    expect(fake.closes).toEqual([]);
  });

  it("gives up without throwing when the socket errors, closes, never opens or cannot be made", async () => {
    const erroring = new FakeSocket();
    const failed = open(erroring);
    erroring.emit("error", { message: "connect ECONNREFUSED 127.0.0.1:1" });
    expect(await failed).toEqual({ ok: false, reason: "connect ECONNREFUSED 127.0.0.1:1" });

    const refused = new FakeSocket();
    const closed = open(refused);
    refused.emit("close", { code: 1006, reason: "" });
    expect(await closed).toEqual({ ok: false, reason: "connection closed (code 1006)" });

    const silent = new FakeSocket();
    expect(await open(silent, 20)).toEqual({ ok: false, reason: "no connection after 20 ms" });
    expect(silent.closes).toHaveLength(1);

    const unmade = openAgentSocket({
      url: "ws://x",
      connectTimeoutMs: 1_000,
      createSocket: () => {
        throw new SyntaxError("Invalid URL");
      }
    });
    expect(await unmade).toEqual({ ok: false, reason: "Invalid URL" });
  });
});

describe("npm start helpers", () => {
  it("builds the wrangler dev command line", () => {
    expect(wranglerDevArgs({ port: 8787, localDev: true })).toEqual([
      "dev",
      "--local",
      "--ip",
      "127.0.0.1",
      "--port",
      "8787",
      "--show-interactive-dev-session=false",
      "--var",
      "PUBLIC_BASE_URL:http://127.0.0.1:8787",
      "--var",
      "LOCAL_DEV:1",
      "--var",
      "CI_FIX_REPOS:*",
      // Local dev posts to GitHub only when given a stand-in.
      "--var",
      "GITHUB_API_URL:",
      "--var",
      "CONTAINERS_ENABLED:"
    ]);
    expect(wranglerDevArgs({ port: 8787, localDev: true, githubApiUrl: "http://127.0.0.1:8790" })).toContain(
      "GITHUB_API_URL:http://127.0.0.1:8790"
    );
    const args = wranglerDevArgs({ port: 9001, localDev: false, persistTo: "/tmp/state", inspectorPort: 9002 });
    expect(args).not.toContain("LOCAL_DEV:1");
    expect(args.join(" ")).not.toContain("GITHUB_API_URL");
    expect(args.join(" ")).toContain("--port 9001");
    expect(args.join(" ")).toContain("PUBLIC_BASE_URL:http://127.0.0.1:9001");
    expect(args.join(" ")).toContain("--persist-to /tmp/state --inspector-port 9002");
    expect(args).not.toContain("--no-bundle");
    // A bundle made once up front is served as it is, not bundled again.
    const bundled = wranglerDevArgs({ port: 9001, localDev: true, bundle: { script: "/tmp/b/index.js", config: "/repo/wrangler.jsonc" } });
    expect(bundled.slice(0, 6)).toEqual(["dev", "/tmp/b/index.js", "--no-bundle", "-c", "/repo/wrangler.jsonc", "--local"]);
  });

  it("reads PORT", () => {
    expect(parsePort(undefined)).toEqual({ ok: true, port: 8787 });
    expect(parsePort("")).toEqual({ ok: true, port: 8787 });
    expect(parsePort("9000")).toEqual({ ok: true, port: 9000 });
    for (const bad of ["0", "65536", "80a", "-1", "1.5"]) expect(parsePort(bad).ok, bad).toBe(false);
  });

  it("spots wrangler's ready line, colored or not", () => {
    expect(findReadyUrl("[wrangler:info] Ready on http://127.0.0.1:8787\n")).toBe("http://127.0.0.1:8787");
    expect(findReadyUrl("\u001b[32m[wrangler:info]\u001b[0m Ready on \u001b[1mhttp://127.0.0.1:9000\u001b[22m\n")).toBe(
      "http://127.0.0.1:9000"
    );
    expect(findReadyUrl("⎔ Starting local server...")).toBeNull();
  });

  it("tells how to dispatch and read a transcript, with --url off the default port", () => {
    const banner = startBanner("http://127.0.0.1:8787");
    expect(banner).toContain('npm run dispatch -- owner/repo#123 "reproduce this issue"\n');
    expect(banner).toContain("curl http://127.0.0.1:8787/dev/messages/<session>");
    expect(startBanner("http://127.0.0.1:9000")).toContain('"reproduce this issue" --url http://127.0.0.1:9000');
    expect(startBanner("http://127.0.0.1:8787", "http://127.0.0.1:8790")).toContain("curl http://127.0.0.1:8790/_standin/records");
  });
});
