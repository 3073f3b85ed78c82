/**
 * ThinkAgent: one Durable Object per (repo, issue), named by `sessionName`.
 *
 * It owns the issue's transcript and durable turns: `startRun` stores the run
 * context and submits the turn with Think's `submitMessages` (idempotent per
 * triggering comment, FIFO behind a running turn), and Think runs it from the
 * alarm inside its chat-recovery fiber, so a turn survives eviction. The hooks
 * here only log and shape the turn; workspace ownership and containers come
 * from elsewhere.
 */
import { Think, type ChatRecoveryContext, type ChatRecoveryOptions, type TurnContext } from "@cloudflare/think";
import type { ToolCallContext, ToolCallResultContext } from "@cloudflare/think";
import { getWorkspace } from "@cloudflare/computer";
import { withLocalMisses } from "./run/quiet-workspace";
import { getAgentByName, type Connection } from "agents";
import type { LanguageModel, ToolSet } from "ai";
import { runMetadata } from "./model";
import { RunModels } from "./model/run-models";
import type { ModelEnv } from "./model/config";
import { stepProviderOptions } from "./model/reasoning-effort";
import { RUN_CONTRACT } from "./run/run-contract";
import { runMessage } from "./run/run-message";
import { githubHost, parseGitHubApiUrl } from "./shared/github-urls";
import { skillSource } from "./run/skills";
import { ReproPublisher } from "./repro/publisher";
import { reproIssue } from "./repro/publication-issue";
import { ThreadReproductions } from "./run/thread-reproduction";
import { createLogger, type Logger } from "./run/log";
import { SessionTrust } from "./run/session-trust";
import { reporterRunCapUsd } from "./command-center/reporter-budget";
import type { ReporterFinding } from "./run/trust-facts";
import { RunContextStore, runContextForTurn, runContextFrom, type RunContext } from "./run/run-context";
import { RunCredentials } from "./egress/run-credentials";
import { EgressDesk } from "./egress/egress-desk";
import { RunPullRequests } from "./steps/run-pull-requests";
import { RunClosing } from "./steps/run-closing";
import { createRunTools } from "./tools/run-tools";
import type { EgressRefusal } from "./egress/gateway";
import type { EgressAnswer, EgressRequest } from "./egress/sandbox-egress";
import { revokeInstallationToken } from "./github/token-revocation";
import { DispatchOnce } from "./run/dispatch-once";
import { ActiveTurn } from "./steps/active-turn";
import { assertBotFor, requireBot, resolveBot } from "./run/bot-identity";
import { isolateSecrets } from "./run/console-guard";
import { confineTools } from "./tools/confine";
import { isViewerMessage, refusalFrame } from "./run/viewer-protocol";
import { continuationMetadata, dispatchMetadata, idempotencyKeyFor, TERMINAL_STATUSES, toSubmissionStatus, type SubmissionRecord } from "./run/submission";
import { CommandReplay } from "./run/command-replay";
import type { TurnRef, WorkspaceAgent } from "./workspace-agent";
import { commandCenter, type CommandCenter } from "./command-center";
import type { PrepareStepContext, StepContext } from "@cloudflare/think";
import { RunReports } from "./report/run-reports";
import { RunProgress } from "./report/run-progress";
import { PROGRESS_EDIT_INTERVAL_MS } from "./report/progress";
import type { RunRef } from "./report/notices";
import { RunLedger } from "./run/run-ledger";
import { OpenRuns } from "./run/open-runs";
import { parseCostBudget, parseMaxSteps, parseTokenBudget } from "./run/budget";
import { SCRIPTED_PROVIDER } from "./model/scripted";
import { RunBudgets } from "./run/run-budgets";
import { TurnWatchdog } from "./run/watchdog";
import { parseStaleRunMs } from "./command-center/staleness";
import { quietTruthOf, type QuietTruth } from "./command-center/reconcile";
import { mintInstallationToken } from "./github/token-broker";
import { createRepoReader } from "./github/repo-reader";
import { createAttachmentReader } from "./github/attachment-fetch";
import { TurnWorkspace } from "./steps/turn-workspace";
import { withWorkspaceBlock } from "./steps/workspace-block";
import { RunAttachments } from "./steps/run-attachments";
import { keptPreparation } from "./steps/prepare";
import { runRefFor } from "./report/run-ref";
import type { BotIdentity, DispatchInput, ResetSessionResult, SubmissionStatus, TranscriptMessage } from "./shared/dispatch";
import type { GitHubContinuation } from "./shared/command-center";

