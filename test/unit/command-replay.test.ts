import { describe, expect, it } from "vitest";
import {
  CommandReplay,
  interruptedMessage,
  lastCommandKey,
  MAX_KEPT_RESULT_BYTES,
  REPLAYED_NOTE,
  type CommandReplayStorage,
  type LastCommand
} from "../../src/run/command-replay";
import type { BashInput, BashResult } from "../../src/run/bash-command";

/** The Durable Object's synchronous KV, in memory, copying values in and out as storage does. */
class MemoryKv implements CommandReplayStorage {
  readonly map = new Map<string, unknown>();
  broken = false;
  get<T>(key: string) {
    if (this.broken) throw new Error("storage is gone");
    return structuredClone(this.map.get(key)) as T | undefined;
  }
  put<T>(key: string, value: T) {
    if (this.broken) throw new Error("storage is gone");
    this.map.set(key, structuredClone(value));
  }
  delete(key: string) {
    if (this.broken) throw new Error("storage is gone");
    return this.map.delete(key);
  }
}

const S = "sub-1";
const append: BashInput = { command: "echo step >> /workspace/counter.txt", backend: "shell", timeoutMs: 120_000 };

const ok = (text: string): BashResult => ({
  backend: "shell",
  exitCode: 0,
  stdout: { text, totalBytes: text.length, totalLines: 1 },
  stderr: { text: "", totalBytes: 0, totalLines: 0 },
  durationMs: 3
});

/** A workspace that counts how often each command ran; `kill` makes the next run die before it reports. */
function setup() {
  const kv = new MemoryKv();
  const state = { recoveries: 0 };
  const ran: string[] = [];
  const logs: string[] = [];
  const replay = new CommandReplay({ storage: kv, recoveries: () => state.recoveries, log: (event) => logs.push(event) });
  const execute = async (input: BashInput) => {
    ran.push(input.command);
    return ok(`ran ${ran.length}\n`);
  };
  /** The process dies once the command's effect is in: no result comes back, nothing after it runs. */
  const killedDuring = (input: BashInput) => {
    ran.push(input.command);
    return new Promise<BashResult>(() => {});
  };
  return { kv, state, ran, logs, replay, execute, killedDuring, record: () => kv.get<LastCommand>(lastCommandKey(S)) };
}

