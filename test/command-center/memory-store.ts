/**
 * An in-memory RegistryStore with the SQLite store's semantics (ordering,
 * dedupe, pruning), for the registry's plain tests. Records are copied in
 * and out, as a real store serializes them.
 */
import { isStale } from "../../src/command-center/staleness";
import type { RegistryStore, RunRecord, Spend, ThreadCursor, ThreadRecord } from "../../src/command-center/store";

const copy = <T>(value: T): T => structuredClone(value);

export class MemoryRegistryStore implements RegistryStore {
  readonly threads = new Map<string, ThreadRecord>();
  readonly runs = new Map<string, RunRecord>();
  readonly toolCalls = new Map<string, { at: number; ok: boolean }>();

  getThread(session: string) {
    const thread = this.threads.get(session);
    return thread && copy(thread);
  }

  putThread(thread: ThreadRecord) {
    this.threads.set(thread.session, copy(thread));
  }

  quietActiveThreads(before: number, limit: number) {
    return [...this.threads.values()]
      .filter((thread) => (thread.status === "running" || thread.status === "recovering") && thread.lastActivityAt < before)
      .sort((a, b) => a.lastActivityAt - b.lastActivityAt || compare(a.session, b.session))
      .slice(0, limit)
      .map(copy);
  }

  quietestUnsettled(now: number, staleRunMs: number) {
    return this.quietActiveThreads(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER).find((thread) => !isStale(thread, now, staleRunMs));
  }

  pageThreads(after: ThreadCursor | undefined, limit: number) {
    return [...this.threads.values()]
      .sort((a, b) => b.lastActivityAt - a.lastActivityAt || compare(b.session, a.session))
      .filter(
        (thread) =>
          !after ||
          thread.lastActivityAt < after.lastActivityAt ||
          (thread.lastActivityAt === after.lastActivityAt && thread.session < after.session)
      )
      .slice(0, limit)
      .map(copy);
  }

  countThreads() {
    return this.threads.size;
  }

  getRun(session: string, submissionId: string) {
    const run = this.runs.get(`${session}\n${submissionId}`);
    return run && copy(run);
  }

  putRun(run: RunRecord) {
    this.runs.set(`${run.session}\n${run.submissionId}`, copy(run));
  }

  runsTouchedSince(since: number) {
    return [...this.runs.values()].filter((run) => run.touchedAt >= since).map(copy);
  }

  runsOf(session: string) {
    return [...this.runs.values()].filter((run) => run.session === session).map(copy);
  }

  spendSince(since: number, top: number): Spend {
    const ended = [...this.runs.values()].filter((run) => run.touchedAt >= since && run.endedAt !== undefined && run.endedAt >= since);
    const sum = (runs: RunRecord[]) => ({
      usd: runs.reduce((total, run) => total + (run.cost?.usd ?? 0), 0),
      complete: runs.every((run) => run.cost?.complete === true)
    });
    const repos = [...new Set(ended.flatMap((run) => (run.repo ? [run.repo] : [])))];
    const byRepo = repos
      .map((repo) => {
        const runs = ended.filter((run) => run.repo === repo);
        return { repo, runs: runs.length, cost: sum(runs) };
      })
      .sort((a, b) => b.cost.usd - a.cost.usd || compare(a.repo, b.repo))
      .slice(0, top);
    const costliest = ended
      .filter((run) => (run.cost?.usd ?? 0) > 0)
      .sort((a, b) => b.cost!.usd - a.cost!.usd)
      .slice(0, top)
      .map(copy);
    return { total: sum(ended), byRepo, costliest };
  }

  reporterSpendSince(since: number): Spend["byRepo"] {
    const ended = [...this.runs.values()].filter((run) => run.tier === "reporter" && run.repo && run.touchedAt >= since && run.endedAt !== undefined && run.endedAt >= since);
    const repos = [...new Set(ended.map((run) => run.repo!.toLowerCase()))];
    return repos
      .map((repo) => {
        const runs = ended.filter((run) => run.repo!.toLowerCase() === repo);
        return { repo, runs: runs.length, cost: { usd: runs.reduce((total, run) => total + (run.cost?.usd ?? 0), 0), complete: runs.every((run) => run.cost?.complete === true) } };
      })
      .sort((a, b) => b.cost.usd - a.cost.usd || compare(a.repo, b.repo));
  }

  addToolCall(call: { session: string; submissionId: string; key: string; at: number; ok: boolean }) {
    const key = `${call.session}\n${call.submissionId}\n${call.key}`;
    if (this.toolCalls.has(key)) return false;
    this.toolCalls.set(key, { at: call.at, ok: call.ok });
    return true;
  }

  toolCallStats(since: number) {
    const recent = [...this.toolCalls.values()].filter((call) => call.at >= since);
    return { calls: recent.length, errors: recent.filter((call) => !call.ok).length };
  }

  prune(runsBefore: number, toolCallsBefore: number) {
    for (const [key, run] of this.runs) if (run.touchedAt < runsBefore) this.runs.delete(key);
    for (const [key, call] of this.toolCalls) if (call.at < toolCallsBefore) this.toolCalls.delete(key);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
