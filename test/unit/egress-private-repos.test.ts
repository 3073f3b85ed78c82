/**
 * Another private repository of the owner through the gateway, with real
 * git against git-http-backend: a `git` registry entry the operator's
 * REGISTRY_REPOS gives the run's repository lets the sandbox clone it with
 * the read-only token the gateway attaches (minted for both); without that
 * word the clone is asked to authenticate; a push to it is refused; the
 * token is nowhere in the clone.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantFor, type EgressGrant } from "../../src/egress/grant";
import { registryGrants } from "../../src/egress/registry-grants";
import { parseRepoConfig } from "../../src/run/repo-config";
import { EgressProxy, SANDBOX_GITHUB } from "../support/egress-proxy";
import { lacks, needs } from "../support/external-tools";
import { GitHttpServer } from "../support/git-http-server";

const CONFIG = "version: 1\nregistries:\n  - { kind: git, repositories: [acme/shared] }\n";
const TOKENS = { readToken: `read-${crypto.randomUUID()}`, writeToken: `write-${crypto.randomUUID()}` };
const noServer = lacks("git-http-backend");

let git: GitHttpServer;
let proxy: EgressProxy;
let current: EgressGrant;
let dir: string;
let env: Record<string, string | undefined>;

/** The grant for acme/widgets's run under an operator's REGISTRY_REPOS, with the refusals the resolution gave. */
function grantWith(registryRepos: string): { grant: EgressGrant; refusals: string[] } {
  const parsed = parseRepoConfig(CONFIG);
  if (!parsed.ok) throw new Error(parsed.errors.join("; "));
  const resolved = registryGrants(parsed.config.registries, "acme/widgets", { registryRepos }, () => undefined);
  const grant = grantFor({ submissionId: "s1", repo: "acme/widgets", pushBranch: "agent-think/issue-7", ...TOKENS, alsoRead: resolved.repositories });
  return { grant, refusals: resolved.refusals };
}

function run(args: string[], cwd = dir): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile("git", args, { cwd, env: env as unknown as NodeJS.ProcessEnv }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

beforeAll(async () => {
  if (noServer) return;
  git = await GitHttpServer.start(TOKENS);
  git.createRepo("acme/widgets");
  git.createRepo("acme/shared");
  proxy = await EgressProxy.start({ gitOrigin: git.origin, apiOrigin: git.origin, grant: () => current });
  dir = mkdtempSync(join(tmpdir(), "agent-think-private-repos-"));
  mkdirSync(join(dir, "home"));
  writeFileSync(join(dir, "home", ".gitconfig"), "[user]\n\tname = Sandbox\n\temail = sandbox@example.invalid\n");
  env = { PATH: process.env.PATH, HOME: join(dir, "home"), GIT_CONFIG_NOSYSTEM: "1", GIT_TERMINAL_PROMPT: "0", http_proxy: proxy.url, HTTP_PROXY: proxy.url, no_proxy: "", NO_PROXY: "" };
});

afterAll(async () => {
  await proxy?.close();
  await git?.close();
});

describe(`another private repository of the owner, with real git${needs("git-http-backend")}`, { skip: noServer }, () => {
  it("clones with the read-only token the gateway attaches, and the token is not in the clone", async () => {
    const { grant, refusals } = grantWith("acme/widgets:acme/shared");
    expect(refusals).toEqual([]);
    expect(grant.readRepos).toEqual(["acme/widgets", "acme/shared"]);
    current = grant;
    const served = git.requests.length;
    const cloned = await run(["clone", "-q", `${SANDBOX_GITHUB.web}/acme/shared.git`, "shared"]);
    expect(cloned.code, cloned.output).toBe(0);
    const reads = git.requests.slice(served);
    expect(reads.length).toBeGreaterThan(0);
    expect(reads.every((request) => request.token === "read" && request.status === 200)).toBe(true);
    expect(readFileSync(join(dir, "shared", ".git", "config"), "utf8")).not.toContain(TOKENS.readToken);
  });

  it("refuses a push to it: the run writes only its own repository's branch", async () => {
    current = grantWith("acme/widgets:acme/shared").grant;
    const before = git.refs("acme/shared");
    const pushed = await run(["push", `${SANDBOX_GITHUB.web}/acme/shared.git`, "HEAD:agent-think/issue-7"], join(dir, "shared"));
    expect(pushed.code, pushed.output).not.toBe(0);
    expect(pushed.output).toContain("push refused: this run may push only to acme/widgets, not acme/shared");
    expect(git.refs("acme/shared")).toEqual(before);
  });

  it("without the operator's REGISTRY_REPOS the entry is refused, saying what to ask for, and the clone is asked to authenticate", async () => {
    const { grant, refusals } = grantWith("");
    expect(refusals).toEqual(["registries: acme/widgets may not read acme/shared: the operator's REGISTRY_REPOS does not give it (ask for acme/widgets:acme/shared there)"]);
    current = grant;
    const served = git.requests.length;
    const cloned = await run(["clone", "-q", `${SANDBOX_GITHUB.web}/acme/shared.git`, "shared-again"]);
    expect(cloned.code).not.toBe(0);
    expect(git.requests.slice(served)).toEqual([expect.objectContaining({ token: "none", status: 401 })]);
  });
});
