/**
 * The configuration health banner: reading `GET /api/health`'s report in
 * the browser without zod (as wire.ts does for the snapshot), and what the
 * banner shows. Nothing when every check is ok; red when one blocks runs,
 * listing the blocking checks first; red too, listing it first, when a
 * safety control is off on purpose (a check marked `unsafe`: EGRESS=open);
 * amber, folded, when there are only warnings. A check with an id this build does not know is shown like any
 * other. Pure.
 */
import type { HealthCheck, HealthReport, HealthStatus } from "../../shared/health";

const STATUSES: Record<HealthStatus, number> = { ok: 0, warn: 1, block: 2 };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isStatus = (value: unknown): value is HealthStatus => typeof value === "string" && Object.hasOwn(STATUSES, value);

function readCheck(value: unknown): HealthCheck | null {
  if (!isRecord(value)) return null;
  const { id, label, status, detail, fix, unsafe } = value;
  if (typeof id !== "string" || typeof label !== "string" || typeof detail !== "string" || !isStatus(status)) return null;
  if (fix !== undefined && typeof fix !== "string") return null;
  return { id: id as HealthCheck["id"], label, status, detail, ...(fix ? { fix } : {}), ...(unsafe === true ? { unsafe: true } : {}) };
}

/** The report, or null when the body is not one. Unreadable check lines are left out. */
export function readHealthReport(body: unknown): HealthReport | null {
  if (!isRecord(body) || !isStatus(body.status) || !Array.isArray(body.checks) || typeof body.generatedAt !== "string") return null;
  const checks = body.checks.map(readCheck).filter((check): check is HealthCheck => check !== null);
  return { status: body.status, checks, generatedAt: body.generatedAt };
}

export type HealthBannerItem = Pick<HealthCheck, "id" | "label" | "detail" | "fix" | "unsafe"> & { status: Exclude<HealthStatus, "ok"> };

export type HealthBannerView = {
  status: Exclude<HealthStatus, "ok">;
  tone: "bad" | "warn";
  title: string;
  /** The checks that are not ok, blocking ones first, otherwise in the report's order. */
  items: HealthBannerItem[];
};

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`;
/** Blocking first, then unsafe warnings, then the other warnings. */
const rank = (check: Pick<HealthCheck, "status" | "unsafe">) => STATUSES[check.status] * 2 + (check.unsafe ? 1 : 0);

export function healthBannerView(report: HealthReport | null): HealthBannerView | null {
  if (report === null) return null;
  const items = report.checks
    .filter((check): check is HealthCheck & HealthBannerItem => check.status !== "ok")
    .sort((a, b) => rank(b) - rank(a))
    .map(({ id, label, status, detail, fix, unsafe }) => ({ id, label, status, detail, ...(fix ? { fix } : {}), ...(unsafe ? { unsafe } : {}) }));
  if (items.length === 0) return null;
  const blocking = items.filter((item) => item.status === "block").length;
  if (blocking > 0) {
    return { status: "block", tone: "bad", title: `Runs cannot work until ${plural(blocking, "setting is", "settings are")} fixed`, items };
  }
  const unsafe = items.filter((item) => item.unsafe).length;
  if (unsafe > 0) {
    return { status: "warn", tone: "bad", title: `Runs work, but ${plural(unsafe, "safety control is", "safety controls are")} off`, items };
  }
  return { status: "warn", tone: "warn", title: `Configuration: ${plural(items.length, "warning", "warnings")}`, items };
}
