/**
 * npm test's closing lines, from every suite's vitest JSON report: the
 * totals, each failed test by file and name (a CI log shows only its
 * tail), and one line per missing tool saying how many tests it skipped:
 * a skipped test counts for the first tool its title needs that is missing.
 */
import { EXTERNAL_TOOLS, type ExternalTool, needsTag } from "./external-tools";

type Assertion = { fullName: string; status: string };
export type SuiteReport = {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: { name: string; status?: string; message?: string; assertionResults: Assertion[] }[];
};

export type Summary = { lines: string[]; ok: boolean };

export function summarize(reports: SuiteReport[], root: string, missing: ReadonlySet<ExternalTool>): Summary {
  let passed = 0;
  let failed = 0;
  let skipped = 0;
  const failures: string[] = [];
  const skippedFor = new Map<ExternalTool, number>();
  for (const report of reports) {
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += report.numPendingTests + report.numTodoTests;
    for (const file of report.testResults) {
      const name = file.name.startsWith(root) ? file.name.slice(root.length).replace(/^\//, "") : file.name;
      // A file that failed to load has no tests to name: its message says why.
      if (file.status === "failed" && file.assertionResults.length === 0) {
        failed += 1;
        failures.push(`${name}: ${(file.message ?? "failed to load").split("\n")[0]}`);
      }
      for (const test of file.assertionResults) {
        if (test.status === "failed") failures.push(`${name} › ${test.fullName}`);
        if (test.status !== "pending" && test.status !== "skipped") continue;
        const tool = firstMissing(test.fullName, missing);
        if (tool) skippedFor.set(tool, (skippedFor.get(tool) ?? 0) + 1);
      }
    }
  }
  const lines = [`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`];
  for (const failure of failures) lines.push(`  failed: ${failure}`);
  for (const [tool, count] of skippedFor) {
    const { missing: why, install, ciInstalls } = EXTERNAL_TOOLS[tool];
    lines.push(`skipped ${count} test${count === 1 ? "" : "s"}: ${why}; to run them: ${install}${ciInstalls ? " (CI installs it and never skips them)" : ""}`);
  }
  return { lines, ok: failed === 0 && passed > 0 };
}

/** The missing tool whose tag comes first in the title: the outer describe's before the test's own. */
function firstMissing(title: string, missing: ReadonlySet<ExternalTool>): ExternalTool | undefined {
  let first: { tool: ExternalTool; at: number } | undefined;
  for (const tool of missing) {
    const at = title.indexOf(needsTag(tool));
    if (at !== -1 && (!first || at < first.at)) first = { tool, at };
  }
  return first?.tool;
}
