/**
 * The command center through the real Worker: runs reported by real turns
 * appear in GET /api/command-center, a failed run is continued by POST
 * /api/command-center/continue/:session in the same session with a token
 * from the (test) token broker, and a command center that hangs or throws
 * never delays or fails a run.
 */
import { env, exports } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import type { ThinkAgent } from "../src/agent";
import type { CommandCenter } from "../src/command-center";
import { sessionName } from "../src/shared/session-name";
import { TRUST_FACTS_TIMEOUT_MS } from "../src/steps/turn-workspace";
import { threadDetailSchema, type Snapshot } from "../src/shared/command-center";
import { agentFor, uniqueRepo, waitForStatus, waitForThread } from "./helpers";
import { TestTokenBroker } from "./worker";

// The test Worker runs with LOCAL_DEV=1, which answers only loopback hosts.
const BASE = "http://127.0.0.1:8787";

/** The thread as GET /api/command-center pages it, once it no longer runs. */
const threadOf = (session: string) =>
  waitForThread(session, undefined, {
    readPage: async (cursor) => {
      const response = await exports.default.fetch(`${BASE}/api/command-center?limit=200${cursor ? `&cursor=${cursor}` : ""}`);
      expect(response.status).toBe(200);
      return (await response.json()) as Snapshot;
    }
  });

const continueRequest = (session: string, origin = BASE) =>
  exports.default.fetch(`${BASE}/api/command-center/continue/${session}`, {
    method: "POST",
    headers: { origin, "content-type": "application/json" },
    body: "{}"
  });

describe("the command center API", () => {
  it("lists a finished run with its counts", async () => {
    const { session, submissionId } = await exports.AgentThink.dispatch({
      repo: uniqueRepo(),
      issueNumber: 31,
      instruction: "TEST: run echo one\nTEST: run exit 3\nTEST: reply counted",
      installationToken: "",
      issueTitle: "Counting tools",
      requestedBy: { login: "octocat" }
    });
    await waitForStatus(await agentFor(session), submissionId);
    expect(await threadOf(session)).toMatchObject({
      session,
      issueNumber: 31,
      issueTitle: "Counting tools",
      requestedBy: { login: "octocat" },
      instructionSummary: "TEST: run echo one",
      status: "done",
      runCount: 1,
      toolCalls: 2,
      toolErrors: 0,
      submissionId,
      firstToolMs: expect.any(Number),
      durationMs: expect.any(Number),
      // The scripted model reports usage for each of its three calls.
      tokens: { input: expect.any(Number), output: expect.any(Number) }
    });
    expect((await threadOf(session))!.tokens!.input).toBeGreaterThan(0);
  });

  it("continues a failed run in the same session with a freshly minted token", async () => {
    const repo = uniqueRepo();
    const { session, submissionId } = await exports.AgentThink.dispatch({
      repo,
      issueNumber: 32,
      instruction: "TEST: fail-once the model fell over\nTEST: reply recovered",
      installationToken: ""
    });
    const agent = await agentFor(session);
    expect((await waitForStatus(agent, submissionId)).status).toBe("error");
    expect(await threadOf(session)).toMatchObject({ status: "error", lastError: expect.stringContaining("fell over") });

    expect((await continueRequest(session, "https://evil.example")).status).toBe(403);
    const response = await continueRequest(session);
    expect(response.status).toBe(202);
    const result = (await response.json()) as { session: string; submissionId: string };
    expect(result.session).toBe(session);
    expect(TestTokenBroker.minted).toContain(repo);
    expect((await waitForStatus(agent, result.submissionId)).status).toBe("completed");
    expect(await threadOf(session)).toMatchObject({ status: "done", runCount: 2, submissionId: result.submissionId });
    // Done now: not claimable again.
    expect((await continueRequest(session)).status).toBe(409);
    expect((await continueRequest(sessionName(uniqueRepo(), 1))).status).toBe(404);
  });

  it("lists a thread's runs newest first, with who continued one and what each cost, and 404s an unknown thread", async () => {
    const repo = uniqueRepo();
    const { session, submissionId } = await exports.AgentThink.dispatch({
      repo,
      issueNumber: 33,
      instruction: "TEST: run echo first\nTEST: fail-once the model fell over\nTEST: reply recovered",
      installationToken: ""
    });
    const agent = await agentFor(session);
    expect((await waitForStatus(agent, submissionId)).status).toBe("error");
    await threadOf(session);
    const continued = (await (await continueRequest(session)).json()) as { submissionId: string };
    expect((await waitForStatus(agent, continued.submissionId)).status).toBe("completed");
    const thread = await threadOf(session);
    // Access is off in the test Worker: the operator is the local one.
    expect(thread).toMatchObject({ status: "done", continuedBy: "local operator", cost: { usd: 0, complete: true } });

    const response = await exports.default.fetch(`${BASE}/api/command-center/threads/${session}`);
    expect(response.status).toBe(200);
    const detail = threadDetailSchema.parse(await response.json());
    expect(detail.runs.map((run) => [run.submissionId, run.status, run.continuedBy, run.scripted])).toEqual([
      [continued.submissionId, "done", "local operator", true],
      [submissionId, "error", undefined, true]
    ]);
    // The scripted model costs nothing, and says so: $0.00, not unknown.
    expect(detail.runs.map((run) => run.cost)).toEqual([{ usd: 0, complete: true }, { usd: 0, complete: true }]);
    expect(detail.runs[1]!.toolCalls).toBe(1);

    const unknown = await exports.default.fetch(`${BASE}/api/command-center/threads/${sessionName(uniqueRepo(), 1)}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: "no such thread" });
    expect((await exports.default.fetch(`${BASE}/api/command-center/threads/not%20a%20session`)).status).toBe(404);
  });

  it("never lets a command center that hangs or throws delay or fail a run", async () => {
    /** One run on a new issue, its agent's command center replaced by `center` (the real one when none), and how long it took. */
    const timedRun = async (center?: () => Promise<CommandCenter>) => {
      const repo = uniqueRepo();
      const session = sessionName(repo, 33);
      const agent = await getAgentByName(env.ThinkAgent, session);
      if (center) {
        await runInDurableObject(agent as unknown as DurableObjectStub<ThinkAgent>, (instance) => {
          (instance as unknown as { commandCenter: () => Promise<CommandCenter> }).commandCenter = center;
        });
      }
      const started = Date.now();
      const { submissionId } = await exports.AgentThink.dispatch({
        repo,
        issueNumber: 33,
        instruction: "TEST: run echo still-fine\nTEST: reply done",
        installationToken: ""
      });
      const { status } = await waitForStatus(await agentFor(session), submissionId);
      return { status, ms: Date.now() - started };
    };
    // Side by side, so whatever load the machine is under slows all three alike: the run with a working command
    // center is the yardstick for how long a run takes here and now.
    const [working, hanging, throwing] = await Promise.all([
      timedRun(),
      timedRun(() => new Promise<CommandCenter>(() => {})),
      timedRun(async (): Promise<CommandCenter> => {
        throw new Error("command center is down");
      })
    ]);
    expect([working.status, hanging.status, throwing.status]).toEqual(["completed", "completed", "completed"]);
    // One that hangs costs a run no more than the preparation's bounded wait for what another tier's run left
    // (TRUST_FACTS_TIMEOUT_MS); one that throws costs it nothing. The margin is the yardstick again and a second.
    expect(hanging.ms).toBeLessThan(TRUST_FACTS_TIMEOUT_MS + 2 * working.ms + 1_000);
    expect(throwing.ms).toBeLessThan(2 * working.ms + 1_000);
  });
});
