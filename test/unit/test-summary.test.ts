/**
 * npm test's closing lines (scripts/lib/test-summary.ts): totals, every
 * failed test by name, and one line per missing tool counting the tests it
 * skipped, read from reports shaped as vitest's JSON reporter writes them.
 */
import { describe, expect, it } from "vitest";
import type { ExternalTool } from "../../scripts/lib/external-tools";
import { type SuiteReport, summarize as summarizeWith } from "../../scripts/lib/test-summary";

const NONE = new Set<ExternalTool>();
const summarize = (reports: SuiteReport[], root: string, missing: ReadonlySet<ExternalTool> = NONE) => summarizeWith(reports, root, missing);

const ROOT = "/repo";

function report(file: string, tests: { fullName: string; status: string }[], extra: Partial<SuiteReport["testResults"][number]> = {}): SuiteReport {
  const count = (status: string) => tests.filter((test) => test.status === status).length;
  return {
    numPassedTests: count("passed"),
    numFailedTests: count("failed"),
    numPendingTests: count("pending") + count("skipped"),
    numTodoTests: count("todo"),
    testResults: [{ name: `${ROOT}/${file}`, status: count("failed") ? "failed" : "passed", assertionResults: tests, ...extra }]
  };
}

describe("npm test's summary", () => {
  it("counts every suite's tests, and passes only with no failure and at least one pass", () => {
    const summary = summarize([report("test/a.test.ts", [{ fullName: "a works", status: "passed" }]), report("test/b.test.ts", [{ fullName: "b works", status: "passed" }])], ROOT);
    expect(summary).toEqual({ lines: ["2 passed, 0 failed"], ok: true });
    expect(summarize([], ROOT)).toEqual({ lines: ["0 passed, 0 failed"], ok: false });
  });

  it("names each failed test by file and full name, so a log's tail says which", () => {
    const summary = summarize([report("test/workers/x.test.ts", [{ fullName: "the run ends", status: "failed" }, { fullName: "it starts", status: "passed" }])], ROOT);
    expect(summary.lines).toEqual(["1 passed, 1 failed", "  failed: test/workers/x.test.ts › the run ends"]);
    expect(summary.ok).toBe(false);
  });

  it("counts a file that failed to load as a failure, with the first line of its error", () => {
    const broken = report("test/broken.test.ts", [], { status: "failed", message: "gh is missing, and under CI=true …\n    at lacks" });
    const summary = summarize([broken, report("test/a.test.ts", [{ fullName: "a works", status: "passed" }])], ROOT);
    expect(summary.lines).toEqual(["1 passed, 1 failed", "  failed: test/broken.test.ts: gh is missing, and under CI=true …"]);
    expect(summary.ok).toBe(false);
  });

  const skippedTests = (): SuiteReport[] => [
    report("test/unit/egress-git.test.ts", [
      { fullName: "spellings git push [needs git-http-backend] gh pr merge [needs gh]", status: "pending" },
      { fullName: "spellings git push [needs git-http-backend] gh issue comment [needs gh]", status: "skipped" },
      { fullName: "spellings git push [needs git-http-backend] git -c alias", status: "passed" }
    ]),
    report("tests-e2e/workspace.test.ts", [
      { fullName: "a real container [needs docker] runs a command", status: "pending" },
      { fullName: "something marked todo", status: "todo" }
    ])
  ];

  it("says per missing tool how many tests it skipped and what installs it; other skips are only counted", () => {
    const summary = summarize(skippedTests(), ROOT, new Set(["gh", "docker"]));
    expect(summary.lines).toEqual([
      "1 passed, 0 failed, 4 skipped",
      "skipped 2 tests: gh is not installed; to run them: apt-get install gh (CI installs it and never skips them)",
      "skipped 1 test: no Docker engine answers; to run them: a Docker engine that answers `docker info`"
    ]);
    expect(summary.ok).toBe(true);
  });

  it("counts a test for the first missing tool its title needs, the outer describe's before its own", () => {
    expect(summarize(skippedTests(), ROOT, new Set(["gh", "git-http-backend"])).lines.slice(1)).toEqual([
      "skipped 2 tests: git's http-backend is missing; to run them: apt-get install git (CI installs it and never skips them)"
    ]);
    expect(summarize(skippedTests(), ROOT).lines).toEqual(["1 passed, 0 failed, 4 skipped"]);
  });
});
