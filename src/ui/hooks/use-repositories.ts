/**
 * Each repository's record (`GET /api/repositories`), read when the page
 * opens and every 30 s while it is open; a failed read keeps what was shown
 * and says why. Lives with the repository view's chunk.
 */
import { useCallback, useEffect, useState } from "react";
import type { RepositoryRecords } from "../../shared/repository-records";
import { ApiError, getJson } from "../api";
import { readRepositoryRecords, REPOSITORIES_PATH } from "../view-models/repositories";

export type RepositoriesState = { records: RepositoryRecords | null; error: string | null; loading: boolean; refresh: () => void };

const POLL_MS = 30_000;

export async function fetchRepositories(signal?: AbortSignal): Promise<RepositoryRecords> {
  const read = readRepositoryRecords(await getJson(REPOSITORIES_PATH, signal));
  if (!read.ok) throw new ApiError(`unexpected repositories shape: ${read.reason}`);
  if (read.dropped > 0) console.warn(`[agent-think] ${read.dropped} repository record(s) were unreadable and are not shown`);
  return read.value;
}

export function useRepositories(): RepositoriesState {
  const [state, setState] = useState<Omit<RepositoriesState, "refresh">>({ records: null, error: null, loading: true });
  const [tick, setTick] = useState(0);
  const refresh = useCallback(() => setTick((n) => n + 1), []);

  useEffect(() => {
    const timer = setInterval(refresh, POLL_MS);
    return () => clearInterval(timer);
  }, [refresh]);

  useEffect(() => {
    const abort = new AbortController();
    fetchRepositories(abort.signal).then(
      (records) => setState({ records, error: null, loading: false }),
      (reason: unknown) => {
        if (abort.signal.aborted) return;
        setState((previous) => ({ ...previous, error: reason instanceof Error ? reason.message : String(reason), loading: false }));
      }
    );
    return () => abort.abort();
  }, [tick]);

  return { ...state, refresh };
}
