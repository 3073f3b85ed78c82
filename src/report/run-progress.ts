/**
 * A run's live progress comment, as the run goes: what it shows is kept per
 * submission (in synchronous KV, so a recovered turn goes on from it), and
 * each change is written as the comment's next edit through the issue's
 * outbox, which throttles and coalesces it. Created from the preparation's
 * `onSettings`, not at all with `progress: false`; the end is RunReports'
 * `turnEnded`, so nothing here can edit it afterwards. Pure apart from its
 * dependencies; ThinkAgent wires them. docs/reporting.md, "The progress comment".
 */
import type { RunUsage } from "../run/run-ledger";
import type { RunRef } from "./run-ref";
import { describeActivity, progressText, type PlanStep, type ProgressState } from "./progress";

export type RunProgressDeps = {
  storage: { get<T>(key: string): T | undefined; put<T>(key: string, value: T): void; delete(key: string): boolean };
  reports: {
    progressStarted(run: RunRef, text: string): Promise<void>;
    progressChanged(run: RunRef, text: string, minIntervalMs: number): Promise<void>;
  };
  runRef: (submissionId: string) => Promise<RunRef | null>;
  /** What the run has used so far (its cost), from the run ledger. */
  usage: (submissionId: string) => Promise<RunUsage | undefined>;
  /** The least time between two edits (PROGRESS_EDIT_INTERVAL_MS; tests shorten it). */
  editIntervalMs: () => number;
  now: () => number;
  /** A change that could not be written is logged: the progress comment never breaks a run. */
  log: (event: string, fields: Record<string, unknown>) => void;
};

const stateKey = (submissionId: string) => `agent-think:progress:${submissionId}`;

export class RunProgress {
  readonly #deps: RunProgressDeps;
  constructor(deps: RunProgressDeps) {
    this.#deps = deps;
  }

  /** The repository's settings are known: the progress comment is created, unless they say `progress: false`. */
  async started(submissionId: string, settings: { progress: boolean }): Promise<void> {
    try {
      await this.#start(submissionId, settings);
    } catch (error) {
      this.#failed(submissionId, error);
    }
  }

  async #start(submissionId: string, settings: { progress: boolean }): Promise<void> {
    const kept = this.#deps.storage.get<ProgressState>(stateKey(submissionId));
    const state: ProgressState = kept ? { ...kept, enabled: settings.progress } : { startedAt: this.#deps.now(), enabled: settings.progress, plan: [] };
    this.#deps.storage.put(stateKey(submissionId), state);
    if (!state.enabled) return;
    const run = await this.#deps.runRef(submissionId);
    if (run) await this.#deps.reports.progressStarted(run, await this.#text(state, run));
  }

  /** `update_plan`: the plan as the model has it now. */
  plan(submissionId: string, steps: PlanStep[]): Promise<void> {
    return this.#change(submissionId, (state) => ({ ...state, plan: steps }));
  }

  /** A tool call began: what the run is doing now, in words. */
  async activity(submissionId: string, toolName: string, input: unknown): Promise<void> {
    const now = describeActivity(toolName, input);
    if (now) await this.#change(submissionId, (state) => ({ ...state, now }));
  }

  /** A reproduction page was published: the comment links it. */
  published(submissionId: string, url: string): Promise<void> {
    return this.#change(submissionId, (state) => ({ ...state, reproductionUrl: url }));
  }

  /** The run ended and its comment's end is queued: what it showed goes. */
  forget(submissionId: string): void {
    this.#deps.storage.delete(stateKey(submissionId));
  }

  async #change(submissionId: string, change: (state: ProgressState) => ProgressState): Promise<void> {
    try {
      await this.#write(submissionId, change);
    } catch (error) {
      this.#failed(submissionId, error);
    }
  }

  #failed(submissionId: string, error: unknown): void {
    this.#deps.log("progress:failed", { submissionId, error: error instanceof Error ? error.message : String(error) });
  }

  async #write(submissionId: string, change: (state: ProgressState) => ProgressState): Promise<void> {
    // A plan recorded before the settings were read (or in a run that has no GitHub) is kept, shown once there is a comment.
    const kept = this.#deps.storage.get<ProgressState>(stateKey(submissionId)) ?? { startedAt: this.#deps.now(), enabled: false, plan: [] };
    const state = change(kept);
    this.#deps.storage.put(stateKey(submissionId), state);
    if (!state.enabled) return;
    const run = await this.#deps.runRef(submissionId);
    if (run) await this.#deps.reports.progressChanged(run, await this.#text(state, run), this.#deps.editIntervalMs());
  }

  async #text(state: ProgressState, run: RunRef): Promise<string> {
    const usage = await this.#deps.usage(run.submissionId);
    return progressText(state, run, { at: this.#deps.now(), ...(usage?.cost ? { cost: usage.cost } : {}), ...(usage?.scripted ? { scripted: true } : {}) });
  }
}
