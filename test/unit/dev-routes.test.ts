import { describe, expect, it } from "vitest";
import { handleDevRoute, type DevRouteDeps } from "../../src/http/dev-routes";
import { RepoNotAllowedError } from "../../src/run/repo-allowlist";
import { InvalidInputError, type DispatchInput } from "../../src/shared/dispatch";

function fakeDeps(localDev = true) {
  const dispatched: DispatchInput[] = [];
  const deps: DevRouteDeps = {
    localDev,
    async dispatch(input) {
      if (input.repo === "bad") throw new InvalidInputError("repo", 'must be "owner/name"');
      if (input.repo === "evil/widgets") throw new RepoNotAllowedError("evil/widgets is not in ALLOWED_REPOS: the agent Worker runs only on the repositories it lists");
      dispatched.push(input);
      return { session: "a-b-1", threadUrl: "https://x.test/thread/a-b-1", submissionId: "s1" };
    },
    messages: async () => [{ id: "m1", role: "user", parts: [{ type: "text", text: "hi" }] }],
    status: async (_session, id) => (id === "s1" ? { status: "running", createdAt: 1 } : null),
    skills: async () => ({ skills: [{ name: "reproduce", description: "Reproduce an issue." }], invalid: [] })
  };
  return { deps, dispatched };
}

const request = (path: string, init?: RequestInit) => new Request(`https://x.test${path}`, init);

describe("dev routes", () => {
  it("leaves non-/dev paths to the next handler", async () => {
    expect(await handleDevRoute(request("/agents/x"), fakeDeps().deps)).toBeNull();
    expect(await handleDevRoute(request("/developer"), fakeDeps().deps)).toBeNull();
  });

  it("answers 404 for every /dev path without LOCAL_DEV, touching nothing", async () => {
    const { deps, dispatched } = fakeDeps(false);
    const body = JSON.stringify({ repo: "a/b", issueNumber: 1 });
    for (const path of ["/dev/dispatch", "/dev/messages/a-b-1", "/dev/anything"]) {
      const response = await handleDevRoute(request(path, { method: "POST", body }), deps);
      expect(response?.status).toBe(404);
      expect(await response?.text()).toBe("not found");
    }
    expect(dispatched).toEqual([]);
  });

  it("fills in the default instruction and an empty token", async () => {
    const { deps, dispatched } = fakeDeps();
    const response = await handleDevRoute(
      request("/dev/dispatch", { method: "POST", body: JSON.stringify({ repo: "a/b", issueNumber: 1 }) }),
      deps
    );
    expect(response?.status).toBe(202);
    expect(dispatched).toEqual([{ repo: "a/b", issueNumber: 1, instruction: "reproduce this issue", installationToken: "" }]);
  });

  it("turns bad input into a 400 naming the field", async () => {
    const { deps } = fakeDeps();
    const response = await handleDevRoute(
      request("/dev/dispatch", { method: "POST", body: JSON.stringify({ repo: "bad", issueNumber: 1 }) }),
      deps
    );
    expect(response?.status).toBe(400);
    expect(await response?.json()).toEqual({ error: 'invalid input: repo: must be "owner/name"' });
  });

  it("answers a repository outside ALLOWED_REPOS with 403 and the refusal's words", async () => {
    const { deps, dispatched } = fakeDeps();
    const response = await handleDevRoute(request("/dev/dispatch", { method: "POST", body: JSON.stringify({ repo: "evil/widgets", issueNumber: 1 }) }), deps);
    expect(response?.status).toBe(403);
    expect(await response?.json()).toEqual({ error: "evil/widgets is not in ALLOWED_REPOS: the agent Worker runs only on the repositories it lists" });
    expect(dispatched).toEqual([]);
  });

  it("refuses oversized bodies", async () => {
    const { deps, dispatched } = fakeDeps();
    const response = await handleDevRoute(request("/dev/dispatch", { method: "POST", body: "x".repeat(70_000) }), deps);
    expect(response?.status).toBe(413);
    expect(dispatched).toEqual([]);
  });

  it("serves the transcript, with a submission's status on request", async () => {
    const { deps } = fakeDeps();
    const plain = await handleDevRoute(request("/dev/messages/a-b-1"), deps);
    expect(await plain?.json()).toEqual({ session: "a-b-1", messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "hi" }] }] });
    const withStatus = await handleDevRoute(request("/dev/messages/a-b-1?submissionId=s1"), deps);
    expect(await withStatus?.json()).toMatchObject({ submission: { status: "running", createdAt: 1 } });
    const unknown = await handleDevRoute(request("/dev/messages/a-b-1?submissionId=nope"), deps);
    expect(await unknown?.json()).toMatchObject({ submission: null });
  });

  it("lists the skills the agent reads, only with LOCAL_DEV", async () => {
    const listed = await handleDevRoute(request("/dev/skills"), fakeDeps().deps);
    expect(listed?.status).toBe(200);
    expect(await listed?.json()).toEqual({ skills: [{ name: "reproduce", description: "Reproduce an issue." }], invalid: [] });
    expect((await handleDevRoute(request("/dev/skills", { method: "POST" }), fakeDeps().deps))?.status).toBe(405);
    expect((await handleDevRoute(request("/dev/skills"), fakeDeps(false).deps))?.status).toBe(404);
  });
});
