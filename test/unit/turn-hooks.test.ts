/**
 * What a ThinkAgent does in Think's turn hooks (src/steps/turn-hooks.ts),
 * over recording fakes: a turn's start arms the watchdog, prepares the
 * workspace and adds the block, sets the budgets' stops and the step cap,
 * confines every tool to redacted results and hides `exec`; a model call
 * renews the token first; tool calls and steps reach the progress comment,
 * the ledger, the command center and the budgets only while a turn runs.
 */
import type { ModelMessage, ToolSet } from "ai";
import { describe, expect, it } from "vitest";
import type { Prepared } from "../../src/steps/prepare";
import { TurnHooks } from "../../src/steps/turn-hooks";

const PREPARED: Prepared = {
  facts: { clone: "/workspace/repo", pushBranch: "agent-think/issue-7", mayOpenPullRequest: true },
  policy: { pushBranch: "agent-think/issue-7", mayOpenPullRequest: true }
};
const TURN = { session: "acme-widgets-7", submissionId: "sub-1" };
const STOP = () => true;

function setup(options: { turn?: typeof TURN | null; prepared?: Prepared | null } = {}) {
  const events: string[] = [];
  const lines: Array<{ event: string; fields?: Record<string, unknown> }> = [];
  const turn = options.turn === undefined ? TURN : options.turn;
  const hooks = new TurnHooks({
    token: {
      load: async () => (events.push("token loaded"), "ghs_secret"),
      fresh: async () => (events.push("token fresh"), "ghs_secret"),
      redactDeep: <T>(value: T) => JSON.parse(JSON.stringify(value).replaceAll("ghs_secret", "[REDACTED]")) as T
    },
    view: {
      turn: async () => turn,
      runRef: async (submissionId) => ({ repo: "acme/widgets", issueNumber: 7, submissionId, threadUrl: "https://agent-think.test/thread/x" }) as never
    },
    watchdog: { arm: (id) => void events.push(`armed ${id}`) },
    reports: {
      resumedIfRecovering: (id) => void events.push(`resumed? ${id}`),
      recovering: (id) => void events.push(`recovering ${id}`),
      toolCalled: (id, call) => void events.push(`tool ${id} ${call.tool} ${call.ok}`),
      stale: async (run, quietForMs) => void events.push(`stale ${run.submissionId} ${quietForMs}`)
    },
    workspace: {
      prepare: async (submissionId, signal) => {
        events.push(`prepare ${submissionId}${signal ? " with signal" : ""}`);
        return options.prepared === undefined ? PREPARED : options.prepared;
      }
    },
    budgets: {
      stops: async (id) => (events.push(`stops ${id}`), [STOP]),
      stepFinished: async (id) => void events.push(`step ${id}`)
    },
    models: { forStep: async () => (events.push("model"), "the-model" as never) },
    progress: { activity: async (id, tool) => void events.push(`activity ${id} ${tool}`) },
    ledger: { recordToolCall: async (id, at) => void events.push(`ledger tool ${id} ${at}`) },
    maxSteps: () => 250,
    modelEnv: () => ({ REASONING_EFFORT: "" }) as never,
    log: (event, fields) => void lines.push({ event, fields }),
    now: () => 42
  });
  return { hooks, events, lines };
}

const leaky: ToolSet = {
  bash: { description: "bash", inputSchema: undefined as never, execute: async () => ({ stdout: "token ghs_secret" }) },
  exec: { description: "exec", inputSchema: undefined as never, execute: async () => "exec" }
};
const messages: ModelMessage[] = [{ role: "user", content: "<agent-think-run>\n{}\n</agent-think-run>\n\nrun" }];

