/**
 * The service's side of an issue's reporter session (src/service.ts), through
 * real Durable Object storage and real Think turns on the scripted model: a
 * maintainer's stop on the issue also stops the reporter session's run
 * (without lending it the maintainer's token); a reporter-tier `continue` is
 * refused before anything is written; the dashboard's Continue of a failed
 * reporter run mints a read-only token, never a write one; and a workspace
 * first used by this version that already holds files (written before each
 * tier had its own) is emptied once. Refusals are asked of the service in
 * this isolate: workerd prints an RPC method that throws as uncaught.
 */
import { env, exports } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import { sessionName } from "../src/shared/session-name";
import { createService } from "../src/service";
import { InvalidInputError } from "../src/shared/dispatch";
import type { WorkspaceAgent } from "../src/workspace-agent";
import { agentFor, evict, uniqueRepo, waitForStatus, waitForThread } from "./helpers";
import { TestTokenBroker } from "./worker";

const reporterDispatch = (repo: string, issueNumber: number, words: string, commentId: number) => ({
  repo,
  issueNumber,
  instruction: `reproduce this issue\n${words}`,
  installationToken: "",
  commentId,
  tier: "reporter" as const,
  requestedBy: { login: "outsider" }
});

describe("an issue's reporter session, from the service", () => {
  it("is stopped by a maintainer's stop on the issue, with the reporter's own tokens", async () => {
    const repo = uniqueRepo();
    const started = await exports.AgentThink.dispatch(reporterDispatch(repo, 3, "TEST: sleep 20000\nTEST: reply done", 301));
    expect(started.session).toBe(sessionName(repo, 3, "reporter"));
    await waitForThread(started.session, (thread) => thread.status === "running");
    const stopped = await exports.AgentThink.dispatch({ repo, issueNumber: 3, instruction: "stop", installationToken: "ghs_maintainerSTOPtoken000000000000", requestedBy: { login: "maria" } });
    expect(stopped).toMatchObject({ session: sessionName(repo, 3), submissionId: started.submissionId });
    const reporter = await agentFor(started.session);
    expect((await waitForStatus(reporter, started.submissionId)).status).toBe("aborted");
    // The reporter session's run context still holds its own (empty) token, not the maintainer's.
    const token = await runInDurableObject(reporter as unknown as DurableObjectStub, (_instance, state) =>
      state.storage.get<{ installationToken: string }>("agent-think:run-context")
    );
    expect(token?.installationToken).toBe("");
  });

  it("refuses a reporter-tier continue before anything is written", async () => {
    const repo = uniqueRepo();
    const refused = await createService(env)
      .dispatch({ ...reporterDispatch(repo, 4, "", 401), instruction: "continue" })
      .then(
        () => null,
        (error: unknown) => error
      );
    expect(refused).toBeInstanceOf(InvalidInputError);
    expect((refused as Error).message).toBe("invalid input: instruction: a reporter-tier dispatch only asks for a reproduction, never a continuation");
    expect(await (await agentFor(sessionName(repo, 4, "reporter"))).listSubmissions()).toEqual([]);
  });

  it("is continued from the dashboard with a read-only token, never the bot's write token", async () => {
    const repo = uniqueRepo();
    const failed = await exports.AgentThink.dispatch(reporterDispatch(repo, 5, "TEST: fail the model gave up", 501));
    const agent = await agentFor(failed.session);
    expect((await waitForStatus(agent, failed.submissionId)).status).toBe("error");
    await waitForThread(failed.session, (thread) => thread.status === "error");
    const minted = TestTokenBroker.minted.length;
    const outcome = await createService(env).continueRun(failed.session, "operator@example.com");
    expect(outcome.ok).toBe(true);
    expect(TestTokenBroker.minted.slice(minted)).toContain(`read:${repo}`);
    expect(TestTokenBroker.minted.slice(minted)).not.toContain(repo);
    if (outcome.ok) await waitForStatus(agent, outcome.result.submissionId);
  });
});

describe("a workspace written before each tier had its own", () => {
  it("is emptied once when this version first uses it, and kept after", async () => {
    const session = sessionName(uniqueRepo(), 6);
    // A stub broken by an eviction is not used again: each step gets a new one.
    const workspace = async () => (await getAgentByName(env.WorkspaceAgent, session)) as unknown as DurableObjectStub<WorkspaceAgent> & Pick<WorkspaceAgent, "exec">;
    const shell = async (command: string) => (await workspace()).exec({ command, backend: "shell", timeoutMs: 30_000 });
    await shell("mkdir -p /workspace/repro && echo planted > /workspace/repro/package.json");
    // As a workspace from before this version: its files are there, and it was never marked.
    await runInDurableObject(await workspace(), (_instance, state) => void state.storage.kv.delete("agent-think:workspace-trust-v1"));
    await evict(await workspace());
    expect(await shell("ls -A /workspace; echo listed")).toMatchObject({ stdout: { text: "listed\n" } });
    await shell("echo kept > /workspace/kept.txt");
    await evict(await workspace());
    expect(await shell("ls -A /workspace")).toMatchObject({ stdout: { text: "kept.txt\n" } });
  });
});
