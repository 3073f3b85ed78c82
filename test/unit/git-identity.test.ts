/**
 * The git auth script, run by this machine's bash against a recording `gh`
 * on PATH: the token goes in on stdin and reaches gh on its stdin from a
 * 0600 file that is gone afterwards; it is never an argument. Git commits as
 * the run's bot: with the id GitHub gave, used as is; with the login alone,
 * looked up.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { authGuard, authMarker, gitAuthScript, stoppedForGitAuth, tokenDigest } from "../../src/run/git-auth";
import { githubHost } from "../../src/shared/github-urls";

const root = mkdtempSync(join(tmpdir(), "agent-think-gitauth-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const temp = join(root, "temp");
const bin = join(root, "bin");
const record = join(root, "gh-calls.log");
const CANARY = "ghs_CANARYgitAUTHtoken0123456789";
const OURS = { login: "agent-think[bot]" };
/** The script of a bot known by its login only (a configured BOT_LOGIN), on github.com. */
const GIT_AUTH_SCRIPT = gitAuthScript(OURS);

// A stand-in gh that records its arguments, its stdin, and the mode of the
// file its stdin was redirected from.
spawnSync("mkdir", ["-p", bin, temp]);
writeFileSync(
  join(bin, "gh"),
  `#!/usr/bin/env bash
{
  echo "args: $*"
  src=$(readlink /proc/$$/fd/0)
  case "$src" in /*) echo "stdin-file: $src mode $(stat -c %a "$src")" ;; esac
  if [ "$1 $2" = "auth login" ]; then echo "stdin: $(cat)"; fi
} >> ${JSON.stringify(record)}
if [ "$1" = "api" ]; then
  [ -n "\${GH_BOT_ID:-}" ] || exit 1
  echo "$GH_BOT_ID"
fi
exit \${GH_EXIT:-0}
`
);
chmodSync(join(bin, "gh"), 0o755);

const home = join(root, "home");
spawnSync("mkdir", ["-p", home]);

function runScript(exitCode = 0, options: { script?: string; botId?: string } = {}) {
  rmSync(record, { force: true });
  rmSync(join(home, ".gitconfig"), { force: true });
  const script = (options.script ?? GIT_AUTH_SCRIPT).replaceAll("/temp/agent-think", temp);
  return spawnSync("bash", ["-c", script], {
    input: CANARY,
    encoding: "utf8",
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home, GH_EXIT: String(exitCode), GH_BOT_ID: options.botId ?? "" } as unknown as NodeJS.ProcessEnv
  });
}

const gitIdentity = () =>
  ["user.name", "user.email"].map((key) => spawnSync("git", ["config", "--global", key], { encoding: "utf8", env: { HOME: home, PATH: "/usr/bin:/bin" } as unknown as NodeJS.ProcessEnv }).stdout.trim());

