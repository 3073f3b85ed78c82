/**
 * Continuing threads from the dashboard: one request per thread at a time,
 * and each answer kept by session with the submission it followed, so the
 * banner can follow the continued run (view-models/continue: continueBanner).
 */
import { useCallback, useState } from "react";
import { postContinue } from "../api";
import type { ContinueOutcome, ContinueTrack } from "../view-models/continue";

export type ContinueState = {
  pending: ReadonlySet<string>;
  results: ReadonlyMap<string, ContinueTrack>;
  /** `previousSubmissionId`: the thread's submission when the button was pressed. */
  continueThread: (session: string, previousSubmissionId?: string) => Promise<ContinueOutcome | undefined>;
  dismiss: (session: string) => void;
};

export function useContinue(onContinued?: (session: string) => void): ContinueState {
  const [pending, setPending] = useState<ReadonlySet<string>>(new Set());
  const [results, setResults] = useState<ReadonlyMap<string, ContinueTrack>>(new Map());

  const continueThread = useCallback(
    async (session: string, previousSubmissionId?: string) => {
      if (pending.has(session)) return undefined;
      setPending((set) => new Set(set).add(session));
      const outcome = await postContinue(session);
      setPending((set) => {
        const next = new Set(set);
        next.delete(session);
        return next;
      });
      setResults((map) => new Map(map).set(session, previousSubmissionId === undefined ? { outcome } : { outcome, previousSubmissionId }));
      if (outcome.ok) onContinued?.(session);
      return outcome;
    },
    [pending, onContinued]
  );

  const dismiss = useCallback((session: string) => {
    setResults((map) => {
      const next = new Map(map);
      next.delete(session);
      return next;
    });
  }, []);

  return { pending, results, continueThread, dismiss };
}
