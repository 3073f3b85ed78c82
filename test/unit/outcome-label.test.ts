/**
 * The outcome's label on the issue (`agent-think:<outcome>`): queued with a
 * result's closing comment on an issue (never on a pull request, nor for a
 * reporter-tier run), applied only once that comment is posted, replacing an
 * earlier run's label, through the outbox that retries it; and the run owes
 * its issue the label until then, so its token outlives it.
 */
import { describe, expect, it } from "vitest";
import { GitHubCallError, type GitHubClient } from "../../src/github/client";
import { closingNotice, labelNotice, noticeId } from "../../src/report/notices";
import { deliver, Outbox, type DeliveryClient, type OutboxEntry } from "../../src/report/outbox";
import { createReportClient } from "../../src/report/report-client";
import { Reporter } from "../../src/report/reporter";
import type { RunRef } from "../../src/report/run-ref";
import { runRefFor } from "../../src/report/run-ref";
import type { RunEnding } from "../../src/run/ending";
import { memoryClonedStorage } from "./memory-storage";

const run: RunRef = { repo: "acme/app", issueNumber: 3, submissionId: "s1", threadUrl: "https://bot.test/thread/acme-app-3" };
const answered: RunEnding = { kind: "result", result: { outcome: "answered", summary: "Yes.", answer: "Use `strict: false`.", sources: [{ where: "README.md:12", says: "strict is optional." }] } };

function labellingClient(fail?: Error) {
  const calls: string[] = [];
  const client: DeliveryClient = {
    react: async () => {},
    comment: async () => ({ id: 1, url: "https://gh.test/c/1" }),
    findComment: async () => null,
    async labelIssue(repo, issueNumber, label, replacing) {
      calls.push(`${repo}#${issueNumber} ${label} replacing ${replacing}*`);
      if (fail) throw fail;
    }
  };
  return { client, calls };
}

describe("the outcome's label notice", () => {
  it("is queued for a result on an issue, named after the outcome the issue is told", () => {
    expect(labelNotice(run, answered)).toEqual({ id: "s1:label", kind: "label", submissionId: "s1", repo: "acme/app", issueNumber: 3, label: "agent-think:answered" });
    // A pull request the proof did not hold is labelled as the comment says it: pr-unproven.
    const unproven: RunEnding = { kind: "result", result: { outcome: "pr-unproven", summary: "s", pullRequestUrl: "https://github.com/acme/app/pull/4", changes: ["c"], verification: "v" } };
    expect(labelNotice(run, unproven)?.label).toBe("agent-think:pr-unproven");
  });

  it("is not queued for a run without a result, on a pull request, or for a reporter-tier run", () => {
    for (const ending of [{ kind: "finished", text: "done" }, { kind: "failed", error: "x" }, { kind: "cancelled" }] as RunEnding[]) expect(labelNotice(run, ending)).toBeNull();
    expect(labelNotice({ ...run, onPullRequest: true }, answered)).toBeNull();
    expect(labelNotice({ ...run, tier: "reporter" }, answered)).toBeNull();
  });

  it("knows a pull request's run from its run context", () => {
    const source = { submissionId: "s1", session: "acme-app-3", publicBaseUrl: "https://bot.test", githubApiUrl: "https://api.github.com" };
    expect(runRefFor({ ...source, run: { repo: "acme/app", issueNumber: 3 } }).onPullRequest).toBeUndefined();
    const pullRequest = { number: 3, url: "https://github.com/acme/app/pull/3", headRef: "feature", headRepo: "acme/app", baseRef: "main", isFork: false };
    expect(runRefFor({ ...source, run: { repo: "acme/app", issueNumber: 3, pullRequest } as never }).onPullRequest).toBe(true);
  });
});

describe("delivering the label", () => {
  async function queued(closingState?: OutboxEntry["state"]) {
    const outbox = new Outbox(memoryClonedStorage());
    if (closingState) {
      const closing = (await outbox.add(closingNotice(run, answered), 1_000))!;
      await outbox.put({ ...closing, state: closingState });
    }
    return { outbox, label: (await outbox.add(labelNotice(run, answered)!, 1_000))! };
  }

  it("waits while the closing comment is on its way, without trying", async () => {
    for (const state of [undefined, "pending"] as const) {
      const { outbox, label } = await queued(state);
      const { client, calls } = labellingClient();
      const result = await deliver(label, { outbox, client, now: () => 2_000 });
      expect(result).toMatchObject({ outcome: "waiting", inMs: 1_000 });
      expect(calls).toEqual([]);
      expect((await outbox.get(label.id))?.attempts).toBe(0);
    }
  });

  it("gives the issue its label, replacing agent-think's others, once the closing comment is posted", async () => {
    const { outbox, label } = await queued("sent");
    const { client, calls } = labellingClient();
    expect(await deliver(label, { outbox, client, now: () => 2_000 })).toMatchObject({ outcome: "sent", entry: { state: "sent", attempts: 1 } });
    expect(calls).toEqual(["acme/app#3 agent-think:answered replacing agent-think:*"]);
  });

  it("is given up when the closing comment was, and retried as any notice when GitHub fails", async () => {
    const given = await queued("failed");
    const { client, calls } = labellingClient();
    expect(await deliver(given.label, { outbox: given.outbox, client, now: () => 2_000 })).toMatchObject({
      outcome: "failed",
      entry: { state: "failed", lastError: "the closing comment was not posted" }
    });
    expect(calls).toEqual([]);
    const down = await queued("sent");
    const failing = labellingClient(new GitHubCallError("GitHub add label: 502", "retryable", 502));
    expect(await deliver(down.label, { outbox: down.outbox, client: failing.client, now: () => 2_000 })).toMatchObject({ outcome: "retry", entry: { state: "pending", attempts: 1 } });
    // A client that cannot label (the shared one) is a refusal, not a retry.
    const plain: GitHubClient = { react: async () => {}, comment: async () => ({ id: 1, url: "u" }), findComment: async () => null };
    const refused = await queued("sent");
    expect(await deliver(refused.label, { outbox: refused.outbox, client: plain, now: () => 2_000 })).toMatchObject({ outcome: "failed", entry: { lastError: "no issue labels" } });
  });
});

