import { describe, expect, it } from "vitest";
import { canContinue, continueBanner, continueNetworkError, continueOutcome, continuePath, failedAgainNote } from "../../../src/ui/view-models/continue";
import { threadRowView } from "../../../src/ui/view-models/threads";
import { NOW, thread } from "./fixtures";

describe("canContinue", () => {
  it("offers Continue for a failed run or a stale running one, never a done or live one", () => {
    expect(canContinue({ status: "error", stale: false })).toBe(true);
    expect(canContinue({ status: "running", stale: true })).toBe(true);
    expect(canContinue({ status: "running", stale: false })).toBe(false);
    expect(canContinue({ status: "done", stale: false })).toBe(false);
    expect(canContinue({ status: "done", stale: true })).toBe(false);
    expect(canContinue({ status: "cancelled", stale: false })).toBe(false);
    expect(canContinue({ status: "cancelled", stale: true })).toBe(false);
  });

  it("offers Continue for a recovering run only once it is stale: until then the recovery is Think's", () => {
    expect(canContinue({ status: "recovering", stale: false })).toBe(false);
    expect(canContinue({ status: "recovering", stale: true })).toBe(true);
  });
});

describe("continueOutcome", () => {
  it("reads a 202 with its submission id", () => {
    expect(continueOutcome(202, { session: "a-b-1", submissionId: "sub-9" })).toEqual({
      ok: true,
      submissionId: "sub-9",
      message: "Continuing: submission sub-9 queued."
    });
  });

  it("explains 404, 409 and 403, adding the server's own words", () => {
    expect(continueOutcome(404, "not found")).toMatchObject({ ok: false, reason: "not_found" });
    expect(continueOutcome(404, "not found").message).toContain("(not found)");
    const conflict = continueOutcome(409, { error: "thread is running" });
    expect(conflict).toMatchObject({ ok: false, reason: "conflict" });
    expect(conflict.message).toContain("no longer failed or stale");
    expect(conflict.message).toContain("(thread is running)");
    expect(continueOutcome(403, undefined)).toMatchObject({ ok: false, reason: "forbidden" });
    expect(continueOutcome(403, undefined).message).not.toContain("(");
    // The gate's refusal keeps the origin and Access explanation.
    expect(continueOutcome(403, { error: "forbidden: not a same-origin JSON request" }).message).toBe(
      "Refused: continuing is allowed only from the dashboard's own origin, behind Access. (forbidden: not a same-origin JSON request)"
    );
  });

  it("says a refusal by the operator's own settings in its own words", () => {
    const budget = "agent-think: this month's runs have cost $50.00 of MONTHLY_COST_BUDGET=$50: no new run starts before 2027-01-01 00:00 UTC";
    expect(continueOutcome(403, { error: budget })).toEqual({ ok: false, reason: "forbidden", message: `Refused: ${budget}` });
    expect(continueOutcome(403, { error: budget }).message).not.toContain("origin");
  });

  it("reports anything else with its status, leaving out an HTML error page", () => {
    const outcome = continueOutcome(502, "<html><body>Bad gateway</body></html>");
    expect(outcome).toMatchObject({ ok: false, reason: "failed", message: "Continue failed: HTTP 502." });
  });

  it("reports a request that never reached the server", () => {
    expect(continueNetworkError(new TypeError("Failed to fetch"))).toMatchObject({
      ok: false,
      reason: "network",
      message: expect.stringContaining("Failed to fetch")
    });
  });

  it("posts to the session's continue route", () => {
    expect(continuePath("cloudflare-agents-1859")).toBe("/api/command-center/continue/cloudflare-agents-1859");
  });
});

