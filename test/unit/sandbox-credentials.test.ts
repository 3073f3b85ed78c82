/**
 * Nothing the sandbox's own commands can reach holds a GitHub credential,
 * checked with real tools in a sandbox built as the container is: its
 * command environment is the launch env's COMPUTER_VAR_ variables with the
 * prefix stripped (as computerd hands them to commands), git's identity is
 * set by the real identity script, and every request goes through the
 * egress gateway (test/support/egress-proxy.ts). The run's read and write
 * tokens are in play: the sandbox clones, pushes its branch and reads an
 * issue with them, attached by the gateway.
 *
 * Then it looks for them as an attacker's code in the sandbox would: `env`,
 * `gh auth token`, gh's config, `git credential fill`, git's config, every
 * process's environment under /proc, everything under HOME. Each probe's
 * raw output (never a redacted transcript) is checked for each token as is,
 * and as the probe piped through `base64` and through `rev` prints it,
 * decoded. The same check finds a token in a sandbox that does hold one
 * (the control), so it can fail.
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { grantFor } from "../../src/egress/grant";
import { containerLaunchEnv, SANDBOX_GH_TOKEN } from "../../src/pool/launch-spec";
import { gitIdentityScript } from "../../src/run/git-identity";
import { EgressProxy, SANDBOX_GITHUB } from "../support/egress-proxy";
import { lacks, needs } from "../support/external-tools";
import { GitHttpServer } from "../support/git-http-server";
import { GitHubApiStub } from "../support/github-api-stub";

const REPO = "acme/widgets";
const PUSH_BRANCH = "agent-think/issue-7";
const COMMAND_TIMEOUT_MS = 20_000;

type Environment = Record<string, string | undefined>;

function run(line: string, options: { cwd: string; env: Environment }): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile("bash", ["-c", line], { ...options, env: options.env as NodeJS.ProcessEnv, timeout: COMMAND_TIMEOUT_MS, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, stdout, stderr });
    });
  });
}

/** The launch env as computerd hands it to a command: only the COMPUTER_VAR_ variables, prefix stripped. */
function commandEnvironment(): Environment {
  return Object.fromEntries(
    Object.entries(containerLaunchEnv({})).flatMap(([name, value]) => (name.startsWith("COMPUTER_VAR_") ? [[name.slice("COMPUTER_VAR_".length), value]] : []))
  );
}

/** Where the probes look, as a command line each. */
const PROBES: Record<string, string> = {
  env: "env",
  "gh auth token": "gh auth token 2>&1",
  "gh's config": "cat ~/.config/gh/hosts.yml ~/.config/gh/config.yml 2>&1; gh auth status 2>&1",
  "git credential fill": "printf 'protocol=http\\nhost=github.localhost\\npath=acme/widgets.git\\n\\n' | git credential fill 2>&1",
  "git's config": "git config --list --show-origin 2>&1",
  "/proc/*/environ": "for f in /proc/[0-9]*/environ; do tr '\\0' '\\n' < \"$f\" 2>/dev/null; done",
  "everything under HOME": "find ~ -type f -print0 2>/dev/null | xargs -0 cat 2>/dev/null"
};

/** Whether `probe`'s output holds `token`: as printed, and as the probe piped through base64 and rev prints it, decoded. */
async function holds(probe: string, token: string, sandbox: { cwd: string; env: Environment }): Promise<string[]> {
  const found: string[] = [];
  const plain = await run(probe, sandbox);
  if (`${plain.stdout}${plain.stderr}`.includes(token)) found.push("plain");
  const encoded = await run(`{ ${probe}; } | base64 -w0`, sandbox);
  if (Buffer.from(encoded.stdout.trim(), "base64").toString("latin1").includes(token)) found.push("base64");
  const reversed = await run(`{ ${probe}; } | rev`, sandbox);
  const unreversed = reversed.stdout.split("\n").map((line) => [...line].reverse().join("")).join("\n");
  if (unreversed.includes(token)) found.push("reversed");
  return found;
}

let dir = "";
let git: GitHttpServer;
let api: GitHubApiStub;
let proxy: EgressProxy;
let sandbox: { cwd: string; env: Environment };
const readToken = `read-${crypto.randomUUID()}`;
const writeToken = `write-${crypto.randomUUID()}`;

