/**
 * A run's installation tokens end with it, whatever the ending: once its
 * closing comment has settled, its token is revoked on GitHub (`DELETE
 * /installation/token`, MSW judged by GitHub's REST description), and the
 * read-only token the gateway read with is revoked when its turn ends. With
 * real Think turns on the scripted model: done, failed, cancelled, out of
 * budget, gone quiet (the watchdog's stale notice, then its end), and
 * interrupted past recovery. A token another turn of the issue still needs
 * is kept until that turn ends; a token a newer dispatch replaced goes at
 * once.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ThinkAgent } from "../src/agent";
import type { OutboxEntry } from "../src/report/outbox";
import { sessionName } from "../src/shared/session-name";
import { agentFor, evictUntilGivenUp, gate, uniqueRepo, until, waitForStatus, type TestAgent } from "./helpers";
import { containerFor, type RecordingContainer } from "./support/containers";
import { FakeGitHub, serveGitHub } from "./support/github";

const github = new FakeGitHub();
const server = serveGitHub(github);

type ReportingAgent = TestAgent & DurableObjectStub & { notices(): Promise<OutboxEntry[]> };

const tokenFor = (name: string) => `ghs_revoke${name}${crypto.randomUUID().replaceAll("-", "")}`;

/**
 * A run with its own token, configured before it starts (`container`: its
 * commands go to a recording container, which the test may hold); followed
 * to the end of its turn.
 */
async function run(
  instruction: string,
  options: {
    configure?: (instance: ThinkAgent) => void;
    namespace?: Env["ReportingThinkAgent"];
    /** A hook reaches the agent through `fresh` (a stub is bound to the request that made it). */
    container?: (container: RecordingContainer, fresh: () => Promise<ReportingAgent>, repo: string) => void;
    during?: (agent: ReportingAgent, submissionId: string, fresh: () => Promise<ReportingAgent>, repo: string) => Promise<void>;
  } = {}
) {
  const repo = uniqueRepo();
  const session = sessionName(repo, 3);
  const namespace = options.namespace ?? env.ReportingThinkAgent;
  const agent = (await agentFor(session, namespace)) as unknown as ReportingAgent;
  if (options.configure) await runInDurableObject(agent as unknown as DurableObjectStub<ThinkAgent>, options.configure);
  const fresh = async () => (await agentFor(session, namespace)) as unknown as ReportingAgent;
  if (options.container) options.container((await containerFor(session)).container, fresh, repo);
  const token = tokenFor("Run");
  const { submissionId } = await agent.startRun({ session, repo, issueNumber: 3, instruction, installationToken: token, commentId: 3 });
  await options.during?.(agent, submissionId, fresh, repo);
  const status = await waitForStatus((await agentFor(session, namespace)) as unknown as ReportingAgent, submissionId);
  return { agent, repo, session, token, submissionId, status };
}

/** Until GitHub saw `token` revoked. */
const revoked = (token: string) => until(() => github.revoked.includes(token), `${token.slice(0, 16)}… to be revoked`);

