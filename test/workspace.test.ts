/**
 * The issue's WorkspaceAgent in workerd: one Workspace seen by Think's file
 * tools and by the shell, exit codes and stderr as data, bounded output whose
 * full log stays readable, and resets that leave the other side alone.
 */
import { env, exports } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import type { ThinkAgent } from "../src/agent";
import { sessionName } from "../src/shared/session-name";
import type { BashResult } from "../src/run/bash-command";
import type { ExecRequest } from "../src/workspace-agent";
import { agentFor, uniqueRepo, waitForStatus } from "./helpers";

type WorkspaceStub = {
  exec(request: ExecRequest): Promise<BashResult>;
  resetFiles(): Promise<void>;
};

async function workspaceFor(session: string) {
  return (await getAgentByName(env.WorkspaceAgent, session)) as unknown as WorkspaceStub & DurableObjectStub;
}

const shell = (command: string): ExecRequest => ({ command, backend: "shell", timeoutMs: 30_000 });

describe("WorkspaceAgent", () => {
  it("shares one set of files between Think's file tools and the shell", async () => {
    const session = sessionName(uniqueRepo(), 1);
    const workspace = await workspaceFor(session);
    expect(await workspace.exec(shell("mkdir -p /workspace/src && echo 'from the shell' > /workspace/src/a.txt"))).toMatchObject({
      exitCode: 0
    });
    const think = await getAgentByName(env.ThinkAgent, session);
    const seen = await runInDurableObject(think as unknown as DurableObjectStub<ThinkAgent>, async (agent) => {
      const text = await agent.workspace.fs.readFile("/workspace/src/a.txt", "utf8");
      await agent.workspace.fs.writeFile("/workspace/src/b.txt", "from Think\n");
      return text;
    });
    expect(seen).toBe("from the shell\n");
    expect(await workspace.exec(shell("cat /workspace/src/b.txt"))).toMatchObject({ stdout: { text: "from Think\n" } });
  });

  it("returns exit codes and stderr as data", async () => {
    const workspace = await workspaceFor(sessionName(uniqueRepo(), 2));
    expect(await workspace.exec(shell("echo out; echo oops >&2; exit 7"))).toMatchObject({
      backend: "shell",
      exitCode: 7,
      stdout: { text: "out\n", totalBytes: 4, totalLines: 1 },
      stderr: { text: "oops\n" }
    });
    // Not `cat` of a missing file here: the worker shell reads it over RPC and
    // catches the ENOENT, which workerd still prints as uncaught (AGENTS.md).
  });

  it("bounds long output to a head and tail and keeps the whole log readable", async () => {
    const workspace = await workspaceFor(sessionName(uniqueRepo(), 3));
    const result = await workspace.exec(shell("seq 1 5000 | sed 's/^/row-/'"));
    if (!("exitCode" in result)) throw new Error(result.error);
    const { stdout } = result;
    expect(stdout.totalBytes).toBe(43_893);
    expect(stdout.totalLines).toBe(5_000);
    expect(new TextEncoder().encode(stdout.text).length).toBeLessThan(16_384 + 200);
    expect(stdout.text.startsWith("row-1\nrow-2\n")).toBe(true);
    expect(stdout.text.endsWith("row-5000\n")).toBe(true);
    expect(stdout.log).toMatch(/^\/temp\/agent-think\/logs\//);
    const lines = await workspace.exec(shell(`wc -l < ${stdout.log} && sed -n 1234p ${stdout.log}`));
    expect(lines).toMatchObject({ exitCode: 0, stdout: { text: "5000\nrow-1234\n" } });
  });

  it("bounds a flood past the worker shell's own 1 MiB cap, keeping what it printed", async () => {
    const workspace = await workspaceFor(sessionName(uniqueRepo(), 6));
    const flood = 's=0123456789; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14; do s="$s$s"; done; for i in 1 2 3 4 5 6 7 8 9 10; do printf "%s\\n" "$s"; done';
    const result = await workspace.exec(shell(flood));
    if (!("exitCode" in result)) throw new Error(result.error);
    expect(result.exitCode).toBe(126);
    expect(result.stderr.text).toContain("total output size exceeded");
    expect(result.stdout.totalBytes).toBeGreaterThan(900_000);
    expect(new TextEncoder().encode(result.stdout.text).length).toBeLessThan(16_384 + 200);
    expect(result.stdout.text.startsWith("0123456789")).toBe(true);
    expect(result.stdout.log).toMatch(/^\/temp\/agent-think\/logs\//);
  });

  it("answers at once that the container backend is unavailable without a container engine", async () => {
    const workspace = await workspaceFor(sessionName(uniqueRepo(), 4));
    expect(await workspace.exec({ command: "npm test", backend: "container", timeoutMs: 60_000 })).toEqual({
      backend: "container",
      error: expect.stringMatching(/^container backend unavailable/)
    });
  });

  it("resets either side without touching the other", async () => {
    const repo = uniqueRepo();
    const { session, submissionId } = await exports.AgentThink.dispatch({
      repo,
      issueNumber: 5,
      instruction: "TEST: write /workspace/keep.txt kept\nTEST: reply wrote it",
      installationToken: ""
    });
    const agent = await agentFor(session);
    await waitForStatus(agent, submissionId);
    const workspace = await workspaceFor(session);

    await exports.AgentThink.resetSession({ session });
    expect(await agent.transcript()).toEqual([]);
    expect(await workspace.exec(shell("cat /workspace/keep.txt"))).toMatchObject({ exitCode: 0, stdout: { text: "kept" } });

    const again = await exports.AgentThink.dispatch({
      repo,
      issueNumber: 5,
      instruction: "TEST: reply after reset",
      installationToken: ""
    });
    await waitForStatus(agent, again.submissionId);
    await workspace.resetFiles();
    expect(await workspace.exec(shell("ls /workspace"))).toMatchObject({ exitCode: 0, stdout: { text: "" } });
    expect((await agent.transcript()).map((message) => message.role)).toEqual(["user", "assistant"]);
  });
});
