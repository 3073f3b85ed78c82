/**
 * The container image stays coupled to the package it serves: computerd's
 * tag is the installed @cloudflare/computer version (their RPC and sync
 * protocol must match), and the optional proxy CA path is wired.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const dockerfile = readFileSync("Dockerfile", "utf8");
// The package's exports map hides package.json, so read the installed copy.
const computerVersion = (JSON.parse(readFileSync("node_modules/@cloudflare/computer/package.json", "utf8")) as { version: string }).version;

describe("Dockerfile", () => {
  it("pins computerd to the installed @cloudflare/computer version", () => {
    const tag = /^FROM ghcr\.io\/cloudflare\/computer-computerd-linux-x64:(\S+) AS computerd$/m.exec(dockerfile)?.[1];
    expect(tag).toBe(computerVersion);
  });

  it("copies the daemon into the runtime image and runs it", () => {
    expect(dockerfile).toContain("COPY --from=computerd /usr/local/bin/computerd /usr/local/bin/computerd");
    expect(dockerfile).toMatch(/^ENTRYPOINT \["\/usr\/local\/bin\/computerd"\]$/m);
  });

  it("trusts a proxy CA dropped into ca/, for the build and for node", () => {
    expect(dockerfile).toContain("COPY ca/ /usr/local/share/ca-certificates/agent-think/");
    expect(dockerfile.indexOf("RUN update-ca-certificates")).toBeGreaterThan(dockerfile.indexOf("COPY ca/"));
    // Trusted before the first HTTPS fetch of the build.
    expect(dockerfile.indexOf("RUN update-ca-certificates")).toBeLessThan(dockerfile.indexOf("https://"));
    expect(dockerfile).toContain("NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt");
    expect(existsSync("ca/.keep")).toBe(true);
  });

  it("installs the tools the agent's container shell needs", () => {
    for (const tool of ["gh", "git", "jq", "curl", "fuse3", "wrangler"]) expect(dockerfile).toMatch(new RegExp(`\\b${tool}\\b`));
    expect(dockerfile).toMatch(/FROM --platform=linux\/amd64 node:22-/);
  });
});
