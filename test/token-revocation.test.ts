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
import { sessionName } from "../src/run/session-name";
import { agentFor, evict, uniqueRepo, waitForStatus, type TestAgent } from "./helpers";
import { FakeGitHub, serveGitHub } from "./support/github";

const github = new FakeGitHub();
const server = serveGitHub(github);

type ReportingAgent = TestAgent & DurableObjectStub & { notices(): Promise<OutboxEntry[]> };

const tokenFor = (name: string) => `ghs_revoke${name}${crypto.randomUUID().replaceAll("-", "")}`;

async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A run with its own token, configured before it starts; followed to the end of its turn. */
async function run(
  instruction: string,
  options: { configure?: (instance: ThinkAgent) => void; namespace?: Env["ReportingThinkAgent"]; during?: (agent: ReportingAgent, submissionId: string, fresh: () => Promise<ReportingAgent>, repo: string) => Promise<void> } = {}
) {
  const repo = uniqueRepo();
  const session = sessionName(repo, 3);
  const namespace = options.namespace ?? env.ReportingThinkAgent;
  const agent = (await agentFor(session, namespace)) as unknown as ReportingAgent;
  if (options.configure) await runInDurableObject(agent as unknown as DurableObjectStub<ThinkAgent>, options.configure);
  const token = tokenFor("Run");
  const { submissionId } = await agent.startRun({ session, repo, issueNumber: 3, instruction, installationToken: token, commentId: 3 });
  const fresh = async () => (await agentFor(session, namespace)) as unknown as ReportingAgent;
  await options.during?.(agent, submissionId, fresh, repo);
  const status = await waitForStatus((await agentFor(session, namespace)) as unknown as ReportingAgent, submissionId);
  return { agent, repo, session, token, submissionId, status };
}

const revoked = (token: string) => until(() => github.revoked.includes(token), Boolean);

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
    const { token, status, repo } = await run("TEST: run sleep 2 && echo late\nTEST: reply finished late", {
      configure: (instance) => {
        instance.staleRunMs = 300;
      }
    });
    expect(status.status).toBe("completed");
    expect(await revoked(token)).toBe(true);
    expect(github.comments(repo, 3).some((comment) => comment.body.includes(":stale"))).toBe(true);
  });

  it("is revoked when the run was interrupted and could not recover", async () => {
    const { token, status } = await run("TEST: sleep 2000\nTEST: reply late", {
      namespace: env.FragileThinkAgent,
      // Evicted while the model is thinking, until it gives up (one recovery is allowed), as test/reporting.test.ts does.
      during: async (_agent, submissionId, fresh) => {
        await waitForStatus(await fresh(), submissionId, ["running"]);
        for (let i = 0; i < 6; i++) {
          const agent = await fresh();
          if ((await agent.submissionStatus(submissionId))?.status !== "running") break;
          await new Promise((resolve) => setTimeout(resolve, 400));
          await evict(agent);
        }
      }
    });
    expect(status.status).toBe("error");
    expect(await revoked(token)).toBe(true);
  });

  it("is kept while another turn of the issue waits for it, and revoked when that one ends", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, 4);
    const agent = (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent;
    const token = tokenFor("Shared");
    const first = await agent.startRun({ session, repo, issueNumber: 4, instruction: "TEST: sleep 300\nTEST: reply first", installationToken: token, commentId: 41 });
    const second = await agent.startRun({ session, repo, issueNumber: 4, instruction: "TEST: sleep 300\nTEST: reply second", installationToken: token, commentId: 42 });
    expect((await waitForStatus(agent, first.submissionId)).status).toBe("completed");
    // The first closing comment is out, and the second turn still runs with the token.
    await until(() => github.comments(repo, 4).length, (count) => count >= 1);
    expect(github.revoked).not.toContain(token);
    expect((await waitForStatus(agent, second.submissionId)).status).toBe("completed");
    expect(await revoked(token)).toBe(true);
  });

  it("is revoked at once when a newer dispatch replaced it", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, 5);
    const agent = (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent;
    const [older, newer] = [tokenFor("Older"), tokenFor("Newer")];
    const first = await agent.startRun({ session, repo, issueNumber: 5, instruction: "TEST: sleep 1500\nTEST: reply first", installationToken: older, commentId: 51 });
    await waitForStatus(agent, first.submissionId, ["running"]);
    const second = await agent.startRun({ session, repo, issueNumber: 5, instruction: "TEST: reply second", installationToken: newer, commentId: 52 });
    expect(await revoked(older)).toBe(true);
    expect(github.revoked).not.toContain(newer);
    // Both runs end here, their comments posted, while this file's GitHub still answers.
    expect((await waitForStatus(agent, first.submissionId)).status).toBe("completed");
    expect((await waitForStatus(agent, second.submissionId)).status).toBe("completed");
    expect(await revoked(newer)).toBe(true);
  });
});

describe("the read-only token the gateway read with", () => {
  it("is revoked when its turn ends, and the next turn mints its own", async () => {
    const readOnly = (repo: string) => `ghs_testReadOnly_${repo.replace(/\W/g, "_")}`;
    const { repo, status } = await run("TEST: sleep 1500\nTEST: reply done", {
      during: async (agent, submissionId, _fresh, repo) => {
        await waitForStatus(agent, submissionId, ["running"]);
        // As the sandbox's first read of GitHub would: the gateway asks for the grant, which mints the read-only token.
        const clone = { url: `https://github.test/${repo}.git/info/refs?service=git-upload-pack`, method: "GET" };
        expect((await agent.egressGrant(clone)).grant.readToken).toMatch(/^ghs_testReadOnly_/);
      }
    });
    expect(status.status).toBe("completed");
    expect(await revoked(readOnly(repo))).toBe(true);
  });
});
