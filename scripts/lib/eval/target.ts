/**
 * What the eval runner asks of a target (the local Worker through the
 * dispatch contract, or a deployed bot through GitHub) and what it gets
 * back: how the run went, in the run's own figures. A target never judges;
 * judge.ts compares what it saw with what the case expects.
 */
import type { ResultOutcome } from "../../../src/shared/outcomes";
import type { CaseNeed, EvalCase } from "./case";
import type { CaseResult, EvalCost } from "./report";

/** What a target saw of one run; every figure is null when the run did not give it. */
export type RunFigures = {
  /** What the run reported with `report_result`. */
  outcome: ResultOutcome | null;
  /** How the run ended, as the bot says: `error` with its error. */
  status: "done" | "error" | "cancelled" | null;
  error: string | null;
  /** From the mention (or dispatch) to the 🚀 (the run started). */
  timeToStartMs: number | null;
  /** From the mention (or dispatch) to the closing comment (or the end of the run). */
  timeToCloseMs: number | null;
  toolCalls: number | null;
  tokens: { input: number; output: number } | null;
  cost: EvalCost | null;
  scripted: boolean;
  /** The models that served the run's steps (the dashboard API's run record). */
  models: string[] | null;
  reproductionUrl: string | null;
  /** Whether the run's pull request was proven (its reproduction's check failed before and passed after); null when it needed no proof. */
  proven: boolean | null;
  threadUrl: string | null;
  issueUrl: string | null;
};

/**
 * One case's run: it ended; or the case's time ran out first (with what was
 * seen by then); or the target refused to start it (the reason, e.g. the
 * dispatch answered 400, or the webhook app reacted 😕).
 */
export type CaseRun = ({ kind: "ended" } | { kind: "timed-out" } | { kind: "refused"; reason: string }) & {
  figures: RunFigures;
  /** Tidies up after the verdict (the GitHub target closes and labels the issue it opened). */
  cleanup?: (result: CaseResult) => Promise<void>;
};

export type RunRequest = {
  case: EvalCase;
  /** What the bot is asked: the case's instruction, and its scripted directives with `--scripted`. */
  instruction: string;
  /** The case's time, counted from the mention (or the dispatch): the target starts the clock when it asks. */
  timeLimitMs: number;
};

export interface EvalTarget {
  readonly kind: "local" | "github";
  /** The Worker's URL or the sandbox repository, for the report. */
  readonly against: string;
  run(request: RunRequest): Promise<CaseRun>;
  /** Whether the target has what a case `needs` (a container for a fix's proof); a target without it answers nothing, and every need is taken as met. */
  has?(need: CaseNeed): Promise<boolean>;
  /** The repository a case runs in (for `pickModel`); the case's own when absent. */
  repoFor?(evalCase: EvalCase): string;
  /**
   * Before the first case: make the repositories the cases run in pick `model`
   * (`model:` in their .github/agent-think.yml), and return what puts them back.
   */
  pickModel?(model: string, repos: readonly string[]): Promise<() => Promise<void>>;
  /** Fetches a page the run published (the reproduction check), with whatever the target needs to reach it. */
  fetchPage(url: string): Promise<Response>;
}

export const NO_FIGURES: RunFigures = {
  outcome: null,
  status: null,
  error: null,
  timeToStartMs: null,
  timeToCloseMs: null,
  toolCalls: null,
  tokens: null,
  cost: null,
  scripted: false,
  models: null,
  reproductionUrl: null,
  proven: null,
  threadUrl: null,
  issueUrl: null
};