describe("CommandReplay", () => {
  it("runs a first command and records it as finished with its result", async () => {
    const { replay, execute, ran, record } = setup();
    await expect(replay.run(S, append, execute)).resolves.toEqual(ok("ran 1\n"));
    expect(ran).toHaveLength(1);
    expect(record()).toEqual({ command: append.command, backend: "shell", recoveries: 0, finished: true, result: ok("ran 1\n") });
  });

  it("records the command as started before it runs", async () => {
    const { replay, kv, record } = setup();
    let seen: LastCommand | undefined;
    await replay.run(S, append, async () => {
      seen = kv.get<LastCommand>(lastCommandKey(S));
      return ok("x");
    });
    expect(seen).toEqual({ command: append.command, backend: "shell", recoveries: 0, finished: false });
    expect(record()?.finished).toBe(true);
  });

  it("runs a deliberate repeat in the same recovery epoch", async () => {
    const { replay, execute, ran, state } = setup();
    await replay.run(S, append, execute);
    await expect(replay.run(S, append, execute)).resolves.toEqual(ok("ran 2\n"));
    state.recoveries = 2;
    await replay.run(S, { ...append, command: "ls" }, execute);
    await replay.run(S, { ...append, command: "ls" }, execute);
    expect(ran).toEqual([append.command, append.command, "ls", "ls"]);
  });

  it("answers a re-issue after a recovery with the finished result, once", async () => {
    const { replay, execute, ran, state, record } = setup();
    await replay.run(S, append, execute);
    state.recoveries = 1; // killed after the result was recorded, before Think saved it

    const replayed = await replay.run(S, append, execute);
    expect(replayed).toEqual({ ...ok("ran 1\n"), replayed: true, note: REPLAYED_NOTE });
    expect(ran).toHaveLength(1);
    // The stored result is what the command returned, without the marks.
    expect(record()).toMatchObject({ recoveries: 1, finished: true, result: ok("ran 1\n") });

    // The model asks again in the same epoch: that one is its own, and runs.
    await expect(replay.run(S, append, execute)).resolves.toEqual(ok("ran 2\n"));
    expect(ran).toHaveLength(2);
  });

  it("answers a re-issue of a command the restart interrupted as interrupted, without running it", async () => {
    const { replay, execute, killedDuring, ran, state, record } = setup();
    void replay.run(S, append, killedDuring);
    await Promise.resolve();
    expect(record()).toEqual({ command: append.command, backend: "shell", recoveries: 0, finished: false });
    state.recoveries = 1;

    const answered = await replay.run(S, append, execute);
    expect(answered).toEqual({ backend: "shell", error: interruptedMessage("shell"), interrupted: true, replayed: true });
    expect("error" in answered && answered.error).toContain("may have run partly or fully");
    expect(ran).toHaveLength(1);
    expect(record()).toEqual({ command: append.command, backend: "shell", recoveries: 1, finished: false });

    // A second recovery before the model moved on: the same answer again.
    state.recoveries = 2;
    await expect(replay.run(S, append, execute)).resolves.toMatchObject({ interrupted: true });
    expect(ran).toHaveLength(1);
    // The model decides to run it anyway: it runs.
    await expect(replay.run(S, append, execute)).resolves.toEqual(ok("ran 2\n"));
    expect(ran).toHaveLength(2);
  });

  it("runs a different command after a recovery, and the same text on the other backend", async () => {
    const { replay, execute, ran, state } = setup();
    await replay.run(S, append, execute);
    state.recoveries = 1;
    await replay.run(S, { ...append, command: "cat /workspace/counter.txt" }, execute);
    expect(ran).toHaveLength(2);

    await replay.run(S, append, execute);
    state.recoveries = 2;
    await expect(replay.run(S, { ...append, backend: "container" }, execute)).resolves.toEqual(ok("ran 4\n"));
    expect(ran).toHaveLength(4);
  });

  it("guards only the last command: an earlier one repeated after a recovery runs", async () => {
    const { replay, execute, ran, state } = setup();
    await replay.run(S, append, execute);
    await replay.run(S, { ...append, command: "ls" }, execute);
    state.recoveries = 1;
    await replay.run(S, append, execute);
    expect(ran).toEqual([append.command, "ls", append.command]);
  });

  it("keeps each submission's last command apart", async () => {
    const { replay, execute, ran, state } = setup();
    await replay.run(S, append, execute);
    state.recoveries = 1;
    await replay.run("sub-2", append, execute);
    expect(ran).toHaveLength(2);
  });

  it("keeps a result too large to store as finished, with its exit code and logs, and says so", async () => {
    const { replay, ran, state, record } = setup();
    const big = "x".repeat(MAX_KEPT_RESULT_BYTES);
    const result: BashResult = {
      backend: "shell",
      exitCode: 3,
      stdout: { text: big, totalBytes: 10 * MAX_KEPT_RESULT_BYTES, totalLines: 1, log: "/temp/agent-think/logs/a.stdout" },
      stderr: { text: "", totalBytes: 0, totalLines: 0 },
      durationMs: 1
    };
    await expect(replay.run(S, append, async () => (ran.push("big"), result))).resolves.toBe(result);
    expect(record()).toEqual({
      command: append.command,
      backend: "shell",
      recoveries: 0,
      finished: true,
      exitCode: 3,
      logs: ["/temp/agent-think/logs/a.stdout"]
    });
    state.recoveries = 1;
    const answered = await replay.run(S, append, async () => (ran.push("again"), result));
    expect(answered).toMatchObject({ backend: "shell", replayed: true });
    expect("error" in answered && answered.error).toMatch(/already ran .* exited with 3.*too large to keep.*a\.stdout/);
    expect(ran).toEqual(["big"]);
  });

  it("replays an error result as it was", async () => {
    const { replay, state } = setup();
    const unavailable: BashResult = { backend: "container", error: "containers are not available here" };
    await replay.run(S, { ...append, backend: "container" }, async () => unavailable);
    state.recoveries = 1;
    await expect(replay.run(S, { ...append, backend: "container" }, async () => ok("no"))).resolves.toEqual({
      ...unavailable,
      replayed: true,
      note: REPLAYED_NOTE
    });
  });

  it("forgets a submission's last command when the run ends", async () => {
    const { replay, execute, ran, state, kv } = setup();
    await replay.run(S, append, execute);
    replay.forget(S);
    expect(kv.map.size).toBe(0);
    state.recoveries = 1;
    await replay.run(S, append, execute);
    expect(ran).toHaveLength(2);
    replay.forget("never-ran");
  });

  it("just runs the command when storage fails, and never throws", async () => {
    const { replay, execute, ran, kv, logs } = setup();
    kv.broken = true;
    await expect(replay.run(S, append, execute)).resolves.toEqual(ok("ran 1\n"));
    expect(() => replay.forget(S)).not.toThrow();
    expect(ran).toHaveLength(1);
    expect(logs).toContain("command:replay-failed");

    // Reads work, writes fail: still runs.
    kv.broken = false;
    kv.put = () => {
      throw new Error("write refused");
    };
    await expect(replay.run(S, append, execute)).resolves.toEqual(ok("ran 2\n"));
  });

  it("just runs the command when the recovery count cannot be read", async () => {
    const kv = new MemoryKv();
    const replay = new CommandReplay({
      storage: kv,
      recoveries: () => {
        throw new Error("no recoveries");
      }
    });
    await expect(replay.run(S, append, async () => ok("ran\n"))).resolves.toEqual(ok("ran\n"));
  });
});
