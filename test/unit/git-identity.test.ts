/**
 * The container's identity script, run by this machine's bash against a
 * recording `gh` and `update-ca-certificates` on PATH (the script's absolute
 * paths moved under a temp directory): git commits as the run's bot (its id
 * used as given, or looked up with the login alone), the platform's
 * interception CA is trusted once it is there, and nothing of it is a
 * credential: no stdin, no `gh auth`. The guard stops a command on a
 * container without the marker, until the script ran.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { gitIdentityScript, identityGuard, identityMarker, INTERCEPTION_CA_PATH, stoppedForIdentity } from "../../src/run/git-identity";
import { githubHost } from "../../src/shared/github-urls";

const root = mkdtempSync(join(tmpdir(), "agent-think-identity-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const temp = join(root, "temp");
const bin = join(root, "bin");
const etc = join(root, "etc");
const usr = join(root, "usr");
const record = join(root, "calls.log");
const OURS = { login: "agent-think[bot]" };
const SCRIPT = gitIdentityScript(OURS);

// Stand-ins that record their arguments: gh answers the bot's id when the test gives one.
spawnSync("mkdir", ["-p", bin, temp]);
writeFileSync(
  join(bin, "gh"),
  `#!/usr/bin/env bash
echo "gh: $*" >> ${JSON.stringify(record)}
if [ "$1" = "api" ]; then
  [ -n "\${GH_BOT_ID:-}" ] || exit 1
  echo "$GH_BOT_ID"
fi
`
);
writeFileSync(join(bin, "update-ca-certificates"), `#!/usr/bin/env bash\necho "update-ca-certificates" >> ${JSON.stringify(record)}\n`);
chmodSync(join(bin, "gh"), 0o755);
chmodSync(join(bin, "update-ca-certificates"), 0o755);

const home = join(root, "home");
spawnSync("mkdir", ["-p", home]);

/** The script with its absolute paths under the temp root. */
function local(script: string): string {
  return script.replaceAll("/temp/agent-think", temp).replaceAll("/etc/cloudflare", join(etc, "cloudflare")).replaceAll("/usr/local/share", join(usr, "share"));
}

function runScript(options: { script?: string; botId?: string } = {}) {
  rmSync(record, { force: true });
  rmSync(join(home, ".gitconfig"), { force: true });
  return spawnSync("bash", ["-c", local(options.script ?? SCRIPT)], {
    encoding: "utf8",
    env: { PATH: `${bin}:/usr/bin:/bin`, HOME: home, GH_BOT_ID: options.botId ?? "" } as unknown as NodeJS.ProcessEnv
  });
}

const calls = () => (existsSync(record) ? readFileSync(record, "utf8") : "");
const gitIdentity = () =>
  ["user.name", "user.email"].map((key) => spawnSync("git", ["config", "--global", key], { encoding: "utf8", env: { HOME: home, PATH: "/usr/bin:/bin" } as unknown as NodeJS.ProcessEnv }).stdout.trim());

