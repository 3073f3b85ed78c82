/**
 * The CommandCenterAgent's RPC surface as other code calls it (the service,
 * the ThinkAgent, health, tests): `commandCenter(env)` in
 * src/command-center.ts types its stub by this, as the other agents' stubs
 * are typed by narrow interfaces. Types only.
 */
import type { ClaimResult, CommandCenterState, GitHubContinuation, Snapshot, SnapshotOptions, ThreadDetail } from "../shared/command-center";
import type { RecordResult } from "../shared/command-center-events";
import type { MonthlySpend } from "../shared/monthly-budget";
import type { RepositoryRecords } from "../shared/repository-records";
import type { ReporterSpend, ReserveInput, ReserveResult } from "./reporter-budget";

/** The CommandCenterAgent methods other code calls over RPC. */
export interface CommandCenter {
  record(event: unknown): Promise<RecordResult>;
  recordBatch(events: unknown[]): Promise<RecordResult[]>;
  snapshot(options?: SnapshotOptions): Promise<Snapshot>;
  threadDetail(session: string): Promise<ThreadDetail | null>;
  hasThread(session: string): Promise<boolean>;
  reproGrantKey(): Promise<Uint8Array>;
  claimForContinuation(session: string, now?: number, fromGitHub?: GitHubContinuation): Promise<ClaimResult>;
  releaseClaim(session: string, error?: string): Promise<{ released: boolean }>;
  refreshState(): Promise<CommandCenterState>;
  monthlySpend(): Promise<MonthlySpend>;
  reporterSpendToday(repo: string): Promise<ReporterSpend>;
  reserveReporterRun(input: ReserveInput): Promise<ReserveResult>;
  releaseReporterRun(session: string): Promise<{ released: boolean }>;
  recordPullRequest(event: unknown): Promise<RecordResult>;
  repositories(): Promise<RepositoryRecords>;
}