describe("continueBanner: the banner follows the continued run", () => {
  const ok = continueOutcome(202, { session: "cloudflare-agents-1859", submissionId: "sub-2" });
  const track = { outcome: ok, previousSubmissionId: "sub-1" };
  const before = thread({ status: "error", submissionId: "sub-1", lastError: "the model fell over", failures: 1 });

  it("says queued until the command center has the continued run, and while its turn waits", () => {
    expect(continueBanner(track, before)).toMatchObject({ phase: "queued", tone: "info", message: "Continuing: submission sub-2 queued.", settled: false });
    expect(continueBanner(track, undefined)).toMatchObject({ phase: "queued" });
    expect(continueBanner(track, thread({ status: "running", submissionId: "sub-2", turnStartedAt: undefined }))).toMatchObject({ phase: "queued" });
  });

  it("goes running once the turn starts, and says so when it is recovered or goes stale", () => {
    expect(continueBanner(track, thread({ status: "running", submissionId: "sub-2", turnStartedAt: NOW }))).toMatchObject({ phase: "running", settled: false });
    expect(continueBanner(track, thread({ status: "recovering", submissionId: "sub-2", turnStartedAt: NOW }))).toMatchObject({ phase: "recovering", tone: "warn" });
    expect(continueBanner(track, thread({ status: "running", stale: true, submissionId: "sub-2", turnStartedAt: NOW }))).toMatchObject({ phase: "stale", tone: "warn" });
  });

  it("becomes the outcome, never staying queued after the run ended", () => {
    expect(continueBanner(track, thread({ status: "done", submissionId: "sub-2" }))).toEqual({
      phase: "done",
      tone: "good",
      message: "The continued run finished.",
      settled: true
    });
    expect(continueBanner(track, thread({ status: "cancelled", submissionId: "sub-2" }))).toMatchObject({ phase: "cancelled", settled: true });
  });

  it("says a continued run failed again, with how many failures in a row and the latest error", () => {
    expect(continueBanner(track, thread({ status: "error", submissionId: "sub-2", failures: 2, lastError: "still broken" }))).toEqual({
      phase: "failed",
      tone: "bad",
      message: "The continued run failed again (2 failures).",
      error: "still broken",
      settled: true
    });
    // A server that does not count failures: still the outcome.
    expect(continueBanner(track, thread({ status: "error", submissionId: "sub-2" }))).toMatchObject({ phase: "failed", message: "The continued run failed." });
  });

  it("knows the continued run by a change of submission when the answer carried no id", () => {
    const anonymous = { outcome: continueOutcome(202, {}), previousSubmissionId: "sub-1" };
    expect(continueBanner(anonymous, before)).toMatchObject({ phase: "queued", message: "Continuing: the submission queued." });
    expect(continueBanner(anonymous, thread({ status: "done", submissionId: "sub-7" }))).toMatchObject({ phase: "done" });
    expect(continueBanner({ outcome: continueOutcome(202, {}) }, thread({ status: "done", submissionId: "sub-7" }))).toMatchObject({ phase: "queued" });
  });

  it("shows a refused Continue as it was answered, settled", () => {
    const refused = continueOutcome(409, { error: "thread is running" });
    expect(continueBanner({ outcome: refused }, before)).toMatchObject({ phase: "refused", tone: "bad", message: refused.message, settled: true });
  });
});

describe("failedAgainNote", () => {
  it("counts repeat failures only", () => {
    expect(failedAgainNote({ status: "error", failures: 3 })).toBe("failed again (3 failures)");
    expect(failedAgainNote({ status: "error", failures: 1 })).toBeUndefined();
    expect(failedAgainNote({ status: "error" })).toBeUndefined();
    expect(failedAgainNote({ status: "done", failures: 2 })).toBeUndefined();
  });

  it("is on the thread's row, with who continued it and what it cost", () => {
    const row = threadRowView(thread({ status: "error", failures: 2, continuedBy: "ops@example.com", cost: { usd: 0.42, complete: true } }), NOW);
    expect(row).toMatchObject({ failedAgain: "failed again (2 failures)", continuedBy: "continued by ops@example.com", cost: { text: "$0.42" } });
    expect(threadRowView(thread(), NOW)).toMatchObject({ failedAgain: undefined, continuedBy: undefined, cost: undefined });
  });
});
