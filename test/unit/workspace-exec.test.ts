/**
 * WorkspaceExec, where one bash command goes: the shell or the turn's
 * container, the refusals in their order (containers off before readiness is
 * asked, then no engine or a bad setting), the turn named and the bot set
 * before a container command, every error an error result; and the output
 * bound parsed from MAX_TOOL_OUTPUT_BYTES.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_MAX_TOOL_OUTPUT_BYTES, maxToolOutputBytes, WorkspaceExec, type ExecRequest, type WorkspaceExecDeps } from "../../src/pool/workspace-exec";
import { CONTAINER_UNAVAILABLE, type BashResult } from "../../src/run/bash-command";

const ok = (backend: "shell" | "container"): BashResult => ({
  backend,
  exitCode: 0,
  stdout: { text: "", totalBytes: 0, totalLines: 0 },
  stderr: { text: "", totalBytes: 0, totalLines: 0 },
  durationMs: 1
});

function exec(deps: Partial<WorkspaceExecDeps> = {}) {
  const calls: string[] = [];
  const logged: Array<{ event: string; fields?: Record<string, unknown> }> = [];
  const router = new WorkspaceExec({
    containersEnabled: () => true,
    ready: async () => void calls.push("ready"),
    containerRefusal: () => undefined,
    shell: { run: async (command) => (calls.push(`shell:${command}`), ok("shell")) },
    container: { run: async (command) => (calls.push(`container:${command}`), ok("container")) },
    beginTurn: async (turn) => void calls.push(`turn:${turn.submissionId}`),
    setBot: (bot) => void calls.push(`bot:${bot?.login ?? "none"}`),
    log: (event, fields) => void logged.push({ event, fields }),
    ...deps
  });
  return { router, calls, logged };
}

const request = (fields: Partial<ExecRequest> = {}): ExecRequest => ({ command: "ls", backend: "container", timeoutMs: 1_000, ...fields });

describe("WorkspaceExec", () => {
  it("runs a shell command on the shell once ready, naming no turn", async () => {
    const { router, calls } = exec();
    expect(await router.run(request({ backend: "shell", turn: { session: "s", submissionId: "t1" } }))).toEqual(ok("shell"));
    expect(calls).toEqual(["ready", "shell:ls"]);
  });

  it("names the turn and sets the run's bot before a container command", async () => {
    const { router, calls } = exec();
    await router.run(request({ turn: { session: "s", submissionId: "t1" }, bot: { login: "app[bot]", id: 7 } }));
    await router.run(request());
    expect(calls).toEqual(["ready", "turn:t1", "bot:app[bot]", "container:ls", "ready", "bot:none", "container:ls"]);
  });

  it("answers a container command where containers are off without asking readiness", async () => {
    const { router, calls } = exec({ containersEnabled: () => false });
    expect(await router.run(request())).toEqual({ backend: "container", error: CONTAINER_UNAVAILABLE });
    expect(calls).toEqual([]);
    await router.run(request({ backend: "shell" }));
    expect(calls).toEqual(["ready", "shell:ls"]);
  });

  it("answers a container command with the refusal known once ready, and keeps the shell", async () => {
    let known: string | undefined;
    const { router, calls } = exec({
      ready: async () => {
        known = "CONTAINER_INSTANCE_TYPE must be one of …";
      },
      containerRefusal: () => known
    });
    expect(await router.run(request())).toEqual({ backend: "container", error: "CONTAINER_INSTANCE_TYPE must be one of …" });
    expect(await router.run(request({ backend: "shell" }))).toEqual(ok("shell"));
    expect(calls).toEqual(["shell:ls"]);
  });

  it("turns a failure of either path into an error result, logged", async () => {
    const { router, logged } = exec({
      shell: { run: async () => Promise.reject(new Error("loader gone")) },
      beginTurn: async () => Promise.reject(new Error("the turn has ended"))
    });
    expect(await router.run(request({ backend: "shell" }))).toEqual({ backend: "shell", error: "loader gone" });
    expect(await router.run(request({ turn: { session: "s", submissionId: "t1" } }))).toEqual({ backend: "container", error: "the turn has ended" });
    expect(logged).toEqual([
      { event: "exec:error", fields: { backend: "shell", error: "loader gone" } },
      { event: "exec:error", fields: { backend: "container", error: "the turn has ended" } }
    ]);
  });

  it("lets a failed readiness through (it is not a command's result)", async () => {
    const { router } = exec({ ready: async () => Promise.reject(new Error("storage reset")) });
    await expect(router.run(request({ backend: "shell" }))).rejects.toThrow("storage reset");
  });
});

describe("maxToolOutputBytes", () => {
  it("takes a whole number of at least 256, else the default", () => {
    expect(maxToolOutputBytes("4096")).toBe(4_096);
    expect(maxToolOutputBytes("256")).toBe(256);
    for (const setting of [undefined, "", "255", "-1", "lots", "9".repeat(30)]) expect(maxToolOutputBytes(setting)).toBe(DEFAULT_MAX_TOOL_OUTPUT_BYTES);
  });
});
