import { describe, expect, it } from "vitest";
import { errorText, runHealthChecks, type HealthProbe } from "../../src/health/run-checks";
import type { HealthCheck } from "../../src/shared/health";

const NOW = Date.UTC(2026, 9, 20, 12, 0, 0);
const check = (id: HealthCheck["id"], status: HealthCheck["status"], detail = "fine"): HealthCheck => ({ id, label: id, status, detail });
const probe = (id: HealthCheck["id"], run: HealthProbe["run"]): HealthProbe => ({ id, label: id, run });

describe("runHealthChecks", () => {
  it("reports every check in order with the worst status and the time", async () => {
    const report = await runHealthChecks([probe("model", () => check("model", "ok")), probe("github", async () => check("github", "warn"))], {
      now: () => NOW,
      secrets: []
    });
    expect(report).toEqual({ status: "warn", checks: [check("model", "ok"), check("github", "warn")], generatedAt: "2026-10-20T12:00:00.000Z" });
  });

  it("runs the checks side by side", async () => {
    const started: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const waiting = runHealthChecks(
      [
        probe("skills", async () => (started.push("skills"), await gate, check("skills", "ok"))),
        probe("repros", async () => (started.push("repros"), release(), check("repros", "ok")))
      ],
      { now: () => NOW, secrets: [] }
    );
    expect((await waiting).status).toBe("ok");
    expect(started).toEqual(["skills", "repros"]);
  });

  it("turns a check that throws or hangs into a block line, and never throws", async () => {
    const report = await runHealthChecks(
      [
        probe("skills", () => {
          throw new Error("exploded\nover two lines");
        }),
        probe("repros", () => new Promise(() => {})),
        probe("access", () => check("access", "ok"))
      ],
      { now: () => NOW, secrets: [], timeoutMs: 20 }
    );
    expect(report.status).toBe("block");
    expect(report.checks).toEqual([
      { id: "skills", label: "skills", status: "block", detail: "the check failed: exploded over two lines", fix: "see docs/health.md (skills)" },
      { id: "repros", label: "repros", status: "block", detail: "the check failed: the repros check did not answer within 20 ms", fix: "see docs/health.md (repros)" },
      check("access", "ok")
    ]);
  });

  it("redacts the named secrets and token shapes from every line", async () => {
    const report = await runHealthChecks(
      [
        probe("model", () => check("model", "ok", "key sk-canary-value-123 in use")),
        probe("token-broker", () => Promise.reject(new Error("got ghs_abcdefghijklmnopqrstuvwx and sk-canary-value-123")))
      ],
      { now: () => NOW, secrets: ["sk-canary-value-123"] }
    );
    const text = JSON.stringify(report);
    expect(text).not.toContain("sk-canary-value-123");
    expect(text).not.toContain("ghs_");
    expect(report.checks[0]!.detail).toBe("key [redacted] in use");
  });
});

describe("errorText", () => {
  it("is one bounded line", () => {
    expect(errorText(new Error("x".repeat(1_000))).length).toBe(300);
    expect(errorText("plain\tstring")).toBe("plain string");
    expect(errorText(new Error(""))).toBe("Error");
  });
});
