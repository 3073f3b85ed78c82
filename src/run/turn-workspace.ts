/**
 * A turn's hands on its workspace, in one place: the repository prepared
 * before the model's first step (prepare.ts), every bash command after it
 * (held to the run's write policy, write-policy.ts; a command a restart
 * interrupted answered instead of run twice, command-replay.ts), and the
 * token the container acts with: the run's own, or a read-only one when the
 * run may write nothing (read-token.ts).
 *
 * ThinkAgent wires it with its storage, its run token and its
 * WorkspaceAgent; nothing here reaches a binding itself. A failed
 * preparation is kept for the closing comment (`recordSetupFailure`)
 * before it is thrown into the turn.
 */
import type { BotIdentity } from "../shared/dispatch";
import type { BashInput, BashResult } from "../tools/bash-tool";
import type { RepoReader } from "../github/repo-reader";
import type { SetupFailure } from "./ending";
import type { RunContext } from "./run-context";
import type { RunToken } from "./run-token";
import type { CommandReplay } from "./command-replay";
import type { ReadOnlyToken } from "./read-token";
import { RunPreparation, SetupFailedError, type PrepareDeps, type Prepared } from "./prepare";
import { containerAccess, refusal, type ContainerAccess } from "./write-policy";

type TurnRef = { session: string; submissionId: string };

/** The WorkspaceAgent calls a turn makes. */
export type WorkspaceCalls = {
  exec(request: BashInput & { turn?: TurnRef; token?: string; bot?: BotIdentity }): Promise<BashResult>;
};

export type TurnWorkspaceDeps = {
  storage: PrepareDeps["storage"];
  run: () => Promise<RunContext | undefined>;
  turn: () => Promise<TurnRef | null>;
  workspace: () => Promise<WorkspaceCalls>;
  token: RunToken;
  readToken: ReadOnlyToken;
  commands: CommandReplay;
  reader: PrepareDeps["reader"];
  /** The App's bot login the run acts as, when there is one. */
  botLogin: (run: RunContext) => string | undefined;
  onStep: PrepareDeps["onStep"];
  recordSetupFailure: (submissionId: string, failure: SetupFailure) => Promise<void>;
  log: (event: string, fields: Record<string, unknown>) => void;
};

export class TurnWorkspace {
  readonly #deps: TurnWorkspaceDeps;
  readonly #preparation: RunPreparation;

  constructor(deps: TurnWorkspaceDeps) {
    this.#deps = deps;
    this.#preparation = new RunPreparation({
      storage: deps.storage,
      reader: deps.reader,
      exec: async (input, access) => this.#exec(input, access, await deps.turn()),
      redact: (text) => deps.token.redact(text),
      onStep: deps.onStep,
      log: deps.log,
      now: () => Date.now()
    });
  }

  /** The repository prepared for `submissionId` (once; a recovered turn reuses it). Throws SetupFailedError after recording it. */
  async prepare(submissionId: string, signal?: AbortSignal): Promise<Prepared | null> {
    const run = await this.#deps.run();
    if (!run) return null;
    const facts = { repo: run.repo, issueNumber: run.issueNumber, pullRequest: run.pullRequest, botLogin: this.#deps.botLogin(run) };
    try {
      return await this.#preparation.prepare(submissionId, facts, signal);
    } catch (error) {
      if (!(error instanceof SetupFailedError)) throw error;
      await this.#deps.recordSetupFailure(submissionId, error.failure);
      this.#deps.log("prepare:failed", { submissionId, failure: error.failure.kind });
      throw error;
    }
  }

  /** The model's bash command: refused when it would write where the run may not, else run once with the right token. */
  async bash(input: BashInput): Promise<BashResult> {
    const turn = await this.#deps.turn();
    const policy = turn ? this.#preparation.policy(turn.submissionId) : null;
    const refused = policy ? refusal(input.command, policy) : null;
    if (refused) return { backend: input.backend, error: refused };
    const access = policy ? containerAccess(policy) : "write";
    const exec = (command: BashInput) => this.#exec(command, access, turn);
    // A re-issue of the command a restart interrupted is answered, not run again.
    return turn ? this.#deps.commands.run(turn.submissionId, input, exec) : exec(input);
  }

  /** What the container acts with for the running turn (beforeStep logs it in again when this changed). */
  async credentials(): Promise<{ token: string; bot: BotIdentity | undefined }> {
    const turn = await this.#deps.turn();
    const policy = turn ? this.#preparation.policy(turn.submissionId) : null;
    return this.#credentials(policy ? containerAccess(policy) : "write");
  }

  /** The submission ended: what was prepared and its last command are forgotten. */
  forget(submissionId: string): void {
    this.#preparation.forget(submissionId);
    this.#deps.commands.forget(submissionId);
  }

  async #exec(input: BashInput, access: ContainerAccess, turn: TurnRef | null): Promise<BashResult> {
    const [workspace, credentials] = [await this.#deps.workspace(), await this.#credentials(access)];
    return workspace.exec({ ...input, turn: turn ?? undefined, ...credentials });
  }

  /** The run's token, or for a run that may write nothing a read-only one: never the run's, even when none can be had (then none). */
  async #credentials(access: ContainerAccess): Promise<{ token: string; bot: BotIdentity | undefined }> {
    if (access === "write") return this.#deps.token.credentials();
    const run = await this.#deps.run();
    return { token: run ? await this.#deps.readToken.fresh(run.repo) : "", bot: run?.bot };
  }
}
