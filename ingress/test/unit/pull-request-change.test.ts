/**
 * What a `pull_request` delivery alone says (ingress/src/pull-request-change.ts),
 * read from GitHub's published examples (scripts/lib/github-delivery.ts's
 * `pullRequestPayload`): how the pull request stands and since when, the
 * issue its branch is for and who opened it; an action that changes
 * nothing kept, a fork's head and a branch that is not the App's, and the
 * field a payload that does not read fails on.
 */
import { describe, expect, it } from "vitest";
import { pullRequestExample, pullRequestPayload, type PullRequestDeliveryOptions } from "../../../scripts/lib/github-delivery";
import { readPullRequestChange } from "../../src/pull-request-change";

const OPENED = "2026-12-01T09:00:00Z";
const CHANGED = "2026-12-02T10:30:00Z";
const payload = (options: Partial<PullRequestDeliveryOptions> & Pick<PullRequestDeliveryOptions, "action">) =>
  pullRequestPayload({ repo: "acme/widgets", pullNumber: 44, headRef: "agent-think/issue-12", createdAt: OPENED, changedAt: CHANGED, ...options });

describe("a pull request's change", () => {
  it("reads a merge, a close, an opening and a reopening, each at GitHub's time of it", () => {
    const read = (options: Parameters<typeof payload>[0]) => {
      const result = readPullRequestChange(payload(options));
      return result.ok ? [result.change.event.state, result.change.event.at] : result;
    };
    expect(read({ action: "closed", merged: true })).toEqual(["merged", Date.parse(CHANGED)]);
    expect(read({ action: "closed", merged: false })).toEqual(["closed", Date.parse(CHANGED)]);
    expect(read({ action: "opened", changedAt: OPENED })).toEqual(["open", Date.parse(OPENED)]);
    expect(read({ action: "reopened" })).toEqual(["open", Date.parse(CHANGED)]);
  });

  it("names the repository, the pull request, the issue its branch is for, when it was opened and who opened it", () => {
    expect(readPullRequestChange(payload({ action: "closed", merged: true }))).toEqual({
      ok: true,
      change: {
        event: { type: "pull-request", repo: "acme/widgets", number: 44, issueNumber: 12, state: "merged", openedAt: Date.parse(OPENED), at: Date.parse(CHANGED) },
        author: expect.objectContaining({ login: "agent-think[bot]", type: "Bot" })
      }
    });
  });

  it("leaves out other actions, a fork's head and a branch that is not the App's", () => {
    expect(readPullRequestChange({ ...payload({ action: "opened" }), action: "synchronize" })).toEqual({ ok: false, ignore: "action", action: "synchronize" });
    expect(readPullRequestChange({ zen: "Keep it logically awesome." })).toEqual({ ok: false, ignore: "action" });
    expect(readPullRequestChange(payload({ action: "closed", headRepo: "mallory/widgets" }))).toEqual({ ok: false, ignore: "fork", repo: "acme/widgets", number: 44 });
    for (const headRef of ["fix-parser", "agent-think/issue-012", "agent-think/issue-12/x"]) {
      expect(readPullRequestChange(payload({ action: "closed", headRef }))).toEqual({ ok: false, ignore: "not_app_branch", repo: "acme/widgets", number: 44, headRef });
    }
    const published = pullRequestExample("closed");
    expect(readPullRequestChange(published)).toMatchObject({ ok: false, ignore: "not_app_branch", repo: published.repository.full_name });
  });

  it("names the field a payload that does not read fails on", () => {
    const body = payload({ action: "closed", merged: true });
    expect(readPullRequestChange({ ...body, pull_request: { ...body.pull_request, merged_at: "soon" } })).toEqual({ ok: false, field: "pull_request.merged_at" });
    expect(readPullRequestChange({ ...body, repository: { ...body.repository, full_name: "acme" } })).toEqual({ ok: false, field: "repository.full_name" });
    expect(readPullRequestChange({ ...body, pull_request: { ...body.pull_request, number: -1 } })).toEqual({ ok: false, field: "pull_request.number" });
  });
});
