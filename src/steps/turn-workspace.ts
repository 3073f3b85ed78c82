/**
 * A turn's hands on its workspace: the repository prepared before the model's first step
 * (prepare.ts, with what another tier's run passes, `trustFacts`, kept per submission), every
 * bash command after it (replayed, not run again, after a restart: command-replay.ts; a write
 * the policy refuses answered before it runs: write-policy.ts), and the sandbox's network policy
 * for the turn (`egressPolicy`). Before the clone it decides how the run's commits reach GitHub
 * (signed-commits.ts): where they must be signed, no push is granted and open_pull_request makes
 * them through the API. The container gets the run's bot for git's identity, never a credential.
 * A failed preparation is recorded (`recordSetupFailure`) before it is thrown. run-parts.ts wires it.
 */
import type { BotIdentity } from "../shared/dispatch";
import type { BashInput, BashResult } from "../run/bash-command";
import type { SetupFailure } from "../run/ending";
import type { RunContext } from "../run/run-context";
import type { CommandReplay } from "../run/command-replay";
import type { EgressPolicy } from "../egress/run-credentials";
import { RunPreparation, type PrepareDeps, type Prepared, type RunSettings } from "./prepare";
import { SetupFailedError } from "../run/ending";
import type { PullRequestTarget } from "../run/pull-request-input";
import { refusal, writePolicyFor } from "../run/write-policy";
import { MAX_REPO_CONFIG_BYTES, parseRepoConfig, REPO_CONFIG_PATH } from "../run/repo-config";
import { API_PUSH_GATEWAY_REFUSAL, commitsFor, type BranchRulesRead, type CommitsFact } from "../run/signed-commits";
import type { TrustFacts } from "../run/trust-facts";
import type { WorkerGitHub } from "../run/worker-git";

type TurnRef = { session: string; submissionId: string };

/** The WorkspaceAgent calls a turn makes. */
export type WorkspaceCalls = {
  exec(request: BashInput & { turn?: TurnRef; bot?: BotIdentity }): Promise<BashResult>;
};

export type TurnWorkspaceDeps = {
  storage: PrepareDeps["storage"];
  run: () => Promise<RunContext | undefined>;
  turn: () => Promise<TurnRef | null>;
  workspace: () => Promise<WorkspaceCalls>;
  commands: CommandReplay;
  redact: (text: string) => string;
  reader: PrepareDeps["reader"];
  /** The App's bot login the run acts as, when there is one. */
  botLogin: (run: RunContext) => string | undefined;
  onStep: PrepareDeps["onStep"];
  /** The repository's run settings were read, before the clone (the progress comment is created then). */
  onSettings?: PrepareDeps["onSettings"];
  recordSetupFailure: (submissionId: string, failure: SetupFailure) => Promise<void>;
  /** The deployment's GitHub, which the preparation clones from. */
  github?: () => WorkerGitHub;
  /** Which of a repository's registries its runs may use, and why not the others. */
  registries?: PrepareDeps["registries"];
  /** What another tier's run may pass to this one, as untrusted data for the block (asked once per submission). */
  trustFacts?: (run: RunContext) => Promise<TrustFacts>;
  log: (event: string, fields: Record<string, unknown>) => void;
};

const trustKey = (submissionId: string) => `agent-think:trust-facts:${submissionId}`;
/** How the submission's commits reach GitHub, decided once before its clone (absent: by git, as before there was a choice). */
const commitsKey = (submissionId: string) => `agent-think:commits:${submissionId}`;
/** How long the preparation waits for what another tier's run left (the command center, then that agent). */
export const TRUST_FACTS_TIMEOUT_MS = 3_000;

export class TurnWorkspace {
  readonly #deps: TurnWorkspaceDeps;
  readonly #preparation: RunPreparation;

