/**
 * At most once for the bash command a recovery interrupted, in a real
 * ThinkAgent: the object is evicted while a command that appends a line is
 * running, Think's chat recovery resumes the turn, the scripted model issues
 * the same command again, and the re-issue is answered instead of run.
 * The unit tests (test/unit/command-replay.test.ts) cover the rules.
 */
import { env, exports } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { interruptedMessage, lastCommandKey, REPLAYED_NOTE, type LastCommand } from "../src/run/command-replay";
import type { WorkspaceAgent } from "../src/workspace-agent";
import { agentFor, captureConsole, evict, HANG_MS, toolParts, uniqueRepo, waitForStatus } from "./helpers";

const FILE = "/workspace/replay/appended.txt";
const APPEND = `mkdir -p /workspace/replay && echo once >> ${FILE} && sleep 2 && echo appended`;
const READ = `cat ${FILE}`;
// Created first: the worker shell's `>>` to a new file reads it over RPC, and workerd prints that caught ENOENT as uncaught.
const CREATE = `mkdir -p /workspace/replay && : > ${FILE}`;

async function dispatch(instruction: string) {
  const result = await exports.AgentThink.dispatch({ repo: uniqueRepo(), issueNumber: 9, instruction, installationToken: "" });
  return { ...result, agent: await agentFor(result.session) };
}

type Agent = Awaited<ReturnType<typeof agentFor>>;

/** The submission's last command as the agent recorded it, once it has one that `ready` accepts. */
async function recorded(agent: Agent, submissionId: string, ready: (known: LastCommand) => boolean): Promise<LastCommand> {
  const deadline = Date.now() + HANG_MS;
  for (;;) {
    const known = await runInDurableObject(agent, (_instance, state) => state.storage.kv.get<LastCommand>(lastCommandKey(submissionId)));
    if (known && ready(known)) return known;
    if (Date.now() > deadline) throw new Error(`no matching last command for ${submissionId}: ${JSON.stringify(known)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Once the workspace's file holds the appended line, as the worker shell reads it outside the turn. */
async function appended(session: string): Promise<void> {
  const workspace = (await getAgentByName(env.WorkspaceAgent, session)) as unknown as DurableObjectStub<WorkspaceAgent>;
  const deadline = Date.now() + HANG_MS;
  for (;;) {
    const read = await workspace.exec({ command: READ, backend: "shell", timeoutMs: 5_000 });
    if ("exitCode" in read && read.stdout.text.includes("once")) return;
    if (Date.now() > deadline) throw new Error(`the command never appended its line: ${JSON.stringify(read)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The bash calls of the transcript, with what each returned. */
async function bashCalls(session: string) {
  const messages = await (await agentFor(session)).transcript();
  return toolParts(messages)
    .filter((part) => part.type === "tool-bash")
    .map((part) => ({ command: (part.input as { command: string }).command, state: part.state, output: part.output as Record<string, unknown> }));
}

describe("a bash command a recovery interrupted", () => {
  it("is not run again: the re-issue answers that it was interrupted", async () => {
    const { agent, submissionId, session } = await dispatch(`TEST: run ${CREATE}\nTEST: run ${APPEND}\nTEST: run ${READ}\nTEST: reply done`);
    await waitForStatus(agent, submissionId, ["running"]);
    // The command has started: it is recorded, and its line is in the file (appended at once, then it sleeps 2 s).
    // On a loaded machine the record comes well before the line, so the eviction waits for the line.
    await recorded(agent, submissionId, (known) => known.command === APPEND && !known.finished);
    await appended(session);
    await evict(agent);

    const fresh = await agentFor(session);
    const { result: settled, lines } = await captureConsole(() => waitForStatus(fresh, submissionId));
    expect(settled.status).toBe("completed");
    expect(lines.some((line) => line.includes('"event":"recovery"'))).toBe(true);
    expect(lines.some((line) => line.includes('"event":"command:replayed"'))).toBe(true);

    const calls = await bashCalls(session);
    const appends = calls.filter((call) => call.command === APPEND && call.state === "output-available");
    expect(appends.at(-1)?.output).toEqual({ backend: "shell", error: interruptedMessage("shell"), interrupted: true, replayed: true });
    // The workspace has the line once: the command ran once.
    const read = calls.find((call) => call.command === READ);
    expect(read?.output).toMatchObject({ exitCode: 0, stdout: { text: "once\n" } });
    // The run's end forgot it.
    expect(await runInDurableObject(fresh, (_instance, state) => state.storage.kv.get(lastCommandKey(submissionId)))).toBeUndefined();
  });

  it("is answered with its saved result when it finished before the kill", async () => {
    const { agent, submissionId, session } = await dispatch(`TEST: run ${CREATE}\nTEST: run ${APPEND}\nTEST: run ${READ}\nTEST: reply done`);
    await waitForStatus(agent, submissionId, ["running"]);
    const started = await recorded(agent, submissionId, (known) => known.command === APPEND && !known.finished);
    // The kill lands after the command reported back and before Think saved
    // the result: the record says finished, with the result it returned.
    const result = {
      backend: "shell",
      exitCode: 0,
      stdout: { text: "appended\n", totalBytes: 9, totalLines: 1 },
      stderr: { text: "", totalBytes: 0, totalLines: 0 },
      durationMs: 2000
    };
    // (Written in its own call: the abort would drop a write made beside it.)
    await runInDurableObject(agent, (_instance, state) =>
      state.storage.kv.put<LastCommand>(lastCommandKey(submissionId), { ...started, finished: true, result } as LastCommand)
    );
    await evict(agent);

    const fresh = await agentFor(session);
    expect((await waitForStatus(fresh, submissionId)).status).toBe("completed");
    const calls = await bashCalls(session);
    const appends = calls.filter((call) => call.command === APPEND && call.state === "output-available");
    expect(appends.at(-1)?.output).toEqual({ ...result, replayed: true, note: REPLAYED_NOTE });
    expect(calls.find((call) => call.command === READ)?.output).toMatchObject({ exitCode: 0, stdout: { text: "once\n" } });
  });

  it("runs a deliberate repeat without a recovery", async () => {
    const { agent, submissionId, session } = await dispatch(
      `TEST: run ${CREATE}\nTEST: run mkdir -p /workspace/replay && echo again >> ${FILE}\nTEST: run mkdir -p /workspace/replay && echo again >> ${FILE}\nTEST: run ${READ}\nTEST: reply done`
    );
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
    const calls = await bashCalls(session);
    expect(calls.find((call) => call.command === READ)?.output).toMatchObject({ exitCode: 0, stdout: { text: "again\nagain\n" } });
    expect(calls.some((call) => "replayed" in (call.output ?? {}))).toBe(false);
  });
});
