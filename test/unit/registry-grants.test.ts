/**
 * A repository's registries as the gateway uses them (src/egress/registry-grants.ts):
 * the credential each usable entry becomes, the refusal for each other, the
 * request each matches (origin, path prefix, method), the tricks that match
 * none, and the gateway attaching it in place of what the sandbox sent.
 */
import { describe, expect, it } from "vitest";
import { EgressGateway, type EgressRefusal } from "../../src/egress/gateway";
import { endpointsFor } from "../../src/egress/github-routes";
import { grantFor } from "../../src/egress/grant";
import { registryGrants, registryGrantsFor, registryMatch, type RegistryGrant } from "../../src/egress/registry-grants";
import type { RegistryEntry } from "../../src/run/registries";
import { GITHUB_COM } from "../../src/shared/github-urls";
import { npmrcScript, registryFacts } from "../../src/run/registries";

const NPM: RegistryEntry = { kind: "npm", host: "npm.internal.example.com", path: "/npm/", secret: "INTERNAL_NPM_TOKEN", methods: ["GET", "HEAD"], scope: "@acme" };
const BASIC: RegistryEntry = { kind: "basic", host: "artifacts.example.com", path: "/", secret: "ARTIFACTS_LOGIN", methods: ["GET"] };
const SECRETS: Record<string, string> = { INTERNAL_NPM_TOKEN: "npm-secret-value", ARTIFACTS_LOGIN: "robot:pässword" };

describe("registryGrants", () => {
  it("turns each usable entry into one origin's credential: a bearer token, or basic user:password", () => {
    const { grants, refusals } = registryGrants([NPM, BASIC], "acme/widgets", { registrySecrets: "acme/*:INTERNAL_NPM_TOKEN acme/widgets:ARTIFACTS_LOGIN" }, (name) => SECRETS[name]);
    expect(refusals).toEqual([]);
    expect(registryGrants([{ kind: "git", repositories: ["acme/shared", "acme/helpers"] }, { kind: "git", repositories: ["acme/shared"] }], "acme/widgets", { registryRepos: "acme/widgets:acme/shared acme/*:acme/helpers" }, () => undefined)).toEqual({
      grants: [],
      repositories: ["acme/shared", "acme/helpers"],
      refusals: []
    });
    expect(registryGrants([{ kind: "git", repositories: ["acme/shared"] }], "acme/widgets", {}, () => undefined)).toEqual({
      grants: [],
      repositories: [],
      refusals: ["registries: acme/widgets may not read acme/shared: the operator's REGISTRY_REPOS does not give it (ask for acme/widgets:acme/shared there)"]
    });
    expect(grants).toEqual([
      { host: "npm.internal.example.com", origin: "https://npm.internal.example.com", path: "/npm/", methods: ["GET", "HEAD"], authorization: "Bearer npm-secret-value" },
      { host: "artifacts.example.com", origin: "https://artifacts.example.com", path: "/", methods: ["GET"], authorization: `Basic ${Buffer.from("robot:pässword").toString("base64")}` }
    ]);
  });

  it("keeps none the operator did not give, none whose secret is unset, and no basic secret without a colon", () => {
    const unset = registryGrants([NPM], "acme/widgets", { registrySecrets: "acme/widgets:INTERNAL_NPM_TOKEN" }, () => undefined);
    expect(unset.grants).toEqual([]);
    expect(unset.refusals).toEqual([expect.stringContaining("which is not set on the agent Worker")]);
    const ungiven = registryGrants([NPM], "acme/widgets", {}, (name) => SECRETS[name]);
    expect(ungiven.refusals).toEqual([expect.stringContaining("does not give acme/widgets")]);
    const colonless = registryGrants([BASIC], "acme/widgets", { registrySecrets: "acme/widgets:ARTIFACTS_LOGIN" }, () => "just-a-token");
    expect(colonless.refusals).toEqual(["registries: artifacts.example.com is a basic entry, so its secret ARTIFACTS_LOGIN must be user:password"]);
  });
});

