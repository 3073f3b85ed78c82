/**
 * The tools outside npm that some suites drive for real, how to tell one
 * is here, what installs it, and whether `.ci/run` does (then CI never
 * skips its tests: test/support/external-tools.ts). npm test's summary
 * (scripts/lib/test-summary.ts) counts skipped tests by their title tag.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

export type ExternalTool = "gh" | "git-http-backend" | "docker";

export const EXTERNAL_TOOLS: Record<ExternalTool, { install: string; ciInstalls: boolean; missing: string }> = {
  gh: { install: "apt-get install gh", ciInstalls: true, missing: "gh is not installed" },
  "git-http-backend": { install: "apt-get install git", ciInstalls: true, missing: "git's http-backend is missing" },
  docker: { install: "a Docker engine that answers `docker info`", ciInstalls: false, missing: "no Docker engine answers" }
};

/** What a test's title carries when it needs `tool`. */
export function needsTag(tool: ExternalTool): string {
  return `[needs ${tool}]`;
}

const PROBES: Record<ExternalTool, () => boolean> = {
  gh: () => spawnSync("gh", ["--version"], { stdio: "ignore" }).status === 0,
  "git-http-backend": () => {
    try {
      return existsSync(join(execFileSync("git", ["--exec-path"], { encoding: "utf8" }).trim(), "git-http-backend"));
    } catch {
      return false;
    }
  },
  docker: () => spawnSync("docker", ["info"], { stdio: "ignore", timeout: 10_000 }).status === 0
};

const known = new Map<ExternalTool, boolean>();

/** Whether `tool` answers here, probed once per process. */
export function present(tool: ExternalTool): boolean {
  let answer = known.get(tool);
  if (answer === undefined) {
    answer = PROBES[tool]();
    known.set(tool, answer);
  }
  return answer;
}
