import { describe, expect, it } from "vitest";
import { canContinue, continueNetworkError, continueOutcome, continuePath } from "../../../src/ui/view-models/continue";

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
