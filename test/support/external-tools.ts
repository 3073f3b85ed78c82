/**
 * The one place that decides whether a test may skip for want of a tool
 * outside npm (docs/testing.md, "Tools outside npm"). A missing tool CI
 * installs fails the file under CI=true; elsewhere its tests are skipped,
 * titled with `needs(tool)`, and npm test's last lines count them by that tag.
 */
import { EXTERNAL_TOOLS, type ExternalTool, needsTag, present } from "../../scripts/lib/external-tools";

/** Whether `tool` is missing here. Throws under CI=true for a tool `.ci/run` installs: CI never skips those tests. */
export function lacks(tool: ExternalTool): boolean {
  if (present(tool)) return false;
  const { ciInstalls, install } = EXTERNAL_TOOLS[tool];
  if (ciInstalls && process.env.CI === "true") {
    throw new Error(`${tool} is missing, and under CI=true the tests that need it never skip (${install}; .ci/run installs it)`);
  }
  return true;
}

/** The title suffix that marks a test as needing `tool`: " [needs gh]". */
export function needs(...tools: ExternalTool[]): string {
  return tools.map((tool) => ` ${needsTag(tool)}`).join("");
}