describe("gitAuthScript", () => {
  it("feeds the token to gh over stdin from a 0600 file, then sets up git and removes the file", () => {
    const result = runScript();
    expect(result.status).toBe(0);
    const calls = readFileSync(record, "utf8");
    expect(calls).toMatch(/args: auth login --hostname github\.com --with-token\n/);
    expect(calls).toMatch(/stdin-file: .*gh-token\.\w+ mode 600\n/);
    expect(calls).toContain(`stdin: ${CANARY}`);
    expect(calls).toMatch(/args: auth setup-git --hostname github\.com\n/);
    for (const line of calls.split("\n").filter((l) => l.startsWith("args:"))) expect(line).not.toContain(CANARY);
    expect(readdirSync(temp)).toEqual([]);
    expect(GIT_AUTH_SCRIPT).not.toContain("ghs_");
  });

  it("stops, and still removes the file, when gh refuses the token", () => {
    const result = runScript(4);
    expect(result.status).toBe(4);
    expect(readFileSync(record, "utf8")).not.toContain("setup-git");
    expect(readdirSync(temp)).toEqual([]);
  });

  it("makes git commit as the App's bot, with the noreply address GitHub attributes to it", () => {
    const result = runScript(0, { script: gitAuthScript({ login: "widget-fixer[bot]" }), botId: "41898282" });
    expect(result.status).toBe(0);
    expect(readFileSync(record, "utf8")).toMatch(/args: api --hostname github\.com users\/widget-fixer%5Bbot%5D --jq \.id\n/);
    expect(gitIdentity()).toEqual(["widget-fixer[bot]", "41898282+widget-fixer[bot]@users.noreply.github.com"]);
  });

  it("uses the bot's id as GitHub gave it, asking GitHub nothing", () => {
    const script = gitAuthScript({ login: "widget-fixer[bot]", id: 41898282 });
    expect(script).not.toContain("gh api");
    // The id a lookup would find is another: the given one wins.
    const result = runScript(0, { script, botId: "999" });
    expect(result.status).toBe(0);
    expect(readFileSync(record, "utf8")).not.toContain("args: api");
    expect(gitIdentity()).toEqual(["widget-fixer[bot]", "41898282+widget-fixer[bot]@users.noreply.github.com"]);
  });

  it("falls back to the plain noreply address when the bot's id cannot be read", () => {
    expect(runScript(0).status).toBe(0);
    expect(gitIdentity()).toEqual(["agent-think[bot]", "agent-think[bot]@users.noreply.github.com"]);
  });

  it("logs in to the configured GitHub Enterprise Server, never github.com, and commits with its noreply domain", () => {
    const script = gitAuthScript({ login: "widget-fixer[bot]" }, undefined, githubHost("https://ghe.example.com/api/v3"));
    // With GH_HOST unset, gh would fall back to github.com: the host must be the script's own.
    const result = runScript(0, { script, botId: "17" });
    expect(result.status).toBe(0);
    const calls = readFileSync(record, "utf8");
    expect(calls).toMatch(/args: auth login --hostname ghe\.example\.com --with-token\n/);
    expect(calls).toContain(`stdin: ${CANARY}`);
    expect(calls).toMatch(/args: auth setup-git --hostname ghe\.example\.com\n/);
    expect(calls).toMatch(/args: api --hostname ghe\.example\.com users\/widget-fixer%5Bbot%5D --jq \.id\n/);
    expect(gitIdentity()).toEqual(["widget-fixer[bot]", "17+widget-fixer[bot]@users.noreply.ghe.example.com"]);
    expect(script).not.toContain("github.com");
    expect(calls).not.toContain("github.com");
  });

  it("logs in to a GHE.com tenant with its own noreply domain", () => {
    const result = runScript(0, { script: gitAuthScript({ login: "agent-think[bot]", id: 5 }, undefined, githubHost("https://api.octocorp.ghe.com")) });
    expect(result.status).toBe(0);
    expect(readFileSync(record, "utf8")).toMatch(/args: auth login --hostname octocorp\.ghe\.com --with-token\n/);
    expect(gitIdentity()).toEqual(["agent-think[bot]", "5+agent-think[bot]@users.noreply.octocorp.ghe.com"]);
  });

  it("takes only a plain host name into the script", () => {
    const evil = { kind: "ghes" as const, host: "x'; rm -rf / #", web: "https://x", noreplyDomain: "users.noreply.x" };
    expect(() => gitAuthScript(OURS, undefined, evil)).toThrow("not a GitHub host");
    expect(() => gitAuthScript(OURS, undefined, { ...evil, host: "x", noreplyDomain: "$(reboot)" })).toThrow("not a GitHub host");
  });

  it("takes only a bot login and a whole positive id into the script", () => {
    expect(() => gitAuthScript({ login: "x'; rm -rf / #[bot]" })).toThrow("not a bot login");
    expect(() => gitAuthScript({ login: "octocat" })).toThrow("not a bot login");
    for (const id of [0, -1, 1.5, Number.NaN, 2 ** 60]) {
      expect(() => gitAuthScript({ login: "widget-fixer[bot]", id })).toThrow("not a bot user id");
    }
    expect(() => gitAuthScript({ login: "widget-fixer[bot]", id: "1; reboot" as unknown as number })).toThrow("not a bot user id");
  });

  it("remembers a digest, never the token", async () => {
    const digest = await tokenDigest(CANARY);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digest).not.toContain(CANARY);
    expect(await tokenDigest(CANARY)).toBe(digest);
    expect(await tokenDigest(`${CANARY}x`)).not.toBe(digest);
  });
});

describe("per-container login markers", () => {
  const guarded = (marker: string, nonce: string) => `${authGuard(marker, nonce)}\necho ran-the-command`;

  it("stop a command in a container that has not logged in with this token, and let it run after the login", async () => {
    const marker = await authMarker(CANARY, "agent-think[bot]");
    const nonce = "n0nce-1";
    rmSync(join(temp, "git-auth"), { recursive: true, force: true });
    const before = runScript(0, { script: guarded(marker, nonce) });
    expect(before.status).toBe(0);
    expect(stoppedForGitAuth(before.stdout, nonce)).toBe(true);
    expect(before.stdout).not.toContain("ran-the-command");

    expect(runScript(0, { script: gitAuthScript(OURS, marker) }).status).toBe(0);
    const after = runScript(0, { script: guarded(marker, nonce) });
    expect(stoppedForGitAuth(after.stdout, nonce)).toBe(false);
    expect(after.stdout).toContain("ran-the-command");

    // A new token (or a new login) has another marker: that container must log in again.
    const renewed = runScript(0, { script: guarded(await authMarker(`${CANARY}2`, "agent-think[bot]"), nonce) });
    expect(stoppedForGitAuth(renewed.stdout, nonce)).toBe(true);
    expect(await authMarker(CANARY, "other-app[bot]")).not.toBe(marker);
  });

  it("leave no marker when the login failed, and never name the token", async () => {
    const marker = await authMarker(CANARY, "agent-think[bot]");
    rmSync(join(temp, "git-auth"), { recursive: true, force: true });
    expect(runScript(4, { script: gitAuthScript(OURS, marker) }).status).toBe(4);
    expect(stoppedForGitAuth(runScript(0, { script: guarded(marker, "n2") }).stdout, "n2")).toBe(true);
    expect(marker).toMatch(/^[0-9a-f]{32}$/);
    expect(gitAuthScript(OURS, marker)).not.toContain(CANARY);
  });

  it("take only a digest and a plain nonce into the script", () => {
    expect(() => authGuard("../../etc/passwd", "n")).toThrow();
    expect(() => authGuard("0".repeat(32), "n; rm -rf /")).toThrow();
    expect(() => gitAuthScript(OURS, "x; reboot")).toThrow("not an auth marker");
  });
});
