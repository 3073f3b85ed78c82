/**
 * The proof as the pull request's body and the closing comment show it
 * (src/report/proof-text.ts): the verdict, the command, each side, and whose
 * check it was: given with open_pull_request by the run, or the thread's
 * reproduction's, recorded by which tier's run and when.
 */
import { describe, expect, it } from "vitest";
import { PROOF_HEADING, proofLine, proofSection, sourceText, tierRun } from "../../src/report/proof-text";
import type { FixProof } from "../../src/run/fix-proof";

const AT = Date.UTC(2026, 4, 6, 7, 8, 9);
const ran: FixProof = {
  ran: true,
  command: "cd /workspace/repro && npm run repro",
  base: { sha: "b".repeat(40), exitCode: 1, excerpt: "actual 5, expected 4" },
  head: { sha: "c".repeat(40), exitCode: 0, excerpt: "" },
  held: true
};

describe("whose check the proof ran", () => {
  it("says the run gave it, or which tier's run recorded it and when", () => {
    expect(sourceText({ kind: "given" })).toBe("The check was given with `open_pull_request` by this run.");
    expect(sourceText({ kind: "recorded", tier: "maintainer", submissionId: "sub-0", at: AT })).toBe(
      "The check is the thread's reproduction's, recorded by a maintainer's run (`sub-0`) at 2026-05-06T07:08:09Z."
    );
    expect(sourceText({ kind: "recorded", tier: "reporter", submissionId: "sub-0", at: AT })).toContain("recorded by a reporter-tier run (`sub-0`)");
    expect(sourceText({ kind: "recorded", submissionId: "sub-0", at: AT })).toContain("recorded by a run that kept no tier (`sub-0`)");
    expect([tierRun("maintainer"), tierRun("reporter"), tierRun(undefined)]).toEqual(["a maintainer's run", "a reporter-tier run", "a run that kept no tier"]);
  });

  it("is in the section after the command, for a proof that ran and one that did not", () => {
    const section = proofSection({ ...ran, source: { kind: "recorded", tier: "maintainer", submissionId: "sub-0", at: AT } });
    expect(section.startsWith(`${PROOF_HEADING}\n\n✅ **Proven:**`)).toBe(true);
    const lines = section.split("\n");
    const source = lines.indexOf("The check is the thread's reproduction's, recorded by a maintainer's run (`sub-0`) at 2026-05-06T07:08:09Z.");
    expect(source).toBeGreaterThan(lines.indexOf("cd /workspace/repro && npm run repro"));
    expect(source).toBeLessThan(lines.findIndex((line) => line.startsWith("**Before (base)**")));
    const refused = proofSection({ ran: false, why: "the thread's check was recorded by a reporter-tier run (sub-0)", source: { kind: "recorded", tier: "reporter", submissionId: "sub-0", at: AT } });
    expect(refused).toBe(
      [
        PROOF_HEADING,
        "",
        "⚠️ **Not proven:** the thread's check was recorded by a reporter-tier run (sub-0).",
        "",
        "The check is the thread's reproduction's, recorded by a reporter-tier run (`sub-0`) at 2026-05-06T07:08:09Z."
      ].join("\n")
    );
    expect(proofSection({ ...ran, source: { kind: "given" } })).toContain("\n\nThe check was given with `open_pull_request` by this run.\n\n");
  });

  it("says nothing of it for a proof kept before it was said, and keeps the short line as it was", () => {
    expect(proofSection(ran)).not.toContain("The check");
    expect(proofLine({ ...ran, source: { kind: "given" } })).toBe("proven (exit 1 → 0)");
  });
});
