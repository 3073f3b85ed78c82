import { describe, expect, it } from "vitest";
import { healthBannerView, readHealthReport } from "../../src/ui/view-models/health";
import type { HealthCheck, HealthReport } from "../../src/shared/health";

const line = (id: HealthCheck["id"], status: HealthCheck["status"], fix?: string): HealthCheck => ({
  id,
  label: id,
  status,
  detail: `${id} is ${status}`,
  ...(fix ? { fix } : {})
});
const report = (...checks: HealthCheck[]): HealthReport => ({
  status: checks.some((c) => c.status === "block") ? "block" : checks.some((c) => c.status === "warn") ? "warn" : "ok",
  checks,
  generatedAt: "2026-10-20T12:00:00.000Z"
});

describe("healthBannerView", () => {
  it("shows nothing when every check is ok, or without a report", () => {
    expect(healthBannerView(report(line("model", "ok"), line("access", "ok")))).toBeNull();
    expect(healthBannerView(null)).toBeNull();
  });

  it("is red when a check blocks, blocking lines first with their fixes", () => {
    const view = healthBannerView(report(line("model", "warn", "set the gateway"), line("github", "ok"), line("skills", "block", "npm run seed:r2"), line("repros", "block", "bind REPROS")));
    expect(view).toMatchObject({ status: "block", tone: "bad", title: "Runs cannot work until 2 settings are fixed" });
    expect(view!.items.map((item) => [item.id, item.status, item.fix])).toEqual([
      ["skills", "block", "npm run seed:r2"],
      ["repros", "block", "bind REPROS"],
      ["model", "warn", "set the gateway"]
    ]);
  });

  it("is red, unsafe line first, when a safety control is off on purpose; still red with blocks too", () => {
    const unsafe: HealthCheck = { ...line("egress", "warn", 'set EGRESS to ""'), unsafe: true };
    const view = healthBannerView(report(line("local-dev", "warn"), unsafe));
    expect(view).toMatchObject({ status: "warn", tone: "bad", title: "Runs work, but 1 safety control is off" });
    expect(view!.items.map((item) => [item.id, item.unsafe ?? false])).toEqual([
      ["egress", true],
      ["local-dev", false]
    ]);
    expect(healthBannerView(report(unsafe, line("skills", "block")))).toMatchObject({ status: "block", tone: "bad" });
    // It survives the wire.
    expect(readHealthReport(JSON.parse(JSON.stringify(report(unsafe))))!.checks[0]).toMatchObject({ unsafe: true });
  });

  it("is amber with only warnings", () => {
    expect(healthBannerView(report(line("local-dev", "warn"), line("containers", "warn")))).toMatchObject({
      status: "warn",
      tone: "warn",
      title: "Configuration: 2 warnings"
    });
    expect(healthBannerView(report(line("skills", "block")))!.title).toBe("Runs cannot work until 1 setting is fixed");
  });
});

describe("readHealthReport", () => {
  it("reads a report and keeps checks it does not know", () => {
    const body = { status: "warn", checks: [line("model", "warn"), { id: "future", label: "Future", status: "ok", detail: "new" }], generatedAt: "x" };
    expect(readHealthReport(body)?.checks.map((check) => check.id)).toEqual(["model", "future"]);
  });

  it("leaves out unreadable lines and refuses what is not a report", () => {
    const body = { status: "block", checks: [line("skills", "block"), { id: "x", status: "red" }, null], generatedAt: "x" };
    expect(readHealthReport(body)?.checks).toEqual([line("skills", "block")]);
    for (const bad of [null, [], "ok", { status: "fine", checks: [], generatedAt: "x" }, { status: "ok", generatedAt: "x" }]) {
      expect(readHealthReport(bad)).toBeNull();
    }
  });
});
