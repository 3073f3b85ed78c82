/**
 * The sandbox network's health line (src/health/egress.ts): the allowlist
 * is ok and says what it holds; EGRESS=open warns, marked unsafe (the
 * banner's red); an EGRESS that is no mode, or EGRESS_ALLOW entries that
 * are no hosts or name a public suffix, warn, naming them, and the
 * allowlist still holds.
 */
import { describe, expect, it } from "vitest";
import { egressHealth } from "../../src/health/egress";
import { DEFAULT_ALLOW } from "../../src/run/host-allowlist";

describe("egressHealth", () => {
  it("is ok with the allowlist, naming the operator's hosts", () => {
    expect(egressHealth({})).toMatchObject({ id: "egress", status: "ok", detail: expect.stringContaining(`${DEFAULT_ALLOW.length} package and download hosts`) });
    expect(egressHealth({ EGRESS: "allowlist", EGRESS_ALLOW: "api.example.com, *.corp.example" }).detail).toContain("EGRESS_ALLOW's 2 (api.example.com, *.corp.example)");
    expect(egressHealth({ EGRESS: "" }).unsafe).toBeUndefined();
  });

  it.each(["open", " OPEN "])("warns, marked unsafe, for EGRESS=%s", (value) => {
    expect(egressHealth({ EGRESS: value })).toMatchObject({ status: "warn", unsafe: true, detail: expect.stringMatching(/^EGRESS=open: a run's sandbox may reach any host/), fix: expect.stringContaining("EGRESS_ALLOW") });
  });

  it("warns for an EGRESS that is no mode: the allowlist still holds", () => {
    expect(egressHealth({ EGRESS: "opne" })).toMatchObject({ status: "warn", detail: 'EGRESS="opne" is not a mode, so the allowlist holds' });
    expect(egressHealth({ EGRESS: "opne" }).unsafe).toBeUndefined();
  });

  it("warns for EGRESS_ALLOW entries that are no hosts, naming them", () => {
    const check = egressHealth({ EGRESS_ALLOW: "https://api.example.com/x ok.example *.com" });
    expect(check.status).toBe("warn");
    expect(check.detail).toContain('"https://api.example.com/x" is not a host name');
    expect(check.detail).toContain("too wide");
    expect(check.detail).toMatch(/the other entries hold$/);
  });

  it("warns for EGRESS_ALLOW entries over a public suffix, saying why and what to write instead", () => {
    const check = egressHealth({ EGRESS_ALLOW: "mirror.corp.example, *.github.io, s3.amazonaws.com" });
    expect(check).toMatchObject({ status: "warn", fix: expect.stringContaining("list the exact host") });
    expect(check.detail).toBe(
      'EGRESS_ALLOW: "*.github.io" is too wide: github.io is a public suffix (Public Suffix List): the hosts under it belong to different owners; name the exact host instead; ' +
        '"s3.amazonaws.com" is not one owner\'s host: s3.amazonaws.com is a public suffix (Public Suffix List): the hosts under it belong to different owners; name the exact host under it instead; the other entries hold'
    );
    expect(check.unsafe).toBeUndefined();
  });

  it("names the private registries the operator gave, when every secret named is set", () => {
    const check = egressHealth({ REGISTRY_SECRETS: "acme/*:NPM_TOKEN acme/widgets:ARTIFACTS_LOGIN", REGISTRY_REPOS: "acme/widgets:acme/shared" }, () => true);
    expect(check.status).toBe("ok");
    expect(check.detail).toMatch(/; private registries: 2 registry secrets \(ARTIFACTS_LOGIN, NPM_TOKEN\) and 1 other repository to read given by the operator$/);
  });

  it("warns for a secret REGISTRY_SECRETS names that the Worker does not have, and for malformed items, naming the fix", () => {
    const set = new Set(["NPM_TOKEN"]);
    const check = egressHealth({ REGISTRY_SECRETS: "acme/*:NPM_TOKEN acme/widgets:ARTIFACTS_LOGIN", REGISTRY_REPOS: "acme/widgets" }, (name) => set.has(name));
    expect(check).toMatchObject({ status: "warn", fix: expect.stringContaining("set each secret REGISTRY_SECRETS names") });
    expect(check.detail).toBe(
      'REGISTRY_REPOS: "acme/widgets" is not owner/name:owner/other or owner/*:owner/other; ' +
        "REGISTRY_SECRETS names ARTIFACTS_LOGIN, which is not set on this Worker (npx wrangler secret put ARTIFACTS_LOGIN); " +
        "runs whose repositories name it get a refusal, not a credential"
    );
  });

  it("says nothing of registries when the operator gave none", () => {
    expect(egressHealth({}).detail).not.toContain("registr");
  });
});