describe("registryMatch", () => {
  const grant: RegistryGrant = { host: "npm.internal.example.com", origin: "https://npm.internal.example.com", path: "/npm/", methods: ["GET", "HEAD"], authorization: "Bearer x" };
  const match = (url: string, method = "GET") => registryMatch([grant], new URL(url), method)?.kind ?? null;

  it("matches the origin and the path prefix, for the entry's methods", () => {
    expect(match("https://npm.internal.example.com/npm/@acme%2fwidget")).toBe("credential");
    expect(match("https://npm.internal.example.com:443/npm/@acme/widget/-/widget-1.0.0.tgz", "HEAD")).toBe("credential");
    expect(match("https://npm.internal.example.com/npm/@acme/widget", "PUT")).toBe("method");
  });

  it.each([
    ["plain HTTP", "http://npm.internal.example.com/npm/x"],
    ["another port", "https://npm.internal.example.com:8443/npm/x"],
    ["another host", "https://npm.internal.example.com.evil.example/npm/x"],
    ["outside the prefix", "https://npm.internal.example.com/admin/x"],
    ["the prefix without its slash", "https://npm.internal.example.com/npmx/y"],
    ["a dot-dot out of the prefix", "https://npm.internal.example.com/npm/../admin"],
    ["an encoded dot-dot", "https://npm.internal.example.com/npm/%2e%2e/admin"],
    ["an encoded slash", "https://npm.internal.example.com/npm/..%2Fadmin"],
    ["an encoded backslash", "https://npm.internal.example.com/npm/x%5c..%5cadmin"],
    ["bad encoding", "https://npm.internal.example.com/npm/%zz"],
    ["user info", "https://someone@npm.internal.example.com/npm/x"]
  ])("gives no credential to %s", (_case, url) => {
    expect(match(url)).toBeNull();
  });

  it("puts in a request's grant only the registries of its origin", () => {
    const other = { ...grant, host: "b.example.com", origin: "https://b.example.com" };
    expect(registryGrantsFor([grant, other], "https://b.example.com/x")).toEqual([other]);
    expect(registryGrantsFor([grant, other], "not a url")).toEqual([]);
  });
});

describe("the gateway with a registry in the grant", () => {
  const grant: RegistryGrant = { host: "npm.internal.example.com", origin: "https://npm.internal.example.com", path: "/npm/", methods: ["GET", "HEAD"], authorization: "Bearer npm-secret-value" };
  function gateway(registries: RegistryGrant[]) {
    const sent: Request[] = [];
    const refusals: EgressRefusal[] = [];
    const gate = new EgressGateway({
      endpoints: endpointsFor(GITHUB_COM, ""),
      grant: async () => grantFor({ submissionId: "s1", repo: "acme/widgets", readToken: "", writeToken: "", registries }),
      upstream: async (request) => {
        sent.push(request);
        return new Response("ok");
      },
      refused: (refusal) => void refusals.push(refusal)
    });
    return { gate, sent, refusals };
  }

  it("attaches the credential in place of the sandbox's own, off the allowlist", async () => {
    const { gate, sent } = gateway([grant]);
    const answer = await gate.fetch(new Request("https://npm.internal.example.com/npm/@acme%2fwidget", { headers: { authorization: "Bearer planted", cookie: "c=1", accept: "application/json" } }));
    expect(answer.status).toBe(200);
    expect(sent.map((request) => [request.url, request.headers.get("authorization"), request.headers.get("cookie"), request.headers.get("accept"), request.redirect])).toEqual([
      ["https://npm.internal.example.com/npm/@acme%2fwidget", "Bearer npm-secret-value", null, "application/json", "manual"]
    ]);
  });

  it("refuses a method the entry does not give, saying where to add it, and sends nothing", async () => {
    const { gate, sent, refusals } = gateway([grant]);
    const answer = await gate.fetch(new Request("https://npm.internal.example.com/npm/@acme%2fwidget", { method: "PUT", body: "{}" }));
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain("egress refused: registries: gives npm.internal.example.com/npm/ only GET, HEAD, not PUT");
    expect(sent).toEqual([]);
    expect(refusals).toHaveLength(1);
  });

  it("without the registry in the grant (a reporter run, another run, no turn), the host is off the allowlist and gets nothing", async () => {
    const { gate, sent } = gateway([]);
    const answer = await gate.fetch(new Request("https://npm.internal.example.com/npm/@acme%2fwidget"));
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain("is not on this run's network allowlist");
    expect(sent).toEqual([]);
  });

  it("no grant outside a running turn carries a registry", () => {
    expect(grantFor({ readToken: "", writeToken: "", registries: [grant] }).registries).toEqual([]);
  });
});

describe("what the sandbox and the model are told", () => {
  it("the npmrc names each usable scope's registry and no credential; the facts list the refusals", () => {
    const facts = registryFacts([NPM, BASIC], new Set(["npm.internal.example.com/npm/"]), ["registries: artifacts.example.com names …"])!;
    expect(facts).toEqual({ usable: [{ host: "npm.internal.example.com", path: "/npm/", scope: "@acme" }], refused: ["registries: artifacts.example.com names …"] });
    expect(npmrcScript(facts.usable)).toBe(`printf '%s\\n' '@acme:registry=https://npm.internal.example.com/npm/' > "$HOME/.npmrc"`);
    expect(npmrcScript([{ host: "a.example.com", path: "/" }])).toBeNull();
    expect(registryFacts([], new Set(), [])).toBeUndefined();
  });
});
