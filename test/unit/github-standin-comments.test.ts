/**
 * The GitHub stand-in edits a comment (`PATCH /repos/{owner}/{repo}/issues/
 * comments/{comment_id}`, the progress comment's edits) and reacts on a pull
 * request review comment (the 🚀 of a review comment's run) in GitHub's
 * shapes, judged by GitHub's description, logged like its other calls, and
 * driven by the agent Worker's own reporting client.
 */
import { Octokit } from "@octokit/rest";
import { describe, expect, it } from "vitest";
import { describeRecord } from "../../scripts/lib/github-standin";
import { createReportClient } from "../../src/report/report-client";
import { standinFixture } from "./standin-fixture";

const fixture = standinFixture();
const { start } = fixture;
const octokit = (baseUrl: string, auth?: string) => new Octokit({ baseUrl, ...(auth ? { auth } : {}), log: { debug() {}, info() {}, warn() {}, error() {} } });

describe("GitHub stand-in: comment edits and review-comment reactions", () => {
  it("edits a comment in place: 200 with GitHub's issue comment, the new body listed back, updated_at moved", async () => {
    const github = await start();
    const client = octokit(github.url, "ghs_x");
    const posted = await client.rest.issues.createComment({ owner: "acme", repo: "app", issue_number: 5, body: "⏳ working" });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const edited = await client.rest.issues.updateComment({ owner: "acme", repo: "app", comment_id: posted.data.id, body: "✔️ finished" });
    expect(edited.status).toBe(200);
    expect(edited.data).toMatchObject({ id: posted.data.id, body: "✔️ finished", html_url: posted.data.html_url, created_at: posted.data.created_at });
    expect(Date.parse(edited.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(posted.data.updated_at));
    expect(fixture.description().checkResponse("issues/update-comment", edited.status, edited.data)).toEqual([]);
    const listed = await client.rest.issues.listComments({ owner: "acme", repo: "app", issue_number: 5 });
    expect(listed.data.map((comment) => comment.body)).toEqual(["✔️ finished"]);
    expect(github.refusals()).toEqual([]);
  });

  it("answers 404 for a comment the repository does not have, and 422 for a blank body, as GitHub does", async () => {
    const github = await start();
    const client = octokit(github.url, "ghs_x");
    const posted = await client.rest.issues.createComment({ owner: "acme", repo: "app", issue_number: 5, body: "hello" });
    await expect(client.rest.issues.updateComment({ owner: "acme", repo: "app", comment_id: 999_999, body: "x" })).rejects.toMatchObject({ status: 404 });
    // Another repository's comment of the same id is not this one's.
    await expect(client.rest.issues.updateComment({ owner: "acme", repo: "other", comment_id: posted.data.id, body: "x" })).rejects.toMatchObject({ status: 404 });
    await expect(client.rest.issues.updateComment({ owner: "acme", repo: "app", comment_id: posted.data.id, body: " " })).rejects.toMatchObject({ status: 422 });
    // A body is required by GitHub's description: refused before the model answers. Both are recorded refusals.
    const bare = await fetch(`${github.url}/repos/acme/app/issues/comments/${posted.data.id}`, {
      method: "PATCH",
      headers: { authorization: "token x", "content-type": "application/json" },
      body: "{}"
    });
    expect(bare.status).toBe(422);
    expect(github.refusals().map((record) => record.refused?.status)).toEqual([422, 422]);
  });

  it("the agent Worker's reporting client: an edit, and 🚀 on a review comment, each logged as the dev log shows it", async () => {
    const github = await start();
    const client = createReportClient({ baseUrl: github.url, token: "ghs_run_token" });
    const posted = await client.comment("acme/widgets", 7, "<!-- agent-think:sub-1:progress -->\n⏳ **agent-think is working on this.**");
    await client.editComment("acme/widgets", posted.id, "<!-- agent-think:sub-1:progress -->\n✔️ **agent-think finished.** See the result below.");
    await client.reactToReviewComment("acme/widgets", 4242, "rocket");
    expect(github.refusals()).toEqual([]);
    const records = github.records();
    expect(records.map((record) => record.operation)).toEqual([
      "issues/create-comment",
      "issues/update-comment",
      "reactions/create-for-pull-request-review-comment"
    ]);
    expect(records.map(describeRecord)).toEqual([
      "POST /repos/acme/widgets/issues/7/comments: ⏳ **agent-think is working on this.**",
      `PATCH /repos/acme/widgets/issues/comments/${posted.id}: ✔️ **agent-think finished.** See the result below.`,
      "POST /repos/acme/widgets/pulls/comments/4242/reactions (rocket)"
    ]);
  });
});