describe("gitIdentityScript", () => {
  it("makes git commit as the App's bot, with the noreply address GitHub attributes to it, looking the id up", () => {
    const result = runScript({ script: gitIdentityScript({ login: "widget-fixer[bot]" }), botId: "41898282" });
    expect(result.status).toBe(0);
    expect(calls()).toContain("gh: api --hostname github.com users/widget-fixer%5Bbot%5D --jq .id\n");
    expect(gitIdentity()).toEqual(["widget-fixer[bot]", "41898282+widget-fixer[bot]@users.noreply.github.com"]);
  });

  it("uses the bot's id as GitHub gave it, asking GitHub nothing", () => {
    const script = gitIdentityScript({ login: "widget-fixer[bot]", id: 41898282 });
    expect(script).not.toContain("gh api");
    const result = runScript({ script, botId: "999" });
    expect(result.status).toBe(0);
    expect(calls()).not.toContain("gh:");
    expect(gitIdentity()).toEqual(["widget-fixer[bot]", "41898282+widget-fixer[bot]@users.noreply.github.com"]);
  });

  it("falls back to the plain noreply address when the bot's id cannot be read", () => {
    expect(runScript().status).toBe(0);
    expect(gitIdentity()).toEqual(["agent-think[bot]", "agent-think[bot]@users.noreply.github.com"]);
  });

  it("holds no credential: no stdin, no gh login, no credential helper", () => {
    for (const script of [SCRIPT, gitIdentityScript({ login: "a[bot]", id: 3 }, "0".repeat(32))]) {
      expect(script).not.toMatch(/gh auth|with-token|credential|GH_TOKEN|cat >/);
    }
  });

  it("uses the configured GitHub Enterprise Server and its noreply domain, never github.com", () => {
    const script = gitIdentityScript({ login: "widget-fixer[bot]" }, undefined, githubHost("https://ghe.example.com/api/v3"));
    const result = runScript({ script, botId: "17" });
    expect(result.status).toBe(0);
    expect(calls()).toContain("gh: api --hostname ghe.example.com users/widget-fixer%5Bbot%5D --jq .id\n");
    expect(gitIdentity()).toEqual(["widget-fixer[bot]", "17+widget-fixer[bot]@users.noreply.ghe.example.com"]);
    expect(script).not.toContain("github.com");
  });

  it("uses a GHE.com tenant's own noreply domain", () => {
    expect(runScript({ script: gitIdentityScript({ login: "agent-think[bot]", id: 5 }, undefined, githubHost("https://api.octocorp.ghe.com")) }).status).toBe(0);
    expect(gitIdentity()).toEqual(["agent-think[bot]", "5+agent-think[bot]@users.noreply.octocorp.ghe.com"]);
  });

  it("trusts the platform's interception CA once it is there, and only once", () => {
    const ca = join(etc, INTERCEPTION_CA_PATH.replace("/etc/", ""));
    mkdirSync(join(usr, "share", "ca-certificates"), { recursive: true });
    rmSync(join(etc, "cloudflare"), { recursive: true, force: true });
    expect(runScript().status).toBe(0);
    expect(calls()).not.toContain("update-ca-certificates");
    mkdirSync(join(ca, ".."), { recursive: true });
    writeFileSync(ca, "-----BEGIN CERTIFICATE-----\nfake\n-----END CERTIFICATE-----\n");
    expect(runScript().status).toBe(0);
    expect(calls()).toContain("update-ca-certificates");
    expect(readFileSync(join(usr, "share", "ca-certificates", "cloudflare-containers-ca.crt"), "utf8")).toContain("fake");
    // The same CA again: nothing to do.
    expect(runScript().status).toBe(0);
    expect(calls()).not.toContain("update-ca-certificates");
  });

  it("takes only a plain host name into the script", () => {
    const evil = { kind: "ghes" as const, host: "x'; rm -rf / #", web: "https://x", noreplyDomain: "users.noreply.x" };
    expect(() => gitIdentityScript(OURS, undefined, evil)).toThrow("not a GitHub host");
    expect(() => gitIdentityScript(OURS, undefined, { ...evil, host: "x", noreplyDomain: "$(reboot)" })).toThrow("not a GitHub host");
  });

  it("takes only a bot login and a whole positive id into the script", () => {
    expect(() => gitIdentityScript({ login: "x'; rm -rf / #[bot]" })).toThrow("not a bot login");
    expect(() => gitIdentityScript({ login: "octocat" })).toThrow("not a bot login");
    for (const id of [0, -1, 1.5, Number.NaN, 2 ** 60]) {
      expect(() => gitIdentityScript({ login: "widget-fixer[bot]", id })).toThrow("not a bot user id");
    }
    expect(() => gitIdentityScript({ login: "widget-fixer[bot]", id: "1; reboot" as unknown as number })).toThrow("not a bot user id");
  });
});

describe("per-container identity markers", () => {
  const guarded = (marker: string, nonce: string) => `${identityGuard(marker, nonce)}\necho ran-the-command`;

  it("stop a command in a container without the bot's identity, and let it run after the script", async () => {
    const marker = await identityMarker(OURS);
    const nonce = "n0nce-1";
    rmSync(join(temp, "git-identity"), { recursive: true, force: true });
    const before = runScript({ script: guarded(marker, nonce) });
    expect(before.status).toBe(0);
    expect(stoppedForIdentity(before.stdout, nonce)).toBe(true);
    expect(before.stdout).not.toContain("ran-the-command");

    expect(runScript({ script: gitIdentityScript(OURS, marker) }).status).toBe(0);
    const after = runScript({ script: guarded(marker, nonce) });
    expect(stoppedForIdentity(after.stdout, nonce)).toBe(false);
    expect(after.stdout).toContain("ran-the-command");

    // Another bot, or the same bot on another GitHub, has another marker.
    expect(await identityMarker({ login: "other-app[bot]" })).not.toBe(marker);
    expect(await identityMarker(OURS, githubHost("https://ghe.example.com/api/v3"))).not.toBe(marker);
    expect(await identityMarker(OURS)).toBe(marker);
  });

  it("take only a digest and a plain nonce into the script", () => {
    expect(() => identityGuard("../../etc/passwd", "n")).toThrow();
    expect(() => identityGuard("0".repeat(32), "n; rm -rf /")).toThrow();
    expect(() => gitIdentityScript(OURS, "x; reboot")).toThrow("not an identity marker");
  });
});
