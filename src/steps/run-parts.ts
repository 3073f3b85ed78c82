/**
 * Every collaborator of a ThinkAgent, built once from what the agent gives
 * (run-host.ts) and wired to each other: the run's context and credentials,
 * its ledger, budgets and trust, what it reports, its workspace, its tools,
 * the egress desk, the models, and the three the agent calls (`lifecycle`,
 * `hooks`, `tools`). Wiring only: each piece's logic is in its own module.
 */
import { EgressDesk } from "../egress/egress-desk";
import { RunCredentials } from "../egress/run-credentials";
import { createAttachmentReader } from "../github/attachment-fetch";
import { createRepoReader } from "../github/repo-reader";
import { mintInstallationToken } from "../github/token-broker";
import { revokeInstallationToken } from "../github/token-revocation";
import { runMetadata } from "../model";
import { RunModels } from "../model/run-models";
import { SCRIPTED_PROVIDER } from "../model/scripted";
import { ReproPublisher } from "../repro/publisher";
import { RunProgress } from "../report/run-progress";
import { RunReports } from "../report/run-reports";
import { requireBot } from "../run/bot-identity";
import { CommandReplay } from "../run/command-replay";
import { isolateSecrets } from "../run/console-guard";
import { DispatchOnce } from "../run/dispatch-once";
import { createLogger, type Logger } from "../run/log";
import { OpenRuns } from "../run/open-runs";
import { RunBudgets } from "../run/run-budgets";
import { RunContextStore } from "../run/run-context";
import { RunLedger } from "../run/run-ledger";
import { SessionTrust } from "../run/session-trust";
import { ThreadReproductions } from "../run/thread-reproduction";
import { TurnWatchdog } from "../run/watchdog";
import { githubHost, parseGitHubApiUrl } from "../shared/github-urls";
import { ActiveTurn } from "./active-turn";
import { keptPreparation } from "./prepare";
import { RunAttachments } from "./run-attachments";
import { RunClosing } from "./run-closing";
import type { RunHost } from "./run-host";
import { RunLifecycle } from "./run-lifecycle";
import { RunPullRequests } from "./run-pull-requests";
import { RunView } from "./run-view";
import { TurnHooks } from "./turn-hooks";
import { TurnTools } from "./turn-tools";
import { TurnWorkspace } from "./turn-workspace";

