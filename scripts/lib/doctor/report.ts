/**
 * The doctor's answer: the checkout's lines and, with --url, the Worker's,
 * and with --remote, GitHub's answers (rulesets, CI secrets, CI follow-ups), as text (one line per check: ✓ ok, ! warn, ✗ block, its label and
 * detail, and the fix under anything not ok; then a summary) or as JSON.
 * Exit code 1 when anything blocks runs, else 0. Pure.
 */
import { worstStatus, type HealthStatus } from "../../../src/shared/health";
import type { WorkerHealth } from "./remote";
import type { DoctorCheck } from "./types";

export type DoctorReport = {
  /** The worst status of any line, checkout and Worker together. */
  status: HealthStatus;
  generatedAt: string;
  checkout: { root: string; status: HealthStatus; checks: DoctorCheck[] };
  worker?: { url: string; status: HealthStatus; checks: DoctorCheck[]; generatedAt?: string };
  /** --remote: what GitHub holds the App to and what its pushes reach in CI, three lines per repository. */
  github?: { status: HealthStatus; checks: DoctorCheck[] };
};

const MARK: Record<HealthStatus, string> = { ok: "✓", warn: "!", block: "✗" };

export function doctorReport(input: { root: string; checkout: DoctorCheck[]; worker?: WorkerHealth; github?: DoctorCheck[]; now: number }): DoctorReport {
  const { worker, github } = input;
  const all = [...input.checkout, ...(worker?.checks ?? []), ...(github ?? [])];
  return {
    status: worstStatus(all),
    generatedAt: new Date(input.now).toISOString(),
    checkout: { root: input.root, status: worstStatus(input.checkout), checks: input.checkout },
    ...(worker ? { worker: { ...worker, status: worstStatus(worker.checks) } } : {}),
    ...(github ? { github: { status: worstStatus(github), checks: github } } : {})
  };
}

export function formatReport(report: DoctorReport): string {
  const sections = [section(`This checkout (${report.checkout.root}):`, report.checkout.checks)];
  if (report.worker) sections.push(section(`The Worker's health report (${report.worker.url}):`, report.worker.checks));
  if (report.github) sections.push(section("GitHub (--remote):", report.github.checks));
  return `${sections.join("\n\n")}\n\n${summary([...report.checkout.checks, ...(report.worker?.checks ?? []), ...(report.github?.checks ?? [])])}\n`;
}

function section(title: string, checks: readonly DoctorCheck[]): string {
  const lines = [title];
  for (const check of checks) {
    lines.push(`  ${MARK[check.status]} ${check.label}: ${check.detail}`);
    if (check.status !== "ok" && check.fix) lines.push(`      fix: ${check.fix}`);
  }
  return lines.join("\n");
}

export function summary(checks: readonly DoctorCheck[]): string {
  const count = (status: HealthStatus) => checks.filter((check) => check.status === status).length;
  const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  const blocks = count("block");
  const warns = count("warn");
  const warnings = warns > 0 ? plural(warns, "warning", "warnings") : "";
  if (blocks > 0) return `${MARK.block} ${plural(blocks, "check blocks", "checks block")} runs${warnings ? `; ${warnings}` : ""}`;
  return warns > 0 ? `${MARK.warn} nothing blocks runs; ${warnings}` : `${MARK.ok} nothing blocks runs`;
}

export function exitCode(report: Pick<DoctorReport, "status">): 0 | 1 {
  return report.status === "block" ? 1 : 0;
}
