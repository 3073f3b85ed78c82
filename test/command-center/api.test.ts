/**
 * The dashboard API over a real command center: handleApiRoute composed as
 * src/service.ts composes it (continueThread: claim, a token from the
 * GITHUB_AUTH stand-in, submit), with the submit faked by reporting the
 * continuation's dispatch as a ThinkAgent would.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { commandCenter } from "../../src/command-center";
import { continueThread } from "../../src/command-center/continuation";
import { handleApiRoute, type ApiRouteDeps } from "../../src/http/api-routes";
import { threadDetailSchema, type Snapshot } from "../../src/shared/command-center";
import type { TestTokenBroker } from "../worker";

type TokenBroker = Pick<TestTokenBroker, "mintInstallationToken">;
const ORIGIN = "https://agent-think.test";

async function api() {
  const center = await commandCenter(env, `test-${crypto.randomUUID()}`);
  const submitted: string[] = [];
  const deps: ApiRouteDeps = {
    snapshot: (options) => center.snapshot(options),
    threadDetail: (session) => center.threadDetail(session),
    repositories: () => center.repositories(),
    operator: () => "operator@example.com",
    continueRun: (session) =>
      continueThread(session, {
        claim: (s) => center.claimForContinuation(s, Date.now()),
        release: (s, error) => center.releaseClaim(s, error),
        mintToken: async (repo) => (await (env.GITHUB_AUTH as unknown as TokenBroker).mintInstallationToken(repo)).token,
        submit: async (thread, token) => {
          submitted.push(token);
          const submissionId = crypto.randomUUID();
          await center.record({ type: "dispatched", session: thread.session, repo: thread.repo, issueNumber: thread.issueNumber, instruction: "continue", submissionId, at: Date.now() });
          return { session: thread.session, submissionId };
        }
      })
  };
  return { center, deps, submitted };
}

const post = (session: string) =>
  new Request(`${ORIGIN}/api/command-center/continue/${session}`, { method: "POST", headers: { origin: ORIGIN, "sec-fetch-site": "same-origin" } });

describe("dashboard API over the command center", () => {
  it("continues a failed run once (202, then 409), 404 for unknown", async () => {
    const { center, deps, submitted } = await api();
    const repo = `acme/r${crypto.randomUUID().slice(0, 8)}`;
    const session = `${repo.replace("/", "-")}-5`;
    const at = Date.now();
    await center.record({ type: "dispatched", session, repo, issueNumber: 5, instruction: "reproduce", submissionId: "s1", at });
    await center.record({ type: "turn-ended", session, submissionId: "s1", status: "error", error: "boom", at: at + 1 });

    const accepted = await handleApiRoute(post(session), deps);
    expect(accepted?.status).toBe(202);
    const body = (await accepted!.json()) as { session: string; submissionId: string };
    expect(body.session).toBe(session);
    expect(submitted).toEqual([`ghs_testMinted_${repo.replace(/\W/g, "_")}`]);
    expect((await handleApiRoute(post(session), deps))?.status).toBe(409);
    expect((await handleApiRoute(post("acme-nothing-here-9"), deps))?.status).toBe(404);

    const snapshot = (await (await handleApiRoute(new Request(`${ORIGIN}/api/command-center?limit=10`), deps))!.json()) as Snapshot;
    expect(snapshot.threads[0]).toMatchObject({ session, status: "running", runCount: 2, submissionId: body.submissionId });
    expect((await handleApiRoute(new Request(`${ORIGIN}/api/command-center?limit=999`), deps))?.status).toBe(400);
  });

  it("lists each run with the requests the egress gateway refused it (GET threads/:session)", async () => {
    const { center, deps } = await api();
    const repo = `acme/r${crypto.randomUUID().slice(0, 8)}`;
    const session = `${repo.replace("/", "-")}-7`;
    const at = Date.now();
    const first = [{ host: "evil.example", method: "GET", count: 2 }];
    const latest = [
      { host: "api.github.com", method: "POST", count: 3 },
      { host: "evil.example", method: "GET", count: 1 }
    ];
    await center.record({ type: "dispatched", session, repo, issueNumber: 7, instruction: "reproduce", submissionId: "s1", at });
    await center.record({ type: "egress", session, submissionId: "s1", blocked: first, at: at + 1 });
    await center.record({ type: "turn-ended", session, submissionId: "s1", status: "error", error: "boom", at: at + 2 });
    await center.record({ type: "dispatched", session, repo, issueNumber: 7, instruction: "again", submissionId: "s2", at: at + 10 });
    expect(await center.record({ type: "egress", session, submissionId: "s2", blocked: latest, at: at + 11 })).toEqual({ applied: true });
    // The first tally of s2, arriving late: it changes nothing.
    expect(await center.record({ type: "egress", session, submissionId: "s2", blocked: [latest[1]!], at: at + 5 })).toEqual({ applied: false, reason: "duplicate" });
    await center.record({ type: "turn-ended", session, submissionId: "s2", status: "done", at: at + 20 });

    const response = await handleApiRoute(new Request(`${ORIGIN}/api/command-center/threads/${session}`), deps);
    expect(response?.status).toBe(200);
    const detail = threadDetailSchema.parse(await response!.json());
    expect(detail.thread).toMatchObject({ submissionId: "s2", blockedRequests: 4 });
    expect(detail.runs.map((run) => [run.submissionId, run.blocked])).toEqual([
      ["s2", latest],
      ["s1", first]
    ]);
  });

  it("refuses to continue a cancelled run (409), minting no token", async () => {
    const { center, deps, submitted } = await api();
    const repo = `acme/r${crypto.randomUUID().slice(0, 8)}`;
    const session = `${repo.replace("/", "-")}-6`;
    const at = Date.now();
    await center.record({ type: "dispatched", session, repo, issueNumber: 6, instruction: "reproduce", submissionId: "s1", at });
    await center.record({ type: "turn-ended", session, submissionId: "s1", status: "cancelled", at: at + 1 });

    expect((await handleApiRoute(post(session), deps))?.status).toBe(409);
    expect(submitted).toEqual([]);
    const snapshot = (await (await handleApiRoute(new Request(`${ORIGIN}/api/command-center?limit=10`), deps))!.json()) as Snapshot;
    expect(snapshot.threads[0]).toMatchObject({ session, status: "cancelled", runCount: 1, submissionId: "s1" });
  });
});