describe("a run's token", () => {
  it("is revoked once its closing comment is out: done", async () => {
    const { token, status, repo } = await run("TEST: reply done");
    expect(status.status).toBe("completed");
    expect(await revoked(token)).toBe(true);
    // After the closing comment, with the token being revoked.
    const closing = github.calls.findIndex((call) => call.path === `/repos/${repo}/issues/3/comments` && call.method === "POST");
    const revocation = github.calls.findIndex((call) => call.path === "/installation/token" && call.auth === `token ${token}`);
    expect(closing).toBeGreaterThanOrEqual(0);
    expect(revocation).toBeGreaterThan(closing);
  });

  it("is revoked when the run failed", async () => {
    const { token, status } = await run("TEST: fail the model fell over");
    expect(status.status).toBe("error");
    expect(await revoked(token)).toBe(true);
  });

  it("is revoked when the run was cancelled", async () => {
    const { token, status } = await run("TEST: sleep 5000\nTEST: reply late", {
      during: async (agent, submissionId) => {
        await waitForStatus(agent, submissionId, ["running"]);
        await agent.cancelRun("stopped by the test");
      }
    });
    expect(status.status).toBe("aborted");
    expect(await revoked(token)).toBe(true);
  });

  it("is revoked when the run spent its budget", async () => {
    const { token, status, repo } = await run("TEST: tools 5", {
      configure: (instance) => {
        instance.tokenBudget = 50;
      }
    });
    expect(status.status).toBe("completed");
    expect(await revoked(token)).toBe(true);
    expect(github.comments(repo, 3).at(-1)?.body).toMatch(/token budget/);
  });

  it("is revoked when a run the watchdog found quiet ends", async () => {
    const { token, status, repo } = await run("TEST: container echo late\nTEST: reply finished late", {
      configure: (instance) => {
        instance.staleRunMs = 300;
      },
      // The command goes quiet until the watchdog has noticed it.
      container: (container, fresh) =>
        container.during(/echo late/, async () => void (await until(async () => (await fresh()).notices().then((entries) => entries.some((entry) => entry.kind === "stale")), "the stale notice")))
    });
    expect(status.status).toBe("completed");
    expect(await revoked(token)).toBe(true);
    expect(github.comments(repo, 3).some((comment) => comment.body.includes(":stale"))).toBe(true);
  });

  it("is revoked when the run was interrupted and could not recover", async () => {
    const { token, status } = await run("TEST: sleep 5000\nTEST: reply late", {
      namespace: env.FragileThinkAgent,
      // Evicted while the model is thinking, and each turn its recovery starts, until it gives up, as test/reporting.test.ts does.
      during: async (_agent, submissionId, fresh) => evictUntilGivenUp(fresh, submissionId)
    });
    expect(status.status).toBe("error");
    expect(await revoked(token)).toBe(true);
  });

  it("is kept while another turn of the issue waits for it, and revoked when that one ends", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, 4);
    const { container } = await containerFor(session);
    // Each turn's command waits for the test: the first's until the second turn is queued, the second's until the test has looked.
    const [queued, looked] = [gate(), gate()];
    container.during(/echo first/, () => queued.promise);
    container.during(/echo second/, () => looked.promise);
    const agent = (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent;
    const token = tokenFor("Shared");
    const first = await agent.startRun({ session, repo, issueNumber: 4, instruction: "TEST: container echo first\nTEST: reply first", installationToken: token, commentId: 41 });
    const second = await agent.startRun({ session, repo, issueNumber: 4, instruction: "TEST: container echo second\nTEST: reply second", installationToken: token, commentId: 42 });
    queued.open();
    expect((await waitForStatus(agent, first.submissionId)).status).toBe("completed");
    // The first closing comment is out, and the second turn still runs with the token.
    await until(() => github.comments(repo, 4).length >= 1, "the first closing comment");
    expect(github.revoked).not.toContain(token);
    looked.open();
    expect((await waitForStatus(agent, second.submissionId)).status).toBe("completed");
    expect(await revoked(token)).toBe(true);
  });

  it("is revoked at once when a newer dispatch replaced it", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, 5);
    const { container } = await containerFor(session);
    // The first turn's command runs until the test has seen the older token go: it goes while that turn still runs.
    const seen = gate();
    container.during(/echo first/, () => seen.promise);
    const agent = (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent;
    const [older, newer] = [tokenFor("Older"), tokenFor("Newer")];
    const first = await agent.startRun({ session, repo, issueNumber: 5, instruction: "TEST: container echo first\nTEST: reply first", installationToken: older, commentId: 51 });
    await until(() => container.commands().includes("first"), "the first turn's command");
    const second = await agent.startRun({ session, repo, issueNumber: 5, instruction: "TEST: reply second", installationToken: newer, commentId: 52 });
    expect(await revoked(older)).toBe(true);
    expect(github.revoked).not.toContain(newer);
    seen.open();
    // Both runs end here, their comments posted, while this file's GitHub still answers.
    expect((await waitForStatus(agent, first.submissionId)).status).toBe("completed");
    expect((await waitForStatus(agent, second.submissionId)).status).toBe("completed");
    expect(await revoked(newer)).toBe(true);
  });
});

describe("the read-only token the gateway read with", () => {
  it("is revoked when its turn ends, and the next turn mints its own", async () => {
    const readOnly = (repo: string) => `ghs_testReadOnly_${repo.replace(/\W/g, "_")}`;
    const granted: string[] = [];
    const { repo, status, token } = await run("TEST: container echo reading\nTEST: reply done", {
      // While the turn's command runs, as the sandbox's first read of GitHub would: the gateway asks for the grant, which mints the read-only token.
      container: (container, fresh, repo) =>
        container.during(/echo reading/, async () => {
          const clone = { url: `https://github.test/${repo}.git/info/refs?service=git-upload-pack`, method: "GET" };
          granted.push((await (await fresh()).egressGrant(clone)).grant.readToken);
        })
    });
    expect(status.status).toBe("completed");
    expect(granted).toEqual([readOnly(repo)]);
    expect(await revoked(readOnly(repo))).toBe(true);
    // The run's own token goes later, once its messages are out: waited for, so the file's GitHub still answers it.
    expect(await revoked(token)).toBe(true);
  });
});