/** What Think records as the error of a run whose recovery was exhausted. */
export const RECOVERY_EXHAUSTED_MESSAGE =
  "agent-think was interrupted and could not recover this run. Continue it from the dashboard.";

export type StartRunInput = DispatchInput & { session: string };
/**
 * `operator`: who continued it from the dashboard (an Access e-mail, or "local operator"); the issue is told only that it was.
 * `fromGitHub`: instead, the maintainer whose `continue` comment asked (the command center has it from the claim).
 */
export type ContinueRunInput = Pick<DispatchInput, "installationToken" | "installationTokenExpiresAt" | "bot"> & {
  operator?: string;
  fromGitHub?: GitHubContinuation;
};
export type StartRunResult = { submissionId: string; accepted: boolean };
export type CancelRunResult = { cancelled: number; submissionIds: string[] };

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
    onExhausted: (ctx: { incidentId: string; reason: string }) =>
      this.#log("recovery:exhausted", { incidentId: ctx.incidentId, reason: ctx.reason })
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

  readonly #runs = new RunContextStore(this.ctx.storage);
  /** The run's tokens, on the gateway's side of the sandbox: renewed, granted per request, revoked (egress/run-credentials.ts). */
  readonly #credentials = new RunCredentials({
    runs: this.#runs,
    mint: (repo, access) => mintInstallationToken(this.env, repo, access),
    reporter: () => this.#trust.reporter,
    revoke: (token) => revokeInstallationToken(this.githubApiUrl(), token),
    secrets: isolateSecrets,
    settings: () => ({ egress: this.env.EGRESS, egressAllow: this.env.EGRESS_ALLOW }),
    waitUntil: (promise) => this.ctx.waitUntil(promise),
    now: () => Date.now(),
    log: (event, fields) => this.#log(event, fields)
  });
  /** The run's write token: the Worker's own posts, and the gateway's allowed pushes. */
  get #token() {
    return this.#credentials.token;
  }
  readonly #ledger = new RunLedger(this.ctx.storage);
  /** The session's tier and what it decides: reporter sessions' limits, and what crosses between tiers (run/session-trust.ts). */
  readonly #trust = new SessionTrust({
    session: () => this.#sessionName(),
    storage: this.ctx.storage,
    threadKnown: async (session) => (await (await this.commandCenter()).threadDetail(session)) !== null,
    finding: async (session) => ((await getAgentByName(this.issueAgents(), session)) as unknown as Pick<ThinkAgent, "reporterFinding">).reporterFinding()
  });
  /** The thread's last reproduction, for a later fix's proof (run/thread-reproduction.ts). */
  readonly #reproductions = new ThreadReproductions(this.ctx.storage);
  /** What steps cost and when a budget stops the loop (run/run-budgets.ts). */
  readonly #budgets = new RunBudgets({
    ledger: this.#ledger,
    // A reporter session's runs are held to their own cap too (REPORTER_RUN_COST_BUDGET), reserved at dispatch.
    limits: () => ({ tokens: this.tokenBudget, cost: this.#trust.costBudget(this.costBudget, this.reporterCostBudget), prices: this.modelPrices }),
    scriptedProvider: SCRIPTED_PROVIDER,
    log: (event, fields) => this.#log(event, fields)
  });
  /** Runs whose ending is not handled yet, so a restart cannot cut one off (run/open-runs.ts). */
  readonly #openRuns = new OpenRuns(this.ctx.storage.kv);
  readonly #repros = new ReproPublisher({
    storage: this.ctx.storage,
    bucket: this.env.REPROS,
    publicBaseUrl: this.env.PUBLIC_BASE_URL,
    fs: () => this.workspace.fs,
    session: () => this.name
  });
  readonly #watchdog = new TurnWatchdog({
    windowMs: () => this.staleRunMs,
    isCurrent: async (id) => (await this.#turn())?.submissionId === id,
    lastActivity: (id) => this.#ledger.lastActivity(id),
    onQuiet: (id, quietForMs) => this.#postStaleNotice(id, quietForMs),
    onError: (id, error) => this.#log("watchdog:failed", { submissionId: id, error: errorMessage(error) })
  });
  /** What runs tell the command center and the issue (src/report/run-reports.ts). */
  readonly #reports = new RunReports({
    storage: this.ctx.storage,
    session: () => this.name,
    commandCenter: () => this.commandCenter(),
    github: {
      apiUrl: () => this.githubApiUrl(),
      // Renewed before it expires (a closing comment can come after minute 60), and after a 401;
      // a reporter session posts with an issues-only token of its own, never a write token.
      token: () => this.#credentials.posting(),
      refreshToken: (repo) => this.#credentials.refreshPosting(repo),
      // Only our App's comments count when looking for a marker: the run's bot's.
      botLogin: async () => requireBot((await this.#runs.get())?.bot, this.env).login
    },
    redact: (text) => this.#token.redact(text),
    redactDeep: (value) => this.#token.redactDeep(value),
    schedules: this,
    waitUntil: (promise) => this.ctx.waitUntil(promise),
    log: (event, fields) => this.#log(event, fields),
    // The run's token goes once its last message is out, unless a queued turn is to use it.
    closingSettled: () => this.ctx.waitUntil(this.#egress.runSettled())
  });
  /** The issue's live progress comment: plan, current step, cost (report/run-progress.ts). */
  readonly #progress = new RunProgress({
    storage: this.ctx.storage.kv,
    reports: this.#reports,
    runRef: (submissionId) => this.#runRef(submissionId),
    usage: (submissionId) => this.#ledger.usage(submissionId),
    editIntervalMs: () => this.progressEditIntervalMs,
    now: () => Date.now(),
    log: (event, fields) => this.#log(event, fields)
  });
  /**
   * The turn's hands on its workspace (steps/turn-workspace.ts): the repository
   * prepared before the model's first step, bash commands run at most once,
   * and the sandbox's network policy.
   */
  readonly #workspaceTurn = new TurnWorkspace({
    storage: this.ctx.storage.kv,
    run: () => this.#turnRun(),
    turn: () => this.#turn(),
    workspace: () => this.#workspaceAgent(),
    redact: (text) => this.#credentials.redact(text),
    commands: new CommandReplay({
      storage: this.ctx.storage.kv,
      recoveries: (submissionId) => this.#reports.recoveryCount(submissionId),
      log: (event, fields) => this.#log(event, fields)
    }),
    reader: async () => {
      const apiUrl = this.githubApiUrl();
      if (!apiUrl) return null;
      // The issue's attachments are fetched with the read-only token, never the run's (github/attachment-fetch.ts).
      const run = await this.#runs.get();
      const attachments = run ? { repo: run.repo, readToken: () => this.#credentials.readOnly() } : undefined;
      return createRepoReader({ baseUrl: apiUrl, token: await this.#token.fresh(), ...(attachments ? { attachments } : {}) });
    },
    botLogin: (run) => this.#botLogin(run),
    github: () => githubHost(this.githubApiUrl()),
    onStep: async (submissionId, step) => {
      await this.#ledger.touch(submissionId, Date.now());
      this.#reports.toolCalled(submissionId, { tool: `prepare: ${step.name}`, ok: step.ok, toolCallId: `prepare-${submissionId}-${step.name}` }, Date.now());
    },
    // A model the operator does not allow ends the run here, before the clone and before any progress comment.
    onSettings: async (submissionId, settings) => {
      this.#models.checkSettings(settings);
      await this.#progress.started(submissionId, settings);
    },
    recordSetupFailure: (submissionId, failure) => this.#ledger.recordSetupFailure(submissionId, failure),
    // A reporter's own words, or what the issue's reporter session found: untrusted data across tiers (run/trust-facts.ts).
    trustFacts: (run) => this.#trust.trustFacts(run),
    log: (event, fields) => this.#log(event, fields)
  });
  /** How an ended run is told: its ending worked out, reported and forgotten (steps/run-closing.ts). */
  readonly #closing = new RunClosing({
    ledger: this.#ledger,
    reports: this.#reports,
    reproductions: this.#reproductions,
    runRef: (submissionId, metadata) => this.#runRef(submissionId, metadata),
    transcript: async () => (await this.getMessages()) as TranscriptMessage[],
    redact: (text) => this.#token.redact(text),
    interruptedMessage: () => this.chatRecovery.terminalMessage,
    maxSteps: () => this.maxSteps,
    forgetPrepared: (submissionId) => {
      this.#workspaceTurn.forget(submissionId);
      this.#progress.forget(submissionId);
    }
  });
  /** The gateway's counterpart: grants, refusals, and when the run's token goes (egress/egress-desk.ts). */
  readonly #egress = new EgressDesk({
    credentials: this.#credentials,
    turn: () => this.#turn(),
    policy: (submissionId) => this.#workspaceTurn.egressPolicy(submissionId),
    githubApiUrl: () => this.githubApiUrl(),
    recordBlocked: (submissionId, host, method) => this.#ledger.recordBlocked(submissionId, host, method),
    reportBlocked: (submissionId, blocked) => this.#reports.blocked(submissionId, blocked, Date.now()),
    othersWaiting: async () => (await this.listSubmissions({ status: ["pending", "running"] })).length > 0,
    countGitHubRequest: (submissionId) => this.#ledger.countGitHubRequest(submissionId),
    githubRequestLimit: () => this.#trust.githubRequestLimit(),
    log: (event, fields) => this.#log(event, fields)
  });
  /** `fetch_attachment`: an attachment the run's block lists, fetched by the Worker into the workspace (steps/run-attachments.ts). */
  readonly #attachments = new RunAttachments({
    turn: () => this.#turn(),
    prepared: (submissionId) => keptPreparation(this.ctx.storage.kv, submissionId),
    reader: async () => {
      const [apiUrl, run] = [this.githubApiUrl(), await this.#runs.get()];
      return apiUrl && run ? createAttachmentReader({ apiUrl, repo: run.repo, readToken: () => this.#credentials.readOnly() }) : null;
    },
    fs: () => this.workspace.fs
  });
  /** `open_pull_request`, held to the run's policy (steps/run-pull-requests.ts). */
  readonly #pullRequests = new RunPullRequests({
    turn: () => this.#turn(),
    // The turn's own context: its tier is its submission's (and a reporter session's is always the reporter's).
    run: () => this.#turnRun(),
    tier: async () => (await this.#turnRun())?.tier,
    target: (submissionId, run) => this.#workspaceTurn.pullRequestTarget(submissionId, run),
    apiUrl: () => this.githubApiUrl(),
    token: () => this.#token.fresh(),
    links: () => {
      const github = parseGitHubApiUrl(this.githubApiUrl());
      return { publicBaseUrl: this.env.PUBLIC_BASE_URL, githubWebUrl: github.ok ? github.github.web : "" };
    },
    redact: (text) => this.#token.redact(text),
    // On the container, where the clone is (a deploy without one answers that it has none).
    exec: (command, timeoutMs) => this.#workspaceTurn.own(command, timeoutMs, "container"),
    reproductions: this.#reproductions,
    ledger: this.#ledger,
    log: (event, fields) => this.#log(event, fields)
  });
  /** The deployment's model, or the one the run's repository picked (model/run-models.ts). */
  readonly #models = new RunModels({
    env: () => this.modelEnv(),
    // Metadata per request: a model outlives the turn it was made in.
    hooks: { log: (event, fields) => this.#log(event, fields), metadata: async () => runMetadata(this.name, await this.#runs.get(), await this.#turn()) },
    turn: () => this.#turn(),
    settings: (submissionId) => this.#workspaceTurn.settings(submissionId),
    recordSetupFailure: (submissionId, failure) => this.#ledger.recordSetupFailure(submissionId, failure)
  });
  /** Duplicate dispatches of a comment answered before any work (run/dispatch-once.ts). */
  readonly #dispatches = new DispatchOnce(this.ctx.storage);
  readonly #activeTurn = new ActiveTurn({
    storage: this.ctx.storage,
    workspace: () => this.#workspaceAgent(),
    log: (event, fields) => this.#log(event, fields)
  });
  #log: Logger = (event, fields) => createLogger({ session: this.#sessionName() }, () => this.#token.secrets())(event, fields);

  #sessionName(): string | undefined {
    try {
      return this.name;
    } catch {
      return undefined; // not yet named: only during construction
    }
  }

  override async onStart(): Promise<void> {
    // Think installs its chat-protocol handler as this.onMessage while it
    // starts, just before this hook; the gate goes in front of it, so a socket
    // can watch a run but never start, clear or cancel one.
    const handle = this.onMessage.bind(this);
    this.onMessage = async (connection, message) => {
      if (isViewerMessage(message)) return handle(connection, message);
      this.#log("socket:refused", { connection: connection.id });
      connection.send(refusalFrame(message));
    };
    // Whatever wakes this object (a turn, a recovery, a scheduled delivery)
    // redacts with the run's token from the start.
    await this.#token.load();
    // What a killed process still owed the command center goes out now,
    // and a run whose ending it cut off is finished.
    this.ctx.waitUntil(this.#reports.flushEvents());
    this.ctx.waitUntil(this.#finishCutOffRuns());
  }

  /** Open runs (run/open-runs.ts) whose submission Think already ended: their ending was cut off by a restart. */
  async #finishCutOffRuns(): Promise<void> {
    for (const submissionId of this.#openRuns.list()) {
      try {
        const submission = await this.inspectSubmission(submissionId);
        if (!submission) this.#openRuns.closed(submissionId);
        else if (TERMINAL_STATUSES.has(submission.status)) {
          this.#log("turn:ending-resumed", { submissionId, status: submission.status });
          await this.#finishRun(submission);
        }
      } catch (error) {
        this.#log("turn:ending-resume-failed", { submissionId, error: errorMessage(error) });
      }
    }
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
    return this.#models.default();
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
    return createRunTools({
      containerAvailable: this.env.CONTAINERS_ENABLED === "1",
      bash: (input) => this.#workspaceTurn.bash(input),
      publish: async (input) => {
        const run = await this.#runs.get();
        const github = parseGitHubApiUrl(this.githubApiUrl());
        const result = await this.#repros.publish(input, {
          ...(run ? { issue: reproIssue(run, github.ok ? github.github.web : undefined) } : {}),
          repoVisibility: run?.repoVisibility,
          secrets: this.#token.secrets(),
          ...(this.#trust.reporter ? { tier: "reporter" as const } : {})
        });
        if (result.published) await this.#published(result.url);
        return result;
      },
      openPullRequest: (input) => this.#pullRequests.open(input),
      fetchAttachment: (input) => this.#attachments.fetch(input),
      recordPlan: async (steps) => {
        const turn = await this.#turn();
        if (turn) await this.#progress.plan(turn.submissionId, steps);
      },
      recordResult: async (result) => {
        const turn = await this.#turn();
        // The result becomes the closing comment and an event: nothing in it may hold a token.
        if (turn) await this.#ledger.recordResult(turn.submissionId, this.#token.redactDeep(result));
        return turn !== null;
      }
    });
  }

  /** Store the run context and submit the turn. Idempotent per triggering comment. */
  async startRun(input: StartRunInput): Promise<StartRunResult> {
    return this.#dispatches.run(input.commentId, async () => {
      const now = Date.now();
      // Before anything is stored: a GITHUB_API_URL that names no GitHub, or a token with no bot to act as, is an error saying so.
      const github = githubHost(this.githubApiUrl());
      assertBotFor(input.installationToken, input.bot, this.env);
      // A reporter-tier run only in its issue's reporter session, and only there (run/session-trust.ts).
      this.#trust.assertFits(input.tier);
      this.#token.adopt(input.installationToken);
      const run = runContextFrom(input, now);
      await this.#runs.put(run);
      // The envelope says whether a pull request is this App's: with the bot the run acts as.
      const message = runMessage(this.#trust.envelope(run), input.session, now, undefined, github, this.#botLogin(run));
      const submission = await this.submitMessages([message], {
        idempotencyKey: idempotencyKeyFor(input.commentId),
        // Who asked is kept with the submission: a later dispatch replaces the run context before this run's closing comment.
        metadata: dispatchMetadata(input)
      });
      this.#log("submitted", {
        repo: input.repo,
        issue: input.issueNumber,
        commentId: input.commentId,
        submissionId: submission.submissionId,
        accepted: submission.accepted
      });
      // A duplicate comment is the same run: nothing new to report.
      if (submission.accepted) this.#reports.dispatched(run, submission.submissionId, now);
      return { submissionId: submission.submissionId, accepted: submission.accepted };
    });
  }

  /**
   * Continue the latest run in this session with a fresh token: a new turn
   * whose envelope repeats the run's instruction and says it continues the
   * previous submission. The transcript so far is the model's context.
   */
  async continueRun(input: ContinueRunInput): Promise<{ submissionId: string }> {
    const now = Date.now();
    const github = githubHost(this.githubApiUrl());
    // Before anything is stored: the broker's bot, else the run's, else configuration, or an error saying what is missing.
    assertBotFor(input.installationToken, input.bot ?? (await this.#runs.get())?.bot, this.env);
    const run = await this.#token.replace(input.installationToken, input.installationTokenExpiresAt, input.bot);
    if (!run) throw new Error("this session has no run to continue");
    const last = (await this.listSubmissions()).sort((a, b) => b.createdAt - a.createdAt)[0];
    const message = runMessage(this.#trust.envelope(run), this.name, now, last?.submissionId ?? "unknown", github, this.#botLogin(run));
    const operator = typeof input.operator === "string" && input.operator.trim() ? input.operator.trim().slice(0, 320) : undefined;
    const submission = await this.submitMessages([message], { metadata: continuationMetadata(run, { operator, fromGitHub: input.fromGitHub }) });
    this.#log("continued", { submissionId: submission.submissionId, continuationOf: last?.submissionId });
    this.#reports.dispatched(run, submission.submissionId, now, operator);
    return { submissionId: submission.submissionId };
  }

  /** The transcript, as plain data for RPC callers (the dev routes, tests). */
  async transcript(): Promise<TranscriptMessage[]> {
    return (await this.getMessages()) as TranscriptMessage[];
  }

  async submissionStatus(submissionId: string): Promise<SubmissionStatus | null> {
    const record = await this.inspectSubmission(submissionId);
    if (!record) return null;
    const status = toSubmissionStatus(record as SubmissionRecord);
    return status.error === undefined ? status : { ...status, error: this.#token.redact(status.error) };
  }

  /** Cancel queued and running turns, clear the transcript and forget the run context. */
  async resetRun(): Promise<Omit<ResetSessionResult, "session">> {
    const { cancelled } = await this.#cancelActive("session reset");
    // The cancelled runs' notices go out while the run context still holds a token.
    await this.#reports.deliverNotices();
    await this.clearMessages();
    await this.#runs.clear();
    this.#credentials.clear();
    this.#log("reset", { cancelled });
    return { cancelled };
  }

  /**
   * Stop this issue's work: cancel the running turn and any queued behind
   * it. Each ends `aborted`, which releases its container, is reported to
   * the command center and says so on the issue; the transcript keeps what
   * was done. A `stop` comment's fresh token (and bot), when given, becomes
   * the run's, so those notices go out with it.
   */
  async cancelRun(reason = "cancelled", installationToken?: string, installationTokenExpiresAt?: string, bot?: BotIdentity): Promise<CancelRunResult> {
    if (installationToken) await this.#token.replace(installationToken, installationTokenExpiresAt, bot);
    const result = await this.#cancelActive(reason);
    this.#log("cancelled", { cancelled: result.cancelled, submissionIds: result.submissionIds });
    return result;
  }

  async #cancelActive(reason: string): Promise<CancelRunResult> {
    const active = await this.listSubmissions({ status: ["pending", "running"] });
    const submissionIds: string[] = [];
    for (const submission of active) {
      // Read back when the submission ends, for its closing message.
      await this.#ledger.recordCancel(submission.submissionId, reason);
      const result = await this.cancelSubmission(submission.submissionId, reason);
      if (result.outcome === "cancelled") submissionIds.push(submission.submissionId);
    }
    return { cancelled: submissionIds.length, submissionIds };
  }

  override async beforeTurn(ctx: TurnContext) {
    await this.#token.load();
    this.#log("turn:start", { requestId: ctx.requestId, trigger: ctx.trigger, continuation: ctx.continuation });
    const turn = await this.#turn();
    if (turn) this.#watchdog.arm(turn.submissionId);
    // A recovered turn is running again.
    if (turn) this.#reports.resumedIfRecovering(turn.submissionId, Date.now());
    // Before the model's first step; a failed setup ends the turn here (steps/prepare.ts).
    const prepared = turn ? await this.#workspaceTurn.prepare(turn.submissionId, ctx.abortSignal) : null;
    const stops = turn ? await this.#budgets.stops(turn.submissionId) : [];
    return {
      ...(prepared ? { messages: withWorkspaceBlock(ctx.messages, prepared) } : {}),
      maxSteps: this.maxSteps,
      ...(stops.length > 0 ? { stopWhen: stops } : {}),
      // Every tool result is redacted before the model, the transcript or a socket sees it.
      tools: confineTools(ctx.tools, (value) => this.#token.redactDeep(value)),
      // bash replaces the workspace's generic exec tool.
      activeTools: Object.keys(ctx.tools).filter((name) => name !== "exec")
    };
  }

  /**
   * Before every model call: renew the run's token when it is about to expire (the gateway and the Worker's posts use it),
   * and send the step's provider options, its reasoning effort set by the skill the run activated (src/model/reasoning-effort.ts),
   * to the model the repository picked, or the deployment's (a model not allowed ends the run here: src/model/run-models.ts).
   */
  override async beforeStep(ctx: PrepareStepContext) {
    await this.#token.fresh();
    return { model: await this.#models.forStep(), providerOptions: stepProviderOptions(this.modelEnv(), ctx) };
  }

  /** A tool call begins: the progress comment says what the run is doing now. */
  override async beforeToolCall(ctx: ToolCallContext) {
    const turn = await this.#turn();
    if (turn) await this.#progress.activity(turn.submissionId, ctx.toolName, ctx.input);
  }

  override async afterToolCall(ctx: ToolCallResultContext) {
    const turn = await this.#turn();
    if (turn) await this.#ledger.recordToolCall(turn.submissionId, Date.now());
    const call = { tool: ctx.toolName, ok: ctx.success, toolCallId: ctx.toolCallId };
    this.#reports.toolCalled(turn?.submissionId ?? ctx.requestId ?? "unknown", call, Date.now());
    this.#log("tool", {
      requestId: ctx.requestId,
      tool: ctx.toolName,
      toolCallId: ctx.toolCallId,
      ok: ctx.success,
      durationMs: Math.round(ctx.durationMs),
      ...(ctx.success ? {} : { error: errorMessage(ctx.error) })
    });
  }

  override async onStepFinish(ctx: StepContext) {
    const turn = await this.#turn();
    if (!turn) return;
    await this.#budgets.stepFinished(turn.submissionId, ctx);
  }

  /** Think took an interrupted turn over: the thread shows `recovering` until the turn runs again. */
  override async onChatRecovery(ctx: ChatRecoveryContext): Promise<ChatRecoveryOptions> {
    this.#log("recovery", { incidentId: ctx.incidentId, attempt: ctx.attempt, kind: ctx.recoveryKind });
    this.#reports.recovering((await this.#turn())?.submissionId ?? ctx.recoveryRootRequestId, Date.now());
    return {};
  }

  override onChatError(error: unknown, ctx?: { stage?: string; requestId?: string }) {
    this.#log("turn:error", { requestId: ctx?.requestId, stage: ctx?.stage, error: errorMessage(error) });
    return error;
  }

  protected override async onSubmissionStatus(submission: Parameters<Think["onSubmissionStatus"]>[0]) {
    const turn: TurnRef = { session: this.name, submissionId: submission.submissionId };
    if (submission.status === "running") {
      this.#openRuns.opened(submission.submissionId, Date.now());
      await this.#activeTurn.begin(turn);
      await this.#turnStarted(submission.submissionId, submission.startedAt ?? Date.now(), submission.metadata);
      return;
    }
    if (TERMINAL_STATUSES.has(submission.status)) await this.#finishRun(submission);
  }

  /**
   * A submission ended: release what its turn held, report how it ended,
   * then close it. Also run on start for a run whose ending a restart cut
   * off; every step is idempotent (the closing comment and the event by id).
   */
  async #finishRun(submission: Parameters<Think["onSubmissionStatus"]>[0]): Promise<void> {
    const turn: TurnRef = { session: this.name, submissionId: submission.submissionId };
    await this.#endTurn(turn, submission.status);
    const ending = await this.#closing.close(submission);
    // What a maintainer's run on the issue may learn of it (as untrusted data): only a reporter session keeps it.
    await this.#trust.ended(submission.submissionId, ending, Date.now());
    const event = submission.status === "completed" ? "turn:done" : `turn:${submission.status}`;
    this.#log(event, {
      submissionId: submission.submissionId,
      ending: ending.kind,
      ...(submission.error ? { error: submission.error } : {}),
      durationMs: submission.completedAt && submission.startedAt ? submission.completedAt - submission.startedAt : undefined
    });
    this.#openRuns.closed(submission.submissionId);
  }

  /** A turn began: the command center hears it, and its triggering comment gets 🚀, once. */
  async #turnStarted(submissionId: string, at: number, metadata: Record<string, unknown> | undefined): Promise<void> {
    await this.#ledger.touch(submissionId, Date.now());
    const run = await this.#runRef(submissionId);
    const [commentId, reviewCommentId] = [metadata?.commentId, metadata?.reviewCommentId];
    const rocket = !run ? null : typeof commentId === "number" ? { run, commentId } : typeof reviewCommentId === "number" ? { run, reviewCommentId } : null;
    await this.#reports.turnStarted(submissionId, at, rocket);
  }

  /** A page was published: the closing comment links it, and the thread page shows it. */
  async #published(url: string): Promise<void> {
    const turn = await this.#turn();
    if (!turn) return;
    await this.#ledger.recordReproduction(turn.submissionId, url);
    await this.#progress.published(turn.submissionId, url);
    this.#reports.published(turn.submissionId, url, Date.now());
  }

  /** The watchdog found the turn quiet for the stale window: one stale notice on its issue. */
  async #postStaleNotice(submissionId: string, quietForMs: number): Promise<void> {
    this.#log("watchdog:stale", { submissionId, quietForMs });
    const run = await this.#runRef(submissionId);
    if (run) await this.#reports.stale(run, quietForMs);
  }

  /** Scheduled callback: deliver what the outbox still owes the issue. */
  async deliverNotices(): Promise<void> {
    await this.#reports.deliverNotices();
  }

  /** Scheduled callback: send again what the command center has not acknowledged. */
  async deliverCenterEvents(): Promise<void> {
    await this.#reports.sweepEvents();
  }

  /**
   * The command center asks about a run it has heard nothing of for the
   * stale window (reconciliation, docs/command-center.md): first everything
   * this agent still owes it, then how the submission stands.
   */
  async reconcileRun(submissionId: string): Promise<QuietTruth> {
    await this.#reports.flushEvents();
    return quietTruthOf(await this.submissionStatus(String(submissionId)), Date.now());
  }

  /** Lifecycle events not yet acknowledged by the command center (tests, local dev). */
  async pendingCenterEvents(): Promise<number> {
    return this.#reports.pendingEvents();
  }

  /** Every message this session has queued for its issue, delivered or not (tests, local dev). */
  async notices() {
    return this.#reports.notices();
  }

  /** The run context as the running turn is prepared with: its own submission's tier and CI failures (run/run-context.ts). */
  async #turnRun(): Promise<RunContext | undefined> {
    const run = await this.#runs.get();
    const turn = await this.#turn();
    const record = run && turn ? await this.inspectSubmission(turn.submissionId) : null;
    // Every run of a reporter session is a reporter's, whatever a record says.
    return this.#trust.turn(run && record ? runContextForTurn(run, record.metadata) : run);
  }

  /** A reporter session's last finding, for a maintainer's run on the issue (as untrusted data); null elsewhere. */
  async reporterFinding(): Promise<ReporterFinding | null> {
    return await this.#trust.finding();
  }

  /** Where a run's messages go; with the submission's metadata, also who asked and whether it was continued (report/run-ref.ts). */
  async #runRef(submissionId: string, metadata?: Record<string, unknown>): Promise<RunRef | null> {
    const run = await this.#runs.get();
    if (!run) return null;
    const botLogin = this.#botLogin(run);
    return runRefFor({ run, submissionId, session: this.name, publicBaseUrl: this.env.PUBLIC_BASE_URL, githubApiUrl: this.githubApiUrl(), ...(botLogin ? { botLogin } : {}), metadata });
  }

  /** The login of the bot the run acts as; undefined when there is none to act as (then no pull request counts as the App's). */
  #botLogin(run: RunContext): string | undefined {
    const resolved = resolveBot(run.bot, this.env);
    return resolved.ok ? resolved.bot.login : undefined;
  }

  async #workspaceAgent(): Promise<WorkspaceAgentStub> {
    return (await getAgentByName(this.env.WorkspaceAgent, this.name)) as unknown as WorkspaceAgentStub;
  }

  /** The submission whose turn is running (steps/active-turn.ts). */
  #turn(): Promise<TurnRef | null> {
    return this.#activeTurn.current();
  }

  /** Release what the turn held. A failure here is logged, never thrown into Think. */
  async #endTurn(turn: TurnRef, outcome: string): Promise<void> {
    this.#watchdog.stop();
    await this.#activeTurn.end(turn, outcome);
    // The sandbox's reads end with the turn: the next turn mints its own read-only token.
    this.#credentials.turnEnded();
  }

  /** What the egress gateway may do for this request of the issue's sandbox (src/egress/sandbox-egress.ts asks before each one). */
  async egressGrant(request: EgressRequest): Promise<EgressAnswer> {
    return await this.#egress.grant(request);
  }

  /** The gateway refused one of the sandbox's requests: counted for the run, shown on its thread and in its closing comment. */
  async egressRefused(refusal: EgressRefusal): Promise<void> {
    await this.#egress.refused(refusal);
  }
}

/** The WorkspaceAgent methods ThinkAgent calls (the generated stub type is too deep to expand). */
type WorkspaceAgentStub = Pick<WorkspaceAgent, "exec" | "beginTurn" | "endTurn" | "__getWorkspaceStub">;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