describe("TurnHooks: a turn's start", () => {
  it("arms the watchdog, prepares the workspace and adds its block, with the stops, the cap and confined tools", async () => {
    const { hooks, events, lines } = setup();
    const abort = new AbortController();
    const config = await hooks.beforeTurn({ messages, tools: leaky, requestId: "req-1", trigger: "submission" as never, continuation: false, abortSignal: abort.signal });
    expect(events).toEqual(["token loaded", "armed sub-1", "resumed? sub-1", "prepare sub-1 with signal", "stops sub-1"]);
    expect(lines[0]).toEqual({ event: "turn:start", fields: { requestId: "req-1", trigger: "submission", continuation: false } });
    const content = (config.messages![0] as { content: Array<{ type: string; text: string }> }).content;
    expect(content[1]!.text.startsWith("<agent-think-workspace>")).toBe(true);
    expect(config).toMatchObject({ maxSteps: 250, stopWhen: [STOP], activeTools: ["bash"] });
    const result = await (config.tools!.bash!.execute as (input: unknown, options: unknown) => Promise<unknown>)({}, {});
    expect(result).toEqual({ stdout: "token [REDACTED]" });
  });

  it("with no turn running (or nothing prepared) adds no block and no stops, and still confines the tools", async () => {
    const { hooks, events } = setup({ turn: null });
    const config = await hooks.beforeTurn({ messages, tools: leaky, continuation: false });
    expect(events).toEqual(["token loaded"]);
    expect(config).not.toHaveProperty("messages");
    expect(config).not.toHaveProperty("stopWhen");
    expect(Object.keys(config.tools!)).toEqual(["bash", "exec"]);
    const unprepared = await setup({ prepared: null }).hooks.beforeTurn({ messages, tools: leaky, continuation: false });
    expect(unprepared).not.toHaveProperty("messages");
  });
});

describe("TurnHooks: steps and tool calls", () => {
  it("renews the token before each model call, then picks the step's model", async () => {
    const { hooks, events } = setup();
    const step = await hooks.beforeStep({ messages: [], steps: [] } as never);
    expect(events).toEqual(["token fresh", "model"]);
    expect(step.model).toBe("the-model");
  });

  it("tells the progress comment, the ledger, the command center and the log about each tool call", async () => {
    const { hooks, events, lines } = setup();
    await hooks.beforeToolCall({ toolName: "bash", input: { command: "ls" } });
    await hooks.afterToolCall({ toolName: "bash", toolCallId: "call-1", requestId: "req-1", success: false, durationMs: 12.6, error: new Error("exit 2") });
    await hooks.stepFinished({} as never);
    expect(events).toEqual(["activity sub-1 bash", "ledger tool sub-1 42", "tool sub-1 bash false", "step sub-1"]);
    expect(lines).toEqual([{ event: "tool", fields: { requestId: "req-1", tool: "bash", toolCallId: "call-1", ok: false, durationMs: 13, error: "exit 2" } }]);
  });

  it("outside a turn, reports a tool call by its request and touches nothing else", async () => {
    const { hooks, events } = setup({ turn: null });
    await hooks.beforeToolCall({ toolName: "bash", input: {} });
    await hooks.afterToolCall({ toolName: "read", toolCallId: "call-2", requestId: "req-9", success: true, durationMs: 1 });
    await hooks.stepFinished({} as never);
    expect(events).toEqual(["tool req-9 read true"]);
  });
});

describe("TurnHooks: recoveries and quiet turns", () => {
  it("marks the running turn recovering, else the recovery's root request", async () => {
    const running = setup();
    await running.hooks.recovering({ incidentId: "inc", attempt: 1, recoveryKind: "resume" as never, recoveryRootRequestId: "root" });
    expect(running.events).toEqual(["recovering sub-1"]);
    const idle = setup({ turn: null });
    await idle.hooks.recovering({ incidentId: "inc", attempt: 1, recoveryKind: "resume" as never, recoveryRootRequestId: "root" });
    expect(idle.events).toEqual(["recovering root"]);
  });

  it("posts one stale notice for a quiet turn, logged", async () => {
    const { hooks, events, lines } = setup();
    await hooks.quiet("sub-1", 600_000);
    expect(events).toEqual(["stale sub-1 600000"]);
    expect(lines).toEqual([{ event: "watchdog:stale", fields: { submissionId: "sub-1", quietForMs: 600_000 } }]);
  });
});
