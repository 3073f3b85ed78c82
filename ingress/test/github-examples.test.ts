/**
 * GitHub's own `issue_comment` `created` payloads, as @octokit/webhooks-examples
 * publishes them for github.com and GitHub Enterprise Server, rather than our
 * stand-in (scripts/lib/github-delivery.ts): each one, signed, its repository
 * allowed, its comment a mention made now (the examples date from 2019, far
 * outside the delivery window: ingress/src/freshness.ts), passes the payload
 * schema and the repository identity check and is dispatched as its
 * `full_name` with the visibility its payload states. Its commenter
 * (Codertocat) owns the repository, which GitHub answers as admin.
 */
import { env } from "cloudflare:workers";
// As text: the pool loads vite's JSON modules of these ~12 MB some ten seconds slower than JSON.parse reads them.
import ghes31 from "@octokit/webhooks-examples/ghes-31/index.json?raw";
import ghes32 from "@octokit/webhooks-examples/ghes-32/index.json?raw";
import ghes33 from "@octokit/webhooks-examples/ghes-33/index.json?raw";
import ghes34 from "@octokit/webhooks-examples/ghes-34/index.json?raw";
import ghes35 from "@octokit/webhooks-examples/ghes-35/index.json?raw";
import { describe, expect, it } from "vitest";
import { githubServer, permissionCall } from "./support/github";
import { DOTCOM_EXAMPLES, publishedIssueCommentCreated } from "./support/examples";
import { dispatchesFor, newCommentId, outcome, send, sign } from "./support/ingress";
import { githubTime } from "./support/payloads";

/** The fields this test reads or replaces; the rest of each example is sent as published. */
type Example = {
  action?: string;
  installation?: { id: number };
  repository: { full_name: string; visibility?: string; private: boolean };
  comment: { id: number; body: string; created_at: string; user: { login: string } };
};
const published = { "api.github.com": DOTCOM_EXAMPLES, "ghes-3.1": ghes31, "ghes-3.2": ghes32, "ghes-3.3": ghes33, "ghes-3.4": ghes34, "ghes-3.5": ghes35 };
const examples = publishedIssueCommentCreated<Example>(published);

const github = githubServer();

describe("GitHub's published issue_comment.created examples", () => {
  it("are there to test: every source still publishes at least one", () => {
    const sources = new Set(examples.map(({ source }) => source.split(" #")[0]));
    expect([...sources]).toEqual(Object.keys(published));
  });

  it.each(examples)("$source is dispatched as its full_name, with its visibility", async ({ payload }) => {
    github.use();
    // Each comment is claimed once, and the examples share their comment id.
    const commentId = newCommentId();
    const comment = { ...payload.comment, id: commentId, body: "@agent-think reproduce this issue", created_at: githubTime(), updated_at: githubTime() };
    const delivery = await sign({ ...payload, comment });
    const { repository } = payload;
    const response = await send(delivery, { env: { ...env, ALLOWED_REPOS: repository.full_name } });

    expect(response.status).toBe(202);
    expect(outcome(response)).toBe("accepted");
    // The token is minted for the installation the payload names; only a payload without one has it looked up.
    expect(github.calls[0]?.path).toBe(
      payload.installation ? `/app/installations/${payload.installation.id}/access_tokens` : `/repos/${repository.full_name}/installation`
    );
    expect(github.calls.map((call) => `${call.method} ${call.path}`)).toContain(permissionCall(repository.full_name, payload.comment.user.login));
    const expectedVisibility = repository.visibility ?? (repository.private ? "private" : "public");
    expect(dispatchesFor(commentId)).toEqual([
      expect.objectContaining({ repo: repository.full_name, repoVisibility: expectedVisibility, instruction: "reproduce this issue" })
    ]);
  });
});
