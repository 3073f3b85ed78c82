/**
 * The issue agent's side of the gateway (src/egress/egress-desk.ts): a
 * request from another turn than the running one gets nothing and is counted
 * for the running run; a run's sandbox may send at most so many GitHub API
 * requests (REST and GraphQL; git and other hosts are not counted); and
 * otherwise the grant is the credentials' for the running turn. A grant that
 * gets a request a private registry's credential notes that registry's host
 * for the run, once per run, and the command center hears of a new one.
 */
import { describe, expect, it } from "vitest";
import { EgressDesk, OTHER_TURN_GRANT_REFUSAL, type EgressDeskDeps } from "../../src/egress/egress-desk";
import type { EgressGrant } from "../../src/egress/grant";
import type { RegistryGrant } from "../../src/egress/registry-grants";

function desk(options: { running?: string; limit?: number; registries?: RegistryGrant[] } = {}) {
  const recorded: string[] = [];
  const privateSources = { noted: [] as string[], reported: [] as string[], known: new Map<string, string[]>() };
  const turn = { submissionId: options.running };
  const logged: string[] = [];
  const counts = new Map<string, number>();
  const granted: Array<string | undefined> = [];
  const deps: EgressDeskDeps = {
    credentials: {
      grant: async (submissionId) => {
        granted.push(submissionId);
        // Every registry, whatever the URL: the desk judges the request itself, as the gateway will.
        return { submissionId, readRepos: [], pushBranch: null, readToken: "read-token", writeToken: "", allow: [], open: false, registries: options.registries ?? [] } as EgressGrant;
      },
      runSettled: async () => {}
    },
    turn: async () => (turn.submissionId ? { submissionId: turn.submissionId } : null),
    policy: () => null,
    githubApiUrl: () => "https://api.github.com",
    recordBlocked: async (submissionId, host, method) => (recorded.push(`${submissionId} ${method} ${host}`), { blocked: [], first: false }),
    reportBlocked: () => {},
    recordPrivateSource: async (submissionId, host) => {
      privateSources.noted.push(`${submissionId} ${host}`);
      const hosts = privateSources.known.get(submissionId) ?? [];
      const first = !hosts.includes(host);
      if (first) privateSources.known.set(submissionId, [...hosts, host].sort());
      return { hosts: privateSources.known.get(submissionId)!, first };
    },
    reportPrivateSources: (submissionId, hosts) => void privateSources.reported.push(`${submissionId} ${hosts.join(",")}`),
    othersWaiting: async () => false,
    countGitHubRequest: async (submissionId) => {
      const next = (counts.get(submissionId) ?? 0) + 1;
      counts.set(submissionId, next);
      return next;
    },
    githubRequestLimit: () => options.limit ?? 1_000,
    log: (event) => void logged.push(event)
  };
  return { desk: new EgressDesk(deps), recorded, logged, granted, counts, privateSources, turn };
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

  it("notes a private registry's host once per run when the grant gets a request its credential, and only then", async () => {
    const npm: RegistryGrant = { host: "npm.acme.example", origin: "https://npm.acme.example", path: "/npm/", methods: ["GET", "HEAD"], authorization: "Bearer npm-secret" };
    const pypi: RegistryGrant = { host: "pypi.acme.example", origin: "https://pypi.acme.example", path: "/", methods: ["GET"], authorization: "Bearer pypi-secret" };
    const { desk: d, privateSources, turn } = desk({ running: "sub-1", registries: [npm, pypi] });
    // Not the registry's credential: another method, outside its path, another host, GitHub, not a URL.
    await d.grant({ url: "https://npm.acme.example/npm/@acme%2fwidget", method: "PUT" });
    await d.grant({ url: "https://npm.acme.example/other/@acme%2fwidget", method: "GET" });
    await d.grant({ url: "https://registry.npmjs.org/left-pad", method: "GET" });
    await d.grant({ url: "https://api.github.com/repos/acme/widgets", method: "GET" });
    await d.grant({ url: "not a url", method: "GET" });
    expect(privateSources.noted).toEqual([]);

    for (let index = 0; index < 3; index++) await d.grant({ url: "https://npm.acme.example/npm/@acme%2fwidget", method: "GET" });
    await d.grant({ url: "https://npm.acme.example/npm/@acme/widget/-/widget-1.0.0.tgz", method: "HEAD" });
    await d.grant({ url: "https://pypi.acme.example/simple/acme-tools/", method: "GET" });
    // One ledger write per host and run, and the command center told of each new host with the run's whole list.
    expect(privateSources.noted).toEqual(["sub-1 npm.acme.example", "sub-1 pypi.acme.example"]);
    expect(privateSources.reported).toEqual(["sub-1 npm.acme.example", "sub-1 npm.acme.example,pypi.acme.example"]);

    // The next run notes its own.
    turn.submissionId = "sub-2";
    await d.grant({ url: "https://npm.acme.example/npm/@acme%2fwidget", method: "GET" });
    expect(privateSources.noted.at(-1)).toBe("sub-2 npm.acme.example");
    expect(privateSources.reported.at(-1)).toBe("sub-2 npm.acme.example");
  });

  it("notes nothing without a running turn, and reports nothing the ledger already had", async () => {
    const npm: RegistryGrant = { host: "npm.acme.example", origin: "https://npm.acme.example", path: "/", methods: ["GET"], authorization: "Bearer npm-secret" };
    const idle = desk({ registries: [npm] });
    await idle.desk.grant({ url: "https://npm.acme.example/x", method: "GET" });
    expect(idle.privateSources.noted).toEqual([]);

    // A fresh desk (the agent woke again) with the host already on the run's list: the ledger is asked once, the command center not at all.
    const { desk: d, privateSources } = desk({ running: "sub-1", registries: [npm] });
    privateSources.known.set("sub-1", ["npm.acme.example"]);
    await d.grant({ url: "https://npm.acme.example/x", method: "GET" });
    await d.grant({ url: "https://npm.acme.example/y", method: "GET" });
    expect(privateSources.noted).toEqual(["sub-1 npm.acme.example"]);
    expect(privateSources.reported).toEqual([]);
  });
});
