/**
 * What a session's tier decides for its runs, outside the sandbox: an
 * issue's reporter session (session-name.ts) takes only reporter-tier
 * dispatches and an issue's own session only maintainers', so a run never
 * lands where a run of other trust left files, git state, a conversation
 * or a recorded check. A reporter run's envelope carries the canned
 * reproduction request, never the reporter's words (trust-facts.ts puts
 * those in the workspace block as untrusted data). docs/security.md,
 * "Every run its own trust domain". Pure.
 */
import type { RunTier } from "../shared/dispatch";
import type { RunEnding } from "./ending";
import type { RunContext } from "./run-context";
import { reporterSessionOf, sessionTier } from "../shared/session-name";
import { gatherTrustFacts, ReporterFindings, type FindingStorage, type ReporterFinding, type TrustFacts } from "./trust-facts";

/** The one instruction a reporter-tier run follows, whatever its author wrote around the request. */
export const REPORTER_INSTRUCTION = "reproduce this issue";

/** A dispatch whose tier is not its session's: refused before anything is written. */
export class TierMismatchError extends Error {
  override readonly name = "TierMismatchError";
  readonly code = "tier_mismatch";
}

/** Refuse a run of `tier` in `session` unless the session is that tier's (a reporter run in the reporter session, any other in the issue's). */
export function assertTierFits(session: string, tier: RunTier | undefined): void {
  const expected = sessionTier(session);
  if (expected === tier) return;
  throw new TierMismatchError(
    tier === "reporter"
      ? `a reporter-tier run belongs in its issue's reporter session, not ${session}`
      : `${session} is a reporter session: it takes reporter-tier runs only`
  );
}

/** The run context as the envelope shows it: a reporter run's instruction is the canned request. */
export function envelopeRun(run: RunContext, reporter: boolean): RunContext {
  return reporter ? { ...run, instruction: REPORTER_INSTRUCTION } : run;
}

/** A reporter session's runs are capped at the lower of the run budget and the reporter's own (0 means none for either). */
export function reporterCostBudget(runBudgetUsd: number, reporterCapUsd: number): number {
  if (runBudgetUsd <= 0) return reporterCapUsd;
  if (reporterCapUsd <= 0) return runBudgetUsd;
  return Math.min(runBudgetUsd, reporterCapUsd);
}

/** A run's sandbox may send at most this many GitHub API requests (REST and GraphQL): a fifth of an installation's least hourly limit. */
export const MAX_GITHUB_API_REQUESTS_PER_RUN = 1_000;
/** A reporter-tier run's own limit: a reproduction reads an issue and a repository, not the installation's whole allowance. */
export const MAX_REPORTER_GITHUB_API_REQUESTS_PER_RUN = 250;

export type SessionTrustDeps = {
  /** The session's name (a reporter session's ends in `.reporter`); undefined while the object has none yet. */
  session: () => string | undefined;
  /** The session's own storage, where a reporter session keeps its last finding. */
  storage: FindingStorage;
  /** Whether the command center has a thread for `session` (so asking it creates no empty agent). */
  threadKnown: (session: string) => Promise<boolean>;
  /** The last finding of `session`'s agent (a reporter session's). */
  finding: (session: string) => Promise<ReporterFinding | null>;
};

/**
 * A ThinkAgent's tier, and everything it decides outside the sandbox: which
 * dispatches it takes, what its envelope says, its spend and GitHub limits,
 * and what crosses to or from the other tier (trust-facts.ts).
 */
export class SessionTrust {
  readonly #deps: SessionTrustDeps;
  readonly #findings: ReporterFindings;

  constructor(deps: SessionTrustDeps) {
    this.#deps = deps;
    this.#findings = new ReporterFindings(deps.storage);
  }

  /** Whether this is an issue's reporter session: its runs are the reporter tier's, read-only. */
  get reporter(): boolean {
    return sessionTier(this.#deps.session() ?? "") === "reporter";
  }

  /** Refuse a dispatch of another tier than the session's, before anything is written. */
  assertFits(tier: RunTier | undefined): void {
    assertTierFits(this.#deps.session() ?? "", tier);
  }

  /** The run context as the envelope shows it (a reporter run's instruction is the canned request). */
  envelope(run: RunContext): RunContext {
    return envelopeRun(run, this.reporter);
  }

  /** The turn's own context, held to the session's tier whatever a record says. */
  turn<T extends RunContext | undefined>(run: T): T {
    return run && this.reporter ? { ...run, tier: "reporter" } : run;
  }

  /** The run's money budget: RUN_COST_BUDGET, and for a reporter run its own cap below it. */
  costBudget(runBudgetUsd: number, reporterCapUsd: number): number {
    return this.reporter ? reporterCostBudget(runBudgetUsd, reporterCapUsd) : runBudgetUsd;
  }

  /** The most GitHub API requests one run's sandbox may send through the gateway. */
  githubRequestLimit(): number {
    return this.reporter ? MAX_REPORTER_GITHUB_API_REQUESTS_PER_RUN : MAX_GITHUB_API_REQUESTS_PER_RUN;
  }

  /** What this run may learn from the other tier, as untrusted data for its block. */
  trustFacts(run: RunContext): Promise<TrustFacts> {
    const session = this.#deps.session();
    return gatherTrustFacts(run, {
      reporter: this.reporter,
      reporterSession: session ? reporterSessionOf(session) : null,
      threadKnown: this.#deps.threadKnown,
      finding: this.#deps.finding
    });
  }

  /** A run ended: a reporter session keeps what it found for a maintainer's later run; an issue's session keeps nothing. */
  async ended(submissionId: string, ending: RunEnding, at: number): Promise<void> {
    if (this.reporter) await this.#findings.ended(submissionId, ending, at);
  }

  /** A reporter session's last finding; null in an issue's own session. */
  async finding(): Promise<ReporterFinding | null> {
    return this.reporter ? ((await this.#findings.latest()) ?? null) : null;
  }
}
