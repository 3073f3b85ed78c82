/**
 * What a ThinkAgent does in Think's turn hooks: at the turn's start the
 * watchdog armed, the workspace prepared and the block added, the budgets'
 * stops and every tool confined to redacted results; before each model call
 * a fresh token and the step's model and provider options; around each tool
 * call the progress comment, the ledger and the command center told; after
 * each step its cost counted. It also says a recovery and a quiet turn.
 * ThinkAgent's overrides call it; pure apart from its dependencies.
 */
import type { ChatRecoveryContext, PrepareStepContext, StepContext, ToolCallContext, ToolCallResultContext, TurnConfig, TurnContext } from "@cloudflare/think";
import type { LanguageModel } from "ai";
import type { RunCredentials } from "../egress/run-credentials";
import type { ModelEnv } from "../model/config";
import { stepProviderOptions } from "../model/reasoning-effort";
import type { RunModels } from "../model/run-models";
import type { RunProgress } from "../report/run-progress";
import type { RunReports } from "../report/run-reports";
import type { Logger } from "../run/log";
import type { RunBudgets } from "../run/run-budgets";
import type { RunLedger } from "../run/run-ledger";
import type { TurnWatchdog } from "../run/watchdog";
import { confineTools } from "../tools/confine";
import type { RunView } from "./run-view";
import type { TurnWorkspace } from "./turn-workspace";
import { withWorkspaceBlock } from "./workspace-block";

export type TurnHooksDeps = {
  token: Pick<RunCredentials["token"], "load" | "fresh" | "redactDeep">;
  view: Pick<RunView, "turn" | "runRef">;
  watchdog: Pick<TurnWatchdog, "arm">;
  reports: Pick<RunReports, "resumedIfRecovering" | "recovering" | "toolCalled" | "stale">;
  workspace: Pick<TurnWorkspace, "prepare">;
  budgets: Pick<RunBudgets, "stops" | "stepFinished">;
  models: Pick<RunModels, "forStep">;
  progress: Pick<RunProgress, "activity">;
  ledger: Pick<RunLedger, "recordToolCall">;
  maxSteps: () => number;
  modelEnv: () => ModelEnv;
  log: Logger;
  now?: () => number;
};

export class TurnHooks {
  readonly #deps: TurnHooksDeps;
  readonly #now: () => number;

  constructor(deps: TurnHooksDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => Date.now());
  }

  /** Once per turn, before the model's first step: the turn's messages, tools and stops. */
  async beforeTurn(ctx: Pick<TurnContext, "messages" | "tools" | "requestId" | "trigger" | "continuation" | "abortSignal">): Promise<TurnConfig> {
    const deps = this.#deps;
    await deps.token.load();
    deps.log("turn:start", { requestId: ctx.requestId, trigger: ctx.trigger, continuation: ctx.continuation });
    const turn = await deps.view.turn();
    if (turn) deps.watchdog.arm(turn.submissionId);
    // A recovered turn is running again.
    if (turn) deps.reports.resumedIfRecovering(turn.submissionId, this.#now());
    // Before the model's first step; a failed setup ends the turn here (steps/prepare.ts).
    const prepared = turn ? await deps.workspace.prepare(turn.submissionId, ctx.abortSignal) : null;
    const stops = turn ? await deps.budgets.stops(turn.submissionId) : [];
    return {
      ...(prepared ? { messages: withWorkspaceBlock(ctx.messages, prepared) } : {}),
      maxSteps: deps.maxSteps(),
      ...(stops.length > 0 ? { stopWhen: stops } : {}),
      // Every tool result is redacted before the model, the transcript or a socket sees it.
      tools: confineTools(ctx.tools, (value) => deps.token.redactDeep(value)),
      // bash replaces the workspace's generic exec tool.
      activeTools: Object.keys(ctx.tools).filter((name) => name !== "exec")
    };
  }

  /**
   * Before every model call: renew the run's token when it is about to expire (the gateway and the Worker's posts use it),
   * and send the step's provider options, its reasoning effort set by the skill the run activated (src/model/reasoning-effort.ts),
   * to the model the repository picked, or the deployment's (a model not allowed ends the run here: src/model/run-models.ts).
   */
  async beforeStep(ctx: PrepareStepContext): Promise<{ model: LanguageModel; providerOptions: ReturnType<typeof stepProviderOptions> }> {
    await this.#deps.token.fresh();
    return { model: await this.#deps.models.forStep(), providerOptions: stepProviderOptions(this.#deps.modelEnv(), ctx) };
  }

  /** A tool call begins: the progress comment says what the run is doing now. */
  async beforeToolCall(ctx: Pick<ToolCallContext, "toolName" | "input">): Promise<void> {
    const turn = await this.#deps.view.turn();
    if (turn) await this.#deps.progress.activity(turn.submissionId, ctx.toolName, ctx.input);
  }

  /** A tool call ended: the watchdog's activity, the command center's tally, a log line. */
  async afterToolCall(ctx: Pick<ToolCallResultContext, "toolName" | "toolCallId" | "requestId" | "success" | "durationMs"> & { error?: unknown }): Promise<void> {
    const deps = this.#deps;
    const turn = await deps.view.turn();
    if (turn) await deps.ledger.recordToolCall(turn.submissionId, this.#now());
    const call = { tool: ctx.toolName, ok: ctx.success, toolCallId: ctx.toolCallId };
    deps.reports.toolCalled(turn?.submissionId ?? ctx.requestId ?? "unknown", call, this.#now());
    deps.log("tool", {
      requestId: ctx.requestId,
      tool: ctx.toolName,
      toolCallId: ctx.toolCallId,
      ok: ctx.success,
      durationMs: Math.round(ctx.durationMs),
      ...(ctx.success ? {} : { error: errorMessage(ctx.error) })
    });
  }

  /** A model step finished: what it cost, and whether a budget stops the loop (run/run-budgets.ts). */
  async stepFinished(ctx: StepContext): Promise<void> {
    const turn = await this.#deps.view.turn();
    if (!turn) return;
    await this.#deps.budgets.stepFinished(turn.submissionId, ctx);
  }

  /** Think took an interrupted turn over: the thread shows `recovering` until the turn runs again. */
  async recovering(ctx: Pick<ChatRecoveryContext, "incidentId" | "attempt" | "recoveryKind" | "recoveryRootRequestId">): Promise<void> {
    this.#deps.log("recovery", { incidentId: ctx.incidentId, attempt: ctx.attempt, kind: ctx.recoveryKind });
    this.#deps.reports.recovering((await this.#deps.view.turn())?.submissionId ?? ctx.recoveryRootRequestId, this.#now());
  }

  /** The watchdog found the turn quiet for the stale window: one stale notice on its issue. */
  async quiet(submissionId: string, quietForMs: number): Promise<void> {
    this.#deps.log("watchdog:stale", { submissionId, quietForMs });
    const run = await this.#deps.view.runRef(submissionId);
    if (run) await this.#deps.reports.stale(run, quietForMs);
  }
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