/** The server is git's own http-backend; gh's probes and its placeholder need gh itself. */
const noServer = lacks("git-http-backend");
const noGh = lacks("gh");
const GH_PROBES = new Set(["gh auth token", "gh's config"]);

beforeAll(async () => {
  if (noServer) return;
  dir = mkdtempSync(join(tmpdir(), "agent-think-sandbox-"));
  git = await GitHttpServer.start({ readToken, writeToken });
  api = await GitHubApiStub.start();
  git.createRepo(REPO);
  const grant = grantFor({ submissionId: "submission-1", repo: REPO, pushBranch: PUSH_BRANCH, readToken, writeToken });
  proxy = await EgressProxy.start({ gitOrigin: git.origin, apiOrigin: api.origin, grant });
  const home = join(dir, "home");
  mkdirSync(home);
  mkdirSync(join(dir, "tmp"));
  sandbox = {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      TMPDIR: join(dir, "tmp"),
      LANG: "C",
      ...commandEnvironment(),
      // The test's GitHub is github.localhost, which gh speaks plain HTTP to; the container's is GITHUB_API_URL's host.
      GH_HOST: "github.localhost",
      GIT_CONFIG_NOSYSTEM: "1",
      GH_NO_UPDATE_NOTIFIER: "1",
      http_proxy: proxy.url,
      HTTP_PROXY: proxy.url,
      no_proxy: "",
      NO_PROXY: ""
    }
  };
  // The container's first command: the identity script, as the WorkspaceAgent runs it (no marker: nothing under /temp here).
  const identity = gitIdentityScript({ login: "agent-think[bot]" }, undefined, { kind: "github.com", host: "github.localhost", web: SANDBOX_GITHUB.web, noreplyDomain: "users.noreply.github.com" });
  const set = await run(identity, sandbox);
  expect(set.code, set.stderr).toBe(0);
  // The run's tokens at work, attached by the gateway: a clone, a push of the run's branch, a read of the issue.
  const work = await run(
    [
      `git clone -q ${SANDBOX_GITHUB.web}/${REPO}.git clone`,
      "cd clone",
      "git commit -q --allow-empty -m 'the fix'",
      `git push -q origin HEAD:${PUSH_BRANCH}`,
      `gh api repos/${REPO}/issues/7 >/dev/null 2>&1 || true`
    ].join(" && "),
    sandbox
  );
  expect(work.code, `${work.stdout}${work.stderr}`).toBe(0);
  expect(git.requests.some((request) => request.path.includes("receive-pack") && request.token === "write")).toBe(true);
}, 60_000);

afterAll(async () => {
  await Promise.all([proxy?.close(), api?.close()]);
  await git?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe(`a sandbox built as the container is${needs("git-http-backend")}`, { skip: noServer }, () => {
  it(`gives gh a placeholder, not a token: \`gh auth token\` prints it${needs("gh")}`, { skip: noGh }, async () => {
    const printed = await run("gh auth token", sandbox);
    expect(printed.stdout.trim()).toBe(SANDBOX_GH_TOKEN);
  });

  const probes = Object.entries(PROBES);
  it.for(probes.filter(([where]) => !GH_PROBES.has(where)))("holds neither token where %s looks, in any of the encodings", async ([, probe]) => {
    for (const token of [readToken, writeToken]) expect(await holds(probe, token, sandbox)).toEqual([]);
  });
  it.for(probes.filter(([where]) => GH_PROBES.has(where)))(`holds neither token where %s looks, in any of the encodings${needs("gh")}`, { skip: noGh }, async ([, probe]) => {
    for (const token of [readToken, writeToken]) expect(await holds(probe, token, sandbox)).toEqual([]);
  });

  it("would be caught holding one: the same probes find a token a sandbox was given", async () => {
    const leaky = { ...sandbox, env: { ...sandbox.env, GH_TOKEN: writeToken } };
    expect(await holds(PROBES.env!, writeToken, leaky)).toEqual(["plain", "base64", "reversed"]);
    if (!noGh) expect(await holds(PROBES["gh auth token"]!, writeToken, leaky)).toEqual(["plain", "base64", "reversed"]);
    expect(await holds(PROBES["/proc/*/environ"]!, writeToken, { ...leaky, env: { ...leaky.env } })).not.toEqual([]);
  });
});
