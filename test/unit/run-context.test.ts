/**
 * The run context a dispatch makes and the one a turn is prepared with
 * (src/run/run-context.ts): a turn gets its own submission's tier and CI
 * failures, never the latest dispatch's, and nothing malformed.
 */
import { describe, expect, it } from "vitest";
import { runContextForTurn, runContextFrom } from "../../src/run/run-context";
import type { DispatchInput } from "../../src/shared/dispatch";

const HEAD = "c".repeat(40);
const ci = { headSha: HEAD, failures: [{ name: "test", conclusion: "failure" as const, excerpt: "FAIL" }] };
const pullRequest = { number: 9, headRef: "agent-think/issue-8", headSha: HEAD };
const input: DispatchInput = { repo: "acme/widgets", issueNumber: 9, instruction: "fix the failing CI checks on this pull request", installationToken: "", pullRequest, ci };

describe("the run context", () => {
  it("is what the dispatch said, with the token's expiry from GitHub or an hour after it arrived", () => {
    const run = runContextFrom({ ...input, installationTokenExpiresAt: "2026-12-02T06:00:00Z" }, 1_000);
    expect(run).toMatchObject({ repo: "acme/widgets", issueNumber: 9, pullRequest, ci, tokenExpiresAt: Date.parse("2026-12-02T06:00:00Z"), updatedAt: 1_000 });
    expect(runContextFrom({ ...input, ci: undefined }, 1_000)).not.toHaveProperty("ci");
    expect(runContextFrom(input, 1_000).tokenExpiresAt).toBe(1_000 + 60 * 60 * 1000);
  });

  it("for a turn, carries its own submission's tier and CI failures, not the latest dispatch's", () => {
    const latest = runContextFrom({ ...input, tier: undefined }, 1_000);
    // A maintainer's turn queued behind the CI follow-up gets no CI output.
    expect(runContextForTurn(latest, { requestedBy: "maria" })).not.toHaveProperty("ci");
    // The CI follow-up's own turn gets its failures, whatever the context says now.
    const replaced = runContextFrom({ ...input, ci: undefined, pullRequest: { ...pullRequest, headSha: undefined } }, 2_000);
    expect(runContextForTurn(replaced, { ci })).toMatchObject({ ci });
    // A reporter-tier turn stays one; a maintainer's never becomes one.
    expect(runContextForTurn({ ...latest, tier: "reporter" }, {})).not.toHaveProperty("tier");
    expect(runContextForTurn(latest, { tier: "reporter" })).toMatchObject({ tier: "reporter" });
  });

  it("reads nothing malformed from the metadata", () => {
    const latest = runContextFrom(input, 1_000);
    expect(runContextForTurn(latest, { ci: { headSha: "nope", failures: [] }, tier: "maintainer" })).not.toHaveProperty("ci");
    expect(runContextForTurn(latest, undefined)).not.toHaveProperty("tier");
  });
});
