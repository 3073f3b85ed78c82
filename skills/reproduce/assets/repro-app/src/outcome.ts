// Not part of the reproduction: how a run of triggerBug() reads, shared by
// the page (App.tsx) and `npm run repro` (check.mjs) so both say the same.
// It only compares: whether a difference is a bug is decided from what the
// project says is intended, not by whoever wrote `expected`. Leave it as it is.
import type { ReproResult } from "./repro";

/** A triggerBug() that throws is a result: its actual is the error, held against no error at all. */
export function thrownResult(error: unknown): ReproResult {
  const thrown = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return { expected: "no error", actual: `threw ${thrown}` };
}

export function matches(result: ReproResult): boolean {
  return result.expected === result.actual;
}

export function verdict(result: ReproResult): string {
  return matches(result) ? "Matches expected" : "Differs from expected";
}
