/**
 * The git auth script, run by this machine's bash against a recording `gh`
 * on PATH: the token goes in on stdin and reaches gh on its stdin from a
 * 0600 file that is gone afterwards; it is never an argument.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { GIT_AUTH_SCRIPT, tokenDigest } from "../../src/run/git-auth";

const root = mkdtempSync(join(tmpdir(), "agent-think-gitauth-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const temp = join(root, "temp");
const bin = join(root, "bin");
const record = join(root, "gh-calls.log");
const CANARY = "ghs_CANARYgitAUTHtoken0123456789";

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
exit \${GH_EXIT:-0}
`
);
chmodSync(join(bin, "gh"), 0o755);

function runScript(exitCode = 0) {
  rmSync(record, { force: true });
  const script = GIT_AUTH_SCRIPT.replaceAll("/temp/agent-think", temp);
  return spawnSync("bash", ["-c", script], {
    input: CANARY,
    encoding: "utf8",
    env: { PATH: `${bin}:/usr/bin:/bin`, GH_EXIT: String(exitCode) } as unknown as NodeJS.ProcessEnv
  });
}

describe("GIT_AUTH_SCRIPT", () => {
  it("feeds the token to gh over stdin from a 0600 file, then sets up git and removes the file", () => {
    const result = runScript();
    expect(result.status).toBe(0);
    const calls = readFileSync(record, "utf8");
    expect(calls).toMatch(/args: auth login --hostname github\.com --with-token\n/);
    expect(calls).toMatch(/stdin-file: .*gh-token\.\w+ mode 600\n/);
    expect(calls).toContain(`stdin: ${CANARY}`);
    expect(calls).toMatch(/args: auth setup-git\n/);
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

  it("remembers a digest, never the token", async () => {
    const digest = await tokenDigest(CANARY);
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    expect(digest).not.toContain(CANARY);
    expect(await tokenDigest(CANARY)).toBe(digest);
    expect(await tokenDigest(`${CANARY}x`)).not.toBe(digest);
  });
});