  constructor(deps: TurnWorkspaceDeps) {
    this.#deps = deps;
    this.#preparation = new RunPreparation({
      storage: deps.storage,
      reader: deps.reader,
      exec: async (input) => this.#exec(input, await deps.turn()),
      redact: deps.redact,
      onStep: deps.onStep,
      ...(deps.onSettings ? { onSettings: deps.onSettings } : {}),
      ...(deps.github ? { github: deps.github } : {}),
      ...(deps.registries ? { registries: deps.registries } : {}),
      log: deps.log,
      now: () => Date.now()
    });
  }

  /** The repository prepared for `submissionId` (once; a recovered turn reuses it). Throws SetupFailedError after recording it. */
  async prepare(submissionId: string, signal?: AbortSignal): Promise<Prepared | null> {
    const run = await this.#deps.run();
    if (!run) return null;
    const facts = {
      repo: run.repo,
      issueNumber: run.issueNumber,
      pullRequest: run.pullRequest,
      botLogin: this.#deps.botLogin(run),
      ...(run.issueBodySha256 ? { issueBodySha256: run.issueBodySha256 } : {}),
      ...(run.tier ? { tier: run.tier } : {}),
      ...(run.ci ? { ci: run.ci } : {})
    };
    try {
      // Before the clone: from its first request the gateway grants no push where the commits must be signed.
      const commits = await this.#commits(submissionId, facts);
      const prepared = await this.#preparation.prepare(submissionId, facts, signal);
      const trust = await this.#trustFacts(submissionId, run);
      const extra = { ...trust, ...(commits?.via === "api" ? { commits } : {}) };
      return Object.keys(extra).length ? { ...prepared, facts: { ...prepared.facts, ...extra } } : prepared;
    } catch (error) {
      if (!(error instanceof SetupFailedError)) throw error;
      await this.#deps.recordSetupFailure(submissionId, error.failure);
      this.#deps.log("prepare:failed", { submissionId, failure: error.failure.kind });
      throw error;
    }
  }

  /** The model's bash command: answered at once when the write policy's guard reads a write it refuses, else run once. */
  async bash(input: BashInput): Promise<BashResult> {
    const turn = await this.#deps.turn();
    const prepared = turn ? this.#preparation.policy(turn.submissionId) : null;
    const policy = prepared && this.#viaApi(turn!.submissionId) ? { ...prepared, commitsVia: "api" as const } : prepared;
    const refused = policy ? refusal(input.command, policy) : null;
    if (refused) return { backend: input.backend, error: refused };
    const exec = (command: BashInput) => this.#exec(command, turn);
    // A re-issue of the command a restart interrupted is answered, not run again.
    return turn ? this.#deps.commands.run(turn.submissionId, input, exec) : exec(input);
  }

  /**
   * A command of the Worker's own (the fix's proof), run in the container
   * where there is one: not the model's, so neither guarded nor replayed;
   * the egress gateway holds it to the run's policy like any other.
   */
  async own(command: string, timeoutMs: number, backend: BashInput["backend"]): Promise<BashResult> {
    return this.#exec({ command, backend, timeoutMs }, await this.#deps.turn());
  }

  /** Where `open_pull_request` may go for `submissionId`'s turn; null before its policy is known (then nowhere). */
  pullRequestTarget(submissionId: string, run: RunContext): PullRequestTarget | null {
    const prepared = this.#preparation.prepared(submissionId);
    if (!prepared) return null;
    const botLogin = this.#deps.botLogin(run);
    const pull = run.pullRequest;
    const onOwn = pull !== undefined && prepared.policy.pushBranch !== null && prepared.policy.pushBranch === pull.headRef;
    return {
      repo: run.repo,
      policy: prepared.policy,
      ...(prepared.facts.openPullRequest ? { openPullRequest: { number: prepared.facts.openPullRequest.number } } : {}),
      ...(onOwn ? { ownPullRequest: { number: pull.number } } : {}),
      ...(botLogin ? { botLogin } : {}),
      ...(this.#viaApi(submissionId) ? { commits: "api" as const } : {})
    };
  }

  /** The repository's run settings for `submissionId` (the model it picked: src/model/run-models.ts); null before its config is read. */
  settings(submissionId: string): RunSettings | null {
    return this.#preparation.settings(submissionId);
  }

  /** What the sandbox's network may do for `submissionId`'s turn; null before its policy is known (then it may not push). */
  egressPolicy(submissionId: string): EgressPolicy | null {
    const policy = this.#preparation.egressPolicy(submissionId);
    // Commits that must be signed are made by the Worker through the API: the sandbox pushes nothing.
    if (!policy || !this.#viaApi(submissionId)) return policy;
    return { ...policy, pushBranch: null, pushRefusal: API_PUSH_GATEWAY_REFUSAL };
  }

  /** How `submissionId`'s commits reach GitHub, once decided (before its clone); null before, or for a run that pushes nothing. */
  commits(submissionId: string): CommitsFact | null {
    return this.#deps.storage.get<CommitsFact>(commitsKey(submissionId)) ?? null;
  }

  #viaApi(submissionId: string): boolean {
    return this.commits(submissionId)?.via === "api";
  }

  /**
   * Decided once per submission, for a run that may push and a GitHub that can say: the
   * repository's `commits.signed`, and the rules of the push branch and the default branch.
   * What could not be read counts as a yes (signed-commits.ts), said in the fact's `unread`.
   */
  async #commits(submissionId: string, facts: Parameters<typeof writePolicyFor>[0] & { botLogin: string | undefined }): Promise<CommitsFact | null> {
    const kept = this.commits(submissionId);
    if (kept) return kept;
    const branch = writePolicyFor(facts).pushBranch;
    if (branch === null) return null;
    const reader = await this.#deps.reader().catch(() => null);
    if (!reader?.branchRequiresSignatures || !reader.defaultBranch) return null;
    const problem = (error: unknown) => this.#deps.redact(error instanceof Error ? error.message : String(error));
    let configAsks = false;
    let configUnread: string | undefined;
    try {
      const file = await reader.readFile(facts.repo, REPO_CONFIG_PATH, undefined, MAX_REPO_CONFIG_BYTES + 1);
      // A file that does not parse ends the preparation, which says why.
      const parsed = file && !file.truncated ? parseRepoConfig(file.text) : null;
      configAsks = parsed?.ok === true && parsed.config.commits.signed;
    } catch (error) {
      configUnread = problem(error);
    }
    const rules = async (name: string): Promise<BranchRulesRead> => {
      try {
        return { branch: name, requiresSignatures: await reader.branchRequiresSignatures!(facts.repo, name) };
      } catch (error) {
        return { branch: name, unread: problem(error) };
      }
    };
    let defaultBranch: string | { unread: string };
    try {
      defaultBranch = await reader.defaultBranch(facts.repo);
    } catch (error) {
      defaultBranch = { unread: problem(error) };
    }
    const reads = [await rules(branch), typeof defaultBranch === "string" ? await rules(defaultBranch) : { branch: "the default branch", unread: defaultBranch.unread }];
    const decided = commitsFor({ configAsks, ...(configUnread ? { configUnread } : {}), rules: reads });
    this.#deps.storage.put(commitsKey(submissionId), decided);
    this.#deps.log("prepare:commits", { submissionId, via: decided.via, ...(decided.unread ? { unread: decided.unread.length } : {}) });
    return decided;
  }

  /** What crosses from another tier's run into this one's block: asked once, then kept for a recovered turn. */
  async #trustFacts(submissionId: string, run: RunContext): Promise<TrustFacts> {
    const kept = this.#deps.storage.get<TrustFacts>(trustKey(submissionId));
    if (kept) return kept;
    // Asked of the command center and another agent: one that hangs or fails costs this run those facts, never its start.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${TRUST_FACTS_TIMEOUT_MS} ms`)), TRUST_FACTS_TIMEOUT_MS);
    });
    const asked = this.#deps.trustFacts ? Promise.race([this.#deps.trustFacts(run), timeout]) : Promise.resolve({});
    const facts = (await asked.catch((error: unknown) => {
      this.#deps.log("prepare:trust-facts-failed", { submissionId, error: error instanceof Error ? error.message : String(error) });
      return undefined;
    }).finally(() => clearTimeout(timer))) ?? {};
    this.#deps.storage.put(trustKey(submissionId), facts);
    return facts;
  }

  /** The submission ended: what was prepared and its last command are forgotten. */
  forget(submissionId: string): void {
    this.#deps.storage.delete(trustKey(submissionId));
    this.#deps.storage.delete(commitsKey(submissionId));
    this.#preparation.forget(submissionId);
    this.#deps.commands.forget(submissionId);
  }

  async #exec(input: BashInput, turn: TurnRef | null): Promise<BashResult> {
    const [workspace, run] = [await this.#deps.workspace(), await this.#deps.run()];
    return workspace.exec({ ...input, turn: turn ?? undefined, bot: run?.bot });
  }
}