export function buildRunParts(host: RunHost) {
  const { storage, env } = host;
  const session = () => host.session() ?? "";
  const runs = new RunContextStore(storage);
  // Every line redacted with the run's token (built below, before anything logs).
  const log: Logger = (event, fields) => createLogger({ session: host.session() }, () => token.secrets())(event, fields);

  /** The session's tier and what it decides: reporter sessions' limits, and what crosses between tiers (run/session-trust.ts). */
  const trust = new SessionTrust({
    session: () => host.session(),
    storage,
    threadKnown: async (other) => (await (await host.commandCenter()).threadDetail(other)) !== null,
    finding: (other) => host.reporterFinding(other)
  });
  /** The run's tokens, on the gateway's side of the sandbox: renewed, granted per request, revoked (egress/run-credentials.ts). */
  const credentials = new RunCredentials({
    runs,
    mint: (repo, access, also) => mintInstallationToken(env, repo, access, also),
    reporter: () => trust.reporter,
    revoke: (retired) => revokeInstallationToken(host.githubApiUrl(), retired),
    secrets: isolateSecrets,
    settings: () => ({ egress: env.EGRESS, egressAllow: env.EGRESS_ALLOW, registrySecrets: env.REGISTRY_SECRETS, registryRepos: env.REGISTRY_REPOS }),
    secret: (name) => {
      const value = (env as unknown as Record<string, unknown>)[name];
      return typeof value === "string" ? value : undefined;
    },
    waitUntil: (promise) => host.waitUntil(promise),
    now: () => Date.now(),
    log
  });
  /** The run's write token: the Worker's own posts, and the gateway's allowed pushes. */
  const token = credentials.token;
  const ledger = new RunLedger(storage);
  const activeTurn = new ActiveTurn({ storage, workspace: () => host.workspaceAgent(), log });
  const view = new RunView({
    runs,
    activeTurn,
    trust,
    inspect: (submissionId) => host.submissions.inspect(submissionId),
    session,
    env,
    githubApiUrl: () => host.githubApiUrl()
  });
  /** The thread's last reproduction, for a later fix's proof (run/thread-reproduction.ts). */
  const reproductions = new ThreadReproductions(storage);
  /** What steps cost and when a budget stops the loop (run/run-budgets.ts). */
  const budgets = new RunBudgets({
    ledger,
    // A reporter session's runs are held to their own cap too (REPORTER_RUN_COST_BUDGET), reserved at dispatch.
    limits: () => {
      const limits = host.limits();
      return { tokens: limits.tokenBudget, cost: trust.costBudget(limits.costBudget, limits.reporterCostBudget), prices: limits.modelPrices };
    },
    scriptedProvider: SCRIPTED_PROVIDER,
    log
  });
  /** Runs whose ending is not handled yet, so a restart cannot cut one off (run/open-runs.ts). */
  const openRuns = new OpenRuns(storage.kv);
  const repros = new ReproPublisher({ storage, bucket: env.REPROS, publicBaseUrl: env.PUBLIC_BASE_URL, fs: () => host.files(), session });
  /** What runs tell the command center and the issue (src/report/run-reports.ts). */
  const reports = new RunReports({
    storage,
    session,
    commandCenter: () => host.commandCenter(),
    github: {
      apiUrl: () => host.githubApiUrl(),
      // Renewed before it expires (a closing comment can come after minute 60), and after a 401;
      // a reporter session posts with an issues-only token of its own, never a write token.
      token: () => credentials.posting(),
      refreshToken: (repo) => credentials.refreshPosting(repo),
      // Only our App's comments count when looking for a marker: the run's bot's.
      botLogin: async () => requireBot((await runs.get())?.bot, env).login
    },
    redact: (text) => token.redact(text),
    redactDeep: (value) => token.redactDeep(value),
    schedules: host.schedules,
    waitUntil: (promise) => host.waitUntil(promise),
    log,
    // The run's token goes once its last message is out, unless a queued turn is to use it.
    closingSettled: () => host.waitUntil(egress.runSettled())
  });
  /** The live progress comment: plan, current step, cost (report/run-progress.ts). */
  const progress = new RunProgress({
    storage: storage.kv,
    reports,
    runRef: (submissionId) => view.runRef(submissionId),
    usage: (submissionId) => ledger.usage(submissionId),
    editIntervalMs: () => host.limits().progressEditIntervalMs,
    now: () => Date.now(),
    log
  });
  /** The turn's hands on its workspace: the repository prepared, bash commands run at most once, the network's policy (steps/turn-workspace.ts). */
  const workspace: TurnWorkspace = new TurnWorkspace({
    storage: storage.kv,
    run: () => view.turnRun(),
    turn: () => view.turn(),
    workspace: () => host.workspaceAgent(),
    redact: (text) => credentials.redact(text),
    commands: new CommandReplay({ storage: storage.kv, recoveries: (submissionId) => reports.recoveryCount(submissionId), log }),
    reader: async () => {
      const apiUrl = host.githubApiUrl();
      if (!apiUrl) return null;
      // The attachments are fetched with the read-only token, never the run's (github/attachment-fetch.ts).
      const run = await runs.get();
      const attachments = run ? { repo: run.repo, readToken: () => credentials.readOnly() } : undefined;
      return createRepoReader({ baseUrl: apiUrl, token: await token.fresh(), ...(attachments ? { attachments } : {}) });
    },
    botLogin: (run) => view.botLogin(run),
    github: () => githubHost(host.githubApiUrl()),
    registries: (repo, entries) => credentials.registryResolution(repo, entries),
    onStep: async (submissionId, step) => {
      await ledger.touch(submissionId, Date.now());
      reports.toolCalled(submissionId, { tool: `prepare: ${step.name}`, ok: step.ok, toolCallId: `prepare-${submissionId}-${step.name}` }, Date.now());
    },
    // A model the operator does not allow ends the run here, before the clone and before any progress comment.
    onSettings: async (submissionId, settings) => {
      models.checkSettings(settings);
      await progress.started(submissionId, settings);
    },
    recordSetupFailure: (submissionId, failure) => ledger.recordSetupFailure(submissionId, failure),
    // A reporter's own words, or what the reporter session found: untrusted data across tiers (run/trust-facts.ts).
    trustFacts: (run) => trust.trustFacts(run),
    log
  });
  /** The deployment's model, or the one the run's repository picked (model/run-models.ts). */
  const models = new RunModels({
    env: () => host.modelEnv(),
    // Metadata per request: a model outlives the turn it was made in.
    hooks: { log, metadata: async () => runMetadata(session(), await runs.get(), await view.turn()) },
    turn: () => view.turn(),
    settings: (submissionId) => workspace.settings(submissionId),
    recordSetupFailure: (submissionId, failure) => ledger.recordSetupFailure(submissionId, failure)
  });
  /** How an ended run is told: its ending worked out, reported and forgotten (steps/run-closing.ts). */
  const closing = new RunClosing({
    ledger,
    reports,
    reproductions,
    runRef: (submissionId, metadata) => view.runRef(submissionId, metadata),
    transcript: () => host.submissions.transcript(),
    redact: (text) => token.redact(text),
    interruptedMessage: () => host.limits().interruptedMessage,
    maxSteps: () => host.limits().maxSteps,
    forgetPrepared: (submissionId) => {
      workspace.forget(submissionId);
      progress.forget(submissionId);
    }
  });
  /** The gateway's counterpart: grants, refusals, and when the run's token goes (egress/egress-desk.ts). */
  const egress: EgressDesk = new EgressDesk({
    credentials,
    turn: () => view.turn(),
    policy: (submissionId) => workspace.egressPolicy(submissionId),
    githubApiUrl: () => host.githubApiUrl(),
    recordBlocked: (submissionId, blockedHost, method) => ledger.recordBlocked(submissionId, blockedHost, method),
    reportBlocked: (submissionId, blocked) => reports.blocked(submissionId, blocked, Date.now()),
    recordPrivateSource: (submissionId, registryHost) => ledger.recordPrivateSource(submissionId, registryHost),
    reportPrivateSources: (submissionId, hosts) => reports.privateSources(submissionId, hosts, Date.now()),
    othersWaiting: async () => (await host.submissions.list({ status: ["pending", "running"] })).length > 0,
    countGitHubRequest: (submissionId) => ledger.countGitHubRequest(submissionId),
    githubRequestLimit: () => trust.githubRequestLimit(),
    log
  });
  /** `fetch_attachment`: an attachment the run's block lists, fetched by the Worker into the workspace (steps/run-attachments.ts). */
  const attachments = new RunAttachments({
    turn: () => view.turn(),
    prepared: (submissionId) => keptPreparation(storage.kv, submissionId),
    reader: async () => {
      const [apiUrl, run] = [host.githubApiUrl(), await runs.get()];
      return apiUrl && run ? createAttachmentReader({ apiUrl, repo: run.repo, readToken: () => credentials.readOnly() }) : null;
    },
    fs: () => host.files()
  });
  /** `open_pull_request`, held to the run's policy (steps/run-pull-requests.ts). */
  const pullRequests = new RunPullRequests({
    turn: () => view.turn(),
    // The turn's own context: its tier is its submission's (and a reporter session's is always the reporter's).
    run: () => view.turnRun(),
    tier: async () => (await view.turnRun())?.tier,
    target: (submissionId, run) => workspace.pullRequestTarget(submissionId, run),
    apiUrl: () => host.githubApiUrl(),
    token: () => token.fresh(),
    links: () => {
      const github = parseGitHubApiUrl(host.githubApiUrl());
      return { publicBaseUrl: env.PUBLIC_BASE_URL, githubWebUrl: github.ok ? github.github.web : "" };
    },
    redact: (text) => token.redact(text),
    // On the container, where the clone is (a deploy without one answers that it has none).
    exec: (command, timeoutMs) => workspace.own(command, timeoutMs, "container"),
    // Where the Worker's git leaves the commits it makes through GitHub's API (steps/api-commits.ts).
    files: () => host.files(),
    reproductions,
    ledger,
    log
  });
  const watchdog = new TurnWatchdog({
    windowMs: () => host.limits().staleRunMs,
    isCurrent: async (id) => (await view.turn())?.submissionId === id,
    lastActivity: (id) => ledger.lastActivity(id),
    onQuiet: (id, quietForMs) => hooks.quiet(id, quietForMs),
    onError: (id, error) => log("watchdog:failed", { submissionId: id, error: error instanceof Error ? error.message : String(error) })
  });
  const hooks: TurnHooks = new TurnHooks({
    token,
    view,
    watchdog,
    reports,
    workspace,
    budgets,
    models,
    progress,
    ledger,
    maxSteps: () => host.limits().maxSteps,
    modelEnv: () => host.modelEnv(),
    log
  });
  const tools = new TurnTools({
    containerAvailable: () => env.CONTAINERS_ENABLED === "1",
    view,
    runs,
    token,
    trust,
    githubApiUrl: () => host.githubApiUrl(),
    workspace,
    repros,
    pullRequests,
    attachments,
    ledger,
    progress,
    reports
  });
  const lifecycle = new RunLifecycle({
    session,
    env,
    githubApiUrl: () => host.githubApiUrl(),
    submissions: host.submissions,
    runs,
    credentials,
    trust,
    // Duplicate dispatches of a comment answered before any work (run/dispatch-once.ts).
    dispatches: new DispatchOnce(storage),
    reports,
    ledger,
    openRuns,
    activeTurn,
    watchdog,
    closing,
    view,
    log
  });
  return { log, token, credentials, trust, reports, egress, models, lifecycle, hooks, tools };
}
