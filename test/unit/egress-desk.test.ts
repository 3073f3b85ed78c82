/**
 * The issue agent's side of the gateway (src/egress/egress-desk.ts): a
 * request from another turn than the running one gets nothing and is counted
 * for the running run; a run's sandbox may send at most so many GitHub API
 * requests (REST and GraphQL; git and other hosts are not counted); and
 * otherwise the grant is the credentials' for the running turn.
 */
import { describe, expect, it } from "vitest";
import { EgressDesk, OTHER_TURN_GRANT_REFUSAL, type EgressDeskDeps } from "../../src/egress/egress-desk";
import type { EgressGrant } from "../../src/egress/grant";

function desk(options: { running?: string; limit?: number } = {}) {
  const recorded: string[] = [];
  const logged: string[] = [];
  const counts = new Map<string, number>();
  const granted: Array<string | undefined> = [];
  const deps: EgressDeskDeps = {
    credentials: {
      grant: async (submissionId) => {
        granted.push(submissionId);
        return { submissionId, readRepos: [], pushBranch: null, readToken: "read-token", writeToken: "", allow: [], open: false, registries: [] } as EgressGrant;
      },
      runSettled: async () => {}
    },
    turn: async () => (options.running ? { submissionId: options.running } : null),
    policy: () => null,
    githubApiUrl: () => "https://api.github.com",
    recordBlocked: async (submissionId, host, method) => (recorded.push(`${submissionId} ${method} ${host}`), { blocked: [], first: false }),
    reportBlocked: () => {},
    othersWaiting: async () => false,
    countGitHubRequest: async (submissionId) => {
      const next = (counts.get(submissionId) ?? 0) + 1;
      counts.set(submissionId, next);
      return next;
    },
    githubRequestLimit: () => options.limit ?? 1_000,
    log: (event) => void logged.push(event)
  };
  return { desk: new EgressDesk(deps), recorded, logged, granted, counts };
}

describe("the egress desk", () => {
  it("grants the running turn's requests, named or not", async () => {
    const { desk: d, granted } = desk({ running: "sub-2" });
    expect((await d.grant({ url: "https://registry.npmjs.org/left-pad", method: "GET" })).refusal).toBeUndefined();
    expect((await d.grant({ url: "https://registry.npmjs.org/left-pad", method: "GET", submissionId: "sub-2" })).refusal).toBeUndefined();
    expect(granted).toEqual(["sub-2", "sub-2"]);
  });

  it("refuses a request of another turn outright, counting it for the running run", async () => {
    const { desk: d, recorded, logged, granted } = desk({ running: "sub-2" });
    const answer = await d.grant({ url: "https://github.com/acme/widgets.git/git-receive-pack", method: "POST", submissionId: "sub-1" });
    expect(answer.refusal).toBe(OTHER_TURN_GRANT_REFUSAL);
    expect(answer.grant).toMatchObject({ readToken: "", writeToken: "", pushBranch: null, readRepos: [] });
    expect(answer.grant.submissionId).toBeUndefined();
    expect(granted).toEqual([]);
    expect(recorded).toEqual(["sub-2 POST github.com"]);
    expect(logged).toContain("egress:other-turn");
  });

  it("refuses a container's request when no turn runs at all, recording it nowhere", async () => {
    const { desk: d, recorded } = desk();
    const answer = await d.grant({ url: "https://registry.npmjs.org/x", method: "GET", submissionId: "no-turn" });
    expect(answer.refusal).toBe(OTHER_TURN_GRANT_REFUSAL);
    expect(recorded).toEqual([]);
  });

  it("holds a run's sandbox to its GitHub API requests, counting only the API", async () => {
    const { desk: d, recorded, counts } = desk({ running: "sub-3", limit: 2 });
    const api = () => d.grant({ url: "https://api.github.com/repos/acme/widgets/issues/7", method: "GET" });
    expect((await api()).refusal).toBeUndefined();
    expect((await d.grant({ url: "https://api.github.com/graphql", method: "POST" })).refusal).toBeUndefined();
    // git over smart HTTP and other hosts do not spend the API's rate limit.
    expect((await d.grant({ url: "https://github.com/acme/widgets.git/info/refs?service=git-upload-pack", method: "GET" })).refusal).toBeUndefined();
    expect((await d.grant({ url: "https://registry.npmjs.org/x", method: "GET" })).refusal).toBeUndefined();
    const third = await api();
    expect(third.refusal).toMatch(/^egress refused: this run's sandbox has sent 2 GitHub API requests, the most one run may/);
    expect(counts.get("sub-3")).toBe(3);
    expect(recorded).toEqual(["sub-3 GET api.github.com"]);
  });
});
