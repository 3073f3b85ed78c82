/**
 * `npm run dispatch` and Think's chat recovery: the `cf_agent_chat_recovering`
 * frame read off the agent's socket, the run's recoveries followed by
 * `LiveRun`, and the lines printed for them.
 */
import { describe, expect, it } from "vitest";
import { parseAgentFrame, type AgentFrame } from "../../scripts/lib/agent-frames";
import { openAgentSocket, type SocketEvent, type SocketLike } from "../../scripts/lib/agent-socket";
import { formatRecoveries, formatRecovery } from "../../scripts/lib/format-run";
import { LiveRun, type RecoveryChange } from "../../scripts/lib/live-run";

const OURS = "sub-ours";
const OTHER = "sub-other";

const recoveringFrame = (recovering: boolean, id?: string) =>
  JSON.stringify({ type: "cf_agent_chat_recovering", recovering, ...(id === undefined ? {} : { id }) });
const doneFrame = (id: string, outcome = "completed") =>
  JSON.stringify({ type: "cf_agent_use_chat_response", id, body: "", done: true, outcome });

/** Every change the frames make, in order, as printed. */
function printed(run: LiveRun, frames: string[]): string[] {
  return frames
    .map((data) => run.recovery(parseAgentFrame(data)))
    .filter((change): change is RecoveryChange => change !== null)
    .map(formatRecovery);
}

describe("parseAgentFrame: cf_agent_chat_recovering", () => {
  it("reads the flag going up and coming down, with the turn's request id when it names one", () => {
    expect(parseAgentFrame(recoveringFrame(true, OURS))).toEqual({ kind: "recovering", recovering: true, requestId: OURS });
    expect(parseAgentFrame(recoveringFrame(false, OURS))).toEqual({ kind: "recovering", recovering: false, requestId: OURS });
    expect(parseAgentFrame(recoveringFrame(true))).toEqual({ kind: "recovering", recovering: true });
  });

  it.each([
    ["without a flag", { type: "cf_agent_chat_recovering", id: OURS }],
    ["with a flag that is not a boolean", { type: "cf_agent_chat_recovering", recovering: "yes" }],
    ["with an id that is not a string", { type: "cf_agent_chat_recovering", recovering: true, id: 7 }]
  ])("ignores one %s", (_name, frame) => {
    expect(parseAgentFrame(JSON.stringify(frame))).toEqual({ kind: "ignored" });
  });
});

describe("LiveRun.recovery", () => {
  it("says when Think takes the run's turn over and when it goes on, counting each recovery once", () => {
    const run = new LiveRun(OURS);
    expect(
      printed(run, [
        recoveringFrame(true, OURS),
        // Think replays the flag on connect; a repeat is not a new recovery.
        recoveringFrame(true, OURS),
        recoveringFrame(false, OURS),
        recoveringFrame(false, OURS),
        recoveringFrame(true, OURS),
        recoveringFrame(false)
      ])
    ).toEqual([
      "↻ recovering: the turn was interrupted; Think is resuming it",
      "↻ resumed",
      "↻ recovering (recovery 2): the turn was interrupted; Think is resuming it",
      "↻ resumed"
    ]);
    expect(run.recoveries).toBe(2);
  });

  it("leaves another turn's recovery alone, and takes one that names no turn as this run's", () => {
    const run = new LiveRun(OURS);
    expect(printed(run, [recoveringFrame(true, OTHER), recoveringFrame(false, OTHER)])).toEqual([]);
    expect(run.recoveries).toBe(0);
    expect(printed(run, [recoveringFrame(true)])).toEqual(["↻ recovering: the turn was interrupted; Think is resuming it"]);
    expect(run.recoveries).toBe(1);
  });

  it("does not say resumed when the flag comes down because the run is over", () => {
    const run = new LiveRun(OURS);
    expect(printed(run, [recoveringFrame(true, OURS), doneFrame(OURS, "recovering")])).toHaveLength(1);
    // A stream that ended for recovery is not the run's end; its final end is.
    expect(printed(run, [doneFrame(OURS, "error"), recoveringFrame(false, OURS)])).toEqual([]);
    expect(run.recoveries).toBe(1);
  });

  it("changes nothing for chunks and other frames, and prints no chunk for a recovering frame", () => {
    const run = new LiveRun(OURS);
    const chunk = JSON.stringify({ type: "cf_agent_use_chat_response", id: OURS, body: JSON.stringify({ type: "start" }), done: false, seq: 0 });
    expect(run.recovery(parseAgentFrame(chunk))).toBeNull();
    expect(run.accept(parseAgentFrame(recoveringFrame(true, OURS)))).toEqual([]);
    expect(run.recoveries).toBe(0);
  });
});

describe("formatRecoveries", () => {
  it("adds a line under the final status only for a run that was recovered", () => {
    expect(formatRecoveries(0)).toBeNull();
    expect(formatRecoveries(1)).toBe("↻ recovered 1× on the way (Think's chat recovery resumed the interrupted turn)");
    expect(formatRecoveries(3)).toMatch(/^↻ recovered 3× /);
  });
});

class FakeSocket implements SocketLike {
  readonly sent: string[] = [];
  readonly #listeners = new Map<string, Array<(event: SocketEvent) => void>>();
  addEventListener(type: string, listener: (event: SocketEvent) => void): void {
    this.#listeners.set(type, [...(this.#listeners.get(type) ?? []), listener]);
  }
  send(data: string): void {
    this.sent.push(data);
  }
  close(): void {}
  emit(type: string, fields: Omit<SocketEvent, "type"> = {}): void {
    for (const listener of this.#listeners.get(type) ?? []) listener({ type, ...fields });
  }
}

describe("the agent socket and recovering frames", () => {
  it("hands a recovering frame to the listener, one replayed on connect included, and answers nothing", async () => {
    const fake = new FakeSocket();
    const opening = openAgentSocket({ url: "ws://127.0.0.1:1/agents/think-agent/a-b-1", connectTimeoutMs: 1_000, createSocket: () => fake });
    fake.emit("open");
    const opened = await opening;
    if (!opened.ok) throw new Error(opened.reason);
    // Before the listener: the flag Think replays to a new connection.
    fake.emit("message", { data: recoveringFrame(true, OURS) });
    const frames: AgentFrame[] = [];
    opened.socket.listen((frame) => frames.push(frame), () => {});
    fake.emit("message", { data: recoveringFrame(false, OURS) });
    expect(frames).toEqual([
      { kind: "recovering", recovering: true, requestId: OURS },
      { kind: "recovering", recovering: false, requestId: OURS }
    ]);
    expect(fake.sent).toEqual([]);
  });
});
