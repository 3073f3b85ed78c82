/**
 * ThinkAgent: one Durable Object per session (an issue's, or its reporter
 * session), named by `sessionName`. It owns the session's storage and Think's
 * transcript and durable turns, and wires them into the collaborators
 * src/steps/run-parts.ts builds: the run's lifecycle (steps/run-lifecycle.ts),
 * its turn hooks (steps/turn-hooks.ts) and tools (steps/turn-tools.ts). Its
 * public methods are the RPC surface (docs/contracts.md); the protected hooks
 * are the seams the test Worker's subclasses override.
 */
import { Think, type ChatRecoveryContext, type ChatRecoveryOptions, type TurnContext } from "@cloudflare/think";
import type { PrepareStepContext, StepContext, ToolCallContext, ToolCallResultContext } from "@cloudflare/think";
import { getWorkspace } from "@cloudflare/computer";
import { getAgentByName, type Connection } from "agents";
import type { LanguageModel, ToolSet } from "ai";
import { withLocalMisses } from "./run/quiet-workspace";
import type { ModelEnv } from "./model/config";
import { RUN_CONTRACT } from "./run/run-contract";
import { skillSource } from "./run/skills";
import { reporterRunCapUsd } from "./command-center/reporter-budget";
import type { ReporterFinding } from "./run/trust-facts";
import type { EgressRefusal } from "./egress/gateway";
import type { EgressAnswer, EgressRequest } from "./egress/sandbox-egress";
import { isViewerMessage, refusalFrame } from "./run/viewer-protocol";
import type { WorkspaceAgent } from "./workspace-agent";
import { commandCenter, type CommandCenter } from "./command-center";
import { PROGRESS_EDIT_INTERVAL_MS } from "./report/progress";
import { parseCostBudget, parseMaxSteps, parseTokenBudget } from "./run/budget";
import { parseStaleRunMs } from "./command-center/staleness";
import type { QuietTruth } from "./command-center/reconcile";
import { buildRunParts } from "./steps/run-parts";
import type { RunHost } from "./steps/run-host";
import type { CancelRunResult, ContinueRunInput, StartRunInput, StartRunResult } from "./steps/run-lifecycle";
import type { BotIdentity, ResetSessionResult, SubmissionStatus, TranscriptMessage } from "./shared/dispatch";

export type { CancelRunResult, ContinueRunInput, StartRunInput, StartRunResult };

/** What Think records as the error of a run whose recovery was exhausted. */
export const RECOVERY_EXHAUSTED_MESSAGE =
  "agent-think was interrupted and could not recover this run. Continue it from the dashboard.";

export class ThinkAgent extends Think<Env> {
  override maxSteps = parseMaxSteps(this.env.MAX_STEPS);
  /** Input + output tokens one run may use; 0 for no budget. An instance property: tests lower it. */
  tokenBudget = parseTokenBudget(this.env.RUN_TOKEN_BUDGET);
  /** US dollars one run may spend (RUN_COST_BUDGET); 0 for no budget. An instance property: tests lower it. */
  costBudget = parseCostBudget(this.env.RUN_COST_BUDGET);
  /** US dollars one reporter-tier run may spend (REPORTER_RUN_COST_BUDGET), below costBudget. An instance property: tests lower it. */
  reporterCostBudget = reporterRunCapUsd(this.env.REPORTER_RUN_COST_BUDGET);
  /** MODEL_PRICES (src/shared/pricing.ts). An instance property: tests price the scripted model. */
  modelPrices: string | undefined = this.env.MODEL_PRICES;
  /** A running turn with no tool activity for this long gets one stale notice on its issue. */
  staleRunMs = parseStaleRunMs(this.env.STALE_RUN_MS);
  /** The least time between two edits of a run's progress comment. An instance property: tests shorten it. */
  progressEditIntervalMs = PROGRESS_EDIT_INTERVAL_MS;

  override chatRecovery = {
    maxAttempts: 10,
    terminalMessage: RECOVERY_EXHAUSTED_MESSAGE,
    onExhausted: (ctx: { incidentId: string; reason: string }) => this.#run.log("recovery:exhausted", { incidentId: ctx.incidentId, reason: ctx.reason })
  };

