/**
 * The MSW handlers' judge (support/github-spec.ts): the Workers tests'
 * FakeGitHub answers only requests GitHub's REST description takes, and
 * answers the rest as GitHub would, listing each, so no test can pass on a
 * request GitHub would refuse.
 */
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakeGitHub } from "./support/github";
import { TEST_GITHUB_API_URL } from "./worker";

const github = new FakeGitHub();
const server = setupServer(...github.handlers());
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(() => server.close());

const send = (method: string, path: string, body?: unknown) =>
  fetch(`${TEST_GITHUB_API_URL}${path}`, {
    method,
    headers: { authorization: "token ghs_test", "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  });

describe("the FakeGitHub's judge: GitHub's REST description", () => {
  it("takes what GitHub takes", async () => {
    expect((await send("POST", "/repos/acme/spec/issues/comments/1/reactions", { content: "rocket" })).status).toBe(201);
    expect((await send("POST", "/repos/acme/spec/issues/3/comments", { body: "hello" })).status).toBe(201);
    expect((await send("GET", "/repos/acme/spec/issues/3/comments?per_page=100&since=2026-01-01T00:00:00Z")).status).toBe(200);
    expect(github.refusals).toEqual([]);
  });

  it.each([
    ["a reaction GitHub has no such content for", "POST", "/repos/acme/spec/issues/comments/1/reactions", { content: "rocket2" }, 422, "content"],
    ["a comment without a body", "POST", "/repos/acme/spec/issues/3/comments", { text: "hello" }, 422, "body"],
    ["a page size that is not a number", "GET", "/repos/acme/spec/issues/3/comments?per_page=many", undefined, 422, "per_page"],
    ["a path GitHub does not have", "POST", "/repos/acme/spec/issues/3/commentz", { body: "hello" }, 404, "commentz"],
    ["a method the path does not take", "DELETE", "/repos/acme/spec/issues/3/comments", undefined, 404, "DELETE"]
  ])("refuses %s, as GitHub answers, and lists it", async (_name, method, path, body, status, named) => {
    const before = github.refusals.length;
    const response = await send(method, path, body);
    expect(response.status).toBe(status);
    expect(github.refusals.length).toBe(before + 1);
    const refusal = github.refusals.at(-1)!;
    expect(refusal).toMatchObject({ method, status, url: `/api/v3${path}` });
    expect(`${refusal.url} ${refusal.reason}`).toContain(named);
    // Refused before the fake acted: no comment was stored.
    expect(github.comments("acme/spec", 3).map((comment) => comment.body)).toEqual(["hello"]);
  });
});