/** GitHub as a stub fetch: the issue's labels, and every request as `METHOD path`. */
function labelledGitHub(held: string[], removeStatus = 200) {
  const requests: string[] = [];
  const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  const label = (name: string) => ({ id: 1, node_id: "LA_1", url: "u", name, description: null, color: "ededed", default: false });
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? "GET";
    requests.push(`${method} ${decodeURIComponent(url.pathname)}${method === "POST" ? ` ${String(init?.body)}` : ""}`);
    if (url.pathname.endsWith("/comments")) return json({ id: 2, html_url: "https://gh.test/c/2" }, 201);
    if (method === "GET") return json(held.map(label));
    if (method === "DELETE") return removeStatus === 200 ? json([]) : json({ message: "Label does not exist" }, removeStatus);
    return json([]);
  }) as typeof globalThis.fetch;
  return { fetch, requests };
}

describe("the label on GitHub", () => {
  it("adds the outcome's label, then takes off an earlier run's, leaving the issue's own labels", async () => {
    const github = labelledGitHub(["bug", "agent-think:reproduced", "Agent-Think:needs-info"]);
    const client = createReportClient({ baseUrl: "https://api.github.test", token: "ghs_x", fetch: github.fetch });
    await client.labelIssue("acme/app", 3, "agent-think:fixed-upstream", "agent-think:");
    expect(github.requests).toEqual([
      "GET /repos/acme/app/issues/3/labels",
      'POST /repos/acme/app/issues/3/labels {"labels":["agent-think:fixed-upstream"]}',
      "DELETE /repos/acme/app/issues/3/labels/agent-think:reproduced",
      "DELETE /repos/acme/app/issues/3/labels/Agent-Think:needs-info"
    ]);
  });

  it("adds nothing the issue has already (a retry), and takes a label someone removed meanwhile as removed", async () => {
    const github = labelledGitHub(["AGENT-THINK:ANSWERED", "agent-think:reproduced"], 404);
    const client = createReportClient({ baseUrl: "https://api.github.test", token: "ghs_x", fetch: github.fetch });
    await client.labelIssue("acme/app", 3, "agent-think:answered", "agent-think:");
    expect(github.requests).toEqual(["GET /repos/acme/app/issues/3/labels", "DELETE /repos/acme/app/issues/3/labels/agent-think:reproduced"]);
    const down = createReportClient({ baseUrl: "https://api.github.test", token: "ghs_x", fetch: labelledGitHub(["agent-think:reproduced"], 502).fetch });
    await expect(down.labelIssue("acme/app", 3, "agent-think:answered", "agent-think:")).rejects.toMatchObject({ kind: "retryable", status: 502 });
  });

  it("is posted after the closing comment in one pass, and the run owes its issue the label until then", async () => {
    const github = labelledGitHub(["agent-think:reproduced"]);
    const settled: string[] = [];
    const owing: Promise<boolean>[] = [];
    const reporter: Reporter = new Reporter({
      storage: memoryClonedStorage(),
      apiUrl: () => "https://api.github.test",
      token: async () => "ghs_x",
      botLogin: async () => "agent-think[bot]",
      scheduleDelivery: async () => {},
      waitUntil: () => {},
      log: () => {},
      fetch: github.fetch,
      onSettled: (entry) => {
        settled.push(`${entry.kind}:${entry.state}`);
        // Read as the comment settles (the storage is read at the call).
        if (entry.kind === "closing") owing.push(reporter.owesEnding("s1"));
      }
    });
    await reporter.post(closingNotice(run, answered), labelNotice(run, answered)!);
    await reporter.deliverPending();
    expect(settled).toEqual(["closing:sent", "label:sent"]);
    // When the comment settled, the label was still owed; now nothing is.
    expect(await Promise.all(owing)).toEqual([true]);
    expect(await reporter.owesEnding("s1")).toBe(false);
    expect(github.requests.map((request) => request.split(" ").slice(0, 2).join(" "))).toEqual([
      "POST /repos/acme/app/issues/3/comments",
      "GET /repos/acme/app/issues/3/labels",
      "POST /repos/acme/app/issues/3/labels",
      "DELETE /repos/acme/app/issues/3/labels/agent-think:reproduced"
    ]);
    expect((await reporter.entries()).map((entry) => entry.id)).toEqual([noticeId("s1", "closing"), noticeId("s1", "label")]);
  });
});