  // The files live in the issue's WorkspaceAgent; Think's file tools and
  // skills reach them over RPC, as the bash tool does.
  // A missing path is answered here, not thrown across RPC (run/quiet-workspace.ts).
  override workspace = withLocalMisses(getWorkspace(() => this.#workspaceAgent()));

  /**
   * Seam: where lifecycle events go. An instance property, so it is not on
   * the RPC surface; tests swap in a slow or throwing one.
   */
  protected commandCenter: () => Promise<CommandCenter> = () => commandCenter(this.env);

  /** Everything the agent's runs need, wired to this object's storage, bindings and seams (steps/run-parts.ts). */
  readonly #run = buildRunParts(this.#host());

  #host(): RunHost {
    return {
      storage: this.ctx.storage,
      env: this.env,
      session: () => {
        try {
          return this.name;
        } catch {
          return undefined; // not yet named: only during construction
        }
      },
      limits: () => ({
        maxSteps: this.maxSteps,
        tokenBudget: this.tokenBudget,
        costBudget: this.costBudget,
        reporterCostBudget: this.reporterCostBudget,
        modelPrices: this.modelPrices,
        staleRunMs: this.staleRunMs,
        progressEditIntervalMs: this.progressEditIntervalMs,
        interruptedMessage: this.chatRecovery.terminalMessage
      }),
      commandCenter: () => this.commandCenter(),
      githubApiUrl: () => this.githubApiUrl(),
      modelEnv: () => this.modelEnv(),
      reporterFinding: async (session) => ((await getAgentByName(this.issueAgents(), session)) as unknown as Pick<ThinkAgent, "reporterFinding">).reporterFinding(),
      workspaceAgent: () => this.#workspaceAgent(),
      files: () => this.workspace.fs,
      schedules: this,
      waitUntil: (promise) => this.ctx.waitUntil(promise),
      submissions: {
        submit: (messages, options) => this.submitMessages(messages, options),
        list: (options) => this.listSubmissions(options),
        inspect: (submissionId) => this.inspectSubmission(submissionId),
        cancel: (submissionId, reason) => this.cancelSubmission(submissionId, reason),
        transcript: async () => (await this.getMessages()) as TranscriptMessage[],
        clearTranscript: () => this.clearMessages()
      }
    };
  }

  override async onStart(): Promise<void> {
    // Think installs its chat-protocol handler as this.onMessage while it
    // starts, just before this hook; the gate goes in front of it, so a socket
    // can watch a run but never start, clear or cancel one.
    const handle = this.onMessage.bind(this);
    this.onMessage = async (connection, message) => {
      if (isViewerMessage(message)) return handle(connection, message);
      this.#run.log("socket:refused", { connection: connection.id });
      connection.send(refusalFrame(message));
    };
    // Whatever wakes this object (a turn, a recovery, a scheduled delivery)
    // redacts with the run's token from the start.
    await this.#run.token.load();
    // What a killed process still owed the command center goes out now,
    // and a run whose ending it cut off is finished.
    this.ctx.waitUntil(this.#run.reports.flushEvents());
    this.ctx.waitUntil(this.#run.lifecycle.finishCutOff());
  }

  /** Sockets only watch: no client may write this agent's state (src/http/agent-routes.ts lets only dashboards connect). */
  override shouldConnectionBeReadonly(): boolean {
    return true;
  }

  override validateStateChange(_next: unknown, source: Connection | "server"): void {
    if (source !== "server") throw new Error("a ThinkAgent's state is read-only");
  }

  /** Where reactions and comments go (GITHUB_API_URL); empty posts nothing. The tests' reporting agent overrides it. */
  protected githubApiUrl(): string {
    return this.env.GITHUB_API_URL ?? "";
  }

  /** The namespace this issue's agents live in (a reporter session's beside the issue's); test classes override it. */
  protected issueAgents(): Env["ThinkAgent"] {
    return this.env.ThinkAgent;
  }

  /** The configuration the model is built from; the tests' gateway agent overrides it. */
  protected modelEnv(): ModelEnv {
    return this.env;
  }

  override getModel(): LanguageModel {
    return this.#run.models.default();
  }

  /** The run contract every skill relies on, said once (src/run/run-contract.ts). */
  override getSystemPrompt(): string {
    return RUN_CONTRACT;
  }

  /** The reproduce, open-pr and address-review skills, from R2 (seeded by `npm run seed:r2`). */
  override getSkills() {
    return [skillSource(this.env.SKILLS_BUCKET)];
  }

  override getTools(): ToolSet {
    return this.#run.tools.tools();
  }

  /** Store the run context and submit the turn. Idempotent per triggering comment. */
  async startRun(input: StartRunInput): Promise<StartRunResult> {
    return this.#run.lifecycle.start(input);
  }

  /** Continue the latest run in this session with a fresh token (steps/run-lifecycle.ts). */
  async continueRun(input: ContinueRunInput): Promise<{ submissionId: string }> {
    return this.#run.lifecycle.continue(input);
  }

  /** The transcript, as plain data for RPC callers (the dev routes, tests). */
  async transcript(): Promise<TranscriptMessage[]> {
    return (await this.getMessages()) as TranscriptMessage[];
  }

  async submissionStatus(submissionId: string): Promise<SubmissionStatus | null> {
    return this.#run.lifecycle.status(submissionId);
  }

  /** Cancel queued and running turns, clear the transcript and forget the run context. */
  async resetRun(): Promise<Omit<ResetSessionResult, "session">> {
    return this.#run.lifecycle.reset();
  }

  /** Stop this issue's work: every queued and running turn ends `aborted`; a `stop` comment's fresh token becomes the run's. */
  async cancelRun(reason = "cancelled", installationToken?: string, installationTokenExpiresAt?: string, bot?: BotIdentity): Promise<CancelRunResult> {
    return this.#run.lifecycle.cancel(reason, installationToken, installationTokenExpiresAt, bot);
  }

  override async beforeTurn(ctx: TurnContext) {
    return this.#run.hooks.beforeTurn(ctx);
  }

  override async beforeStep(ctx: PrepareStepContext) {
    return this.#run.hooks.beforeStep(ctx);
  }

  override async beforeToolCall(ctx: ToolCallContext) {
    await this.#run.hooks.beforeToolCall(ctx);
  }

  override async afterToolCall(ctx: ToolCallResultContext) {
    await this.#run.hooks.afterToolCall(ctx);
  }

  override async onStepFinish(ctx: StepContext) {
    await this.#run.hooks.stepFinished(ctx);
  }

  override async onChatRecovery(ctx: ChatRecoveryContext): Promise<ChatRecoveryOptions> {
    await this.#run.hooks.recovering(ctx);
    return {};
  }

  override onChatError(error: unknown, ctx?: { stage?: string; requestId?: string }) {
    this.#run.log("turn:error", { requestId: ctx?.requestId, stage: ctx?.stage, error: error instanceof Error ? error.message : String(error) });
    return error;
  }

  protected override async onSubmissionStatus(submission: Parameters<Think["onSubmissionStatus"]>[0]) {
    await this.#run.lifecycle.changed(submission);
  }

  /** Scheduled callback: deliver what the outbox still owes the issue. */
  async deliverNotices(): Promise<void> {
    await this.#run.reports.deliverNotices();
  }

  /** Scheduled callback: send again what the command center has not acknowledged. */
  async deliverCenterEvents(): Promise<void> {
    await this.#run.reports.sweepEvents();
  }

  /** The command center asks about a run it has heard nothing of for the stale window (docs/command-center.md). */
  async reconcileRun(submissionId: string): Promise<QuietTruth> {
    return this.#run.lifecycle.reconcile(String(submissionId));
  }

  /** Lifecycle events not yet acknowledged by the command center (tests, local dev). */
  async pendingCenterEvents(): Promise<number> {
    return this.#run.reports.pendingEvents();
  }

  /** Every message this session has queued for its issue, delivered or not (tests, local dev). */
  async notices() {
    return this.#run.reports.notices();
  }

  /** A reporter session's last finding, for a maintainer's run on the issue (as untrusted data); null elsewhere. */
  async reporterFinding(): Promise<ReporterFinding | null> {
    return await this.#run.trust.finding();
  }

  /** What the egress gateway may do for this request of the issue's sandbox (src/egress/sandbox-egress.ts asks before each one). */
  async egressGrant(request: EgressRequest): Promise<EgressAnswer> {
    return await this.#run.egress.grant(request);
  }

  /** The gateway refused one of the sandbox's requests: counted for the run, shown on its thread and in its closing comment. */
  async egressRefused(refusal: EgressRefusal): Promise<void> {
    await this.#run.egress.refused(refusal);
  }

  async #workspaceAgent(): Promise<WorkspaceAgentStub> {
    return (await getAgentByName(this.env.WorkspaceAgent, this.name)) as unknown as WorkspaceAgentStub;
  }
}

/** The WorkspaceAgent methods ThinkAgent calls (the generated stub type is too deep to expand). */
type WorkspaceAgentStub = Pick<WorkspaceAgent, "exec" | "beginTurn" | "endTurn" | "__getWorkspaceStub">;
