/**
 * The session's run as a ThinkAgent's collaborators read it: the turn that
 * is running, the run context that turn is prepared with (its own
 * submission's tier and CI failures, held to the session's tier), where its
 * messages go (`RunRef`), and the bot it acts as. Reads only; pure apart
 * from its dependencies. run-parts.ts wires it.
 */
import type { TurnRef } from "../pool/turn-container";
import { resolveBot, type BotConfig } from "../run/bot-identity";
import { runContextForTurn, type RunContext, type RunContextStore } from "../run/run-context";
import type { SessionTrust } from "../run/session-trust";
import type { RunRef } from "../report/run-ref";
import { runRefFor } from "../report/run-ref";
import type { ActiveTurn } from "./active-turn";

export type RunViewDeps = {
  runs: Pick<RunContextStore, "get">;
  activeTurn: Pick<ActiveTurn, "current">;
  trust: Pick<SessionTrust, "turn">;
  /** A submission's record as Think keeps it (its metadata holds the run's own tier and CI failures). */
  inspect: (submissionId: string) => Promise<{ metadata?: Record<string, unknown> } | null>;
  session: () => string;
  env: BotConfig & { PUBLIC_BASE_URL: string };
  githubApiUrl: () => string;
};

export class RunView {
  readonly #deps: RunViewDeps;

  constructor(deps: RunViewDeps) {
    this.#deps = deps;
  }

  /** The submission whose turn is running (active-turn.ts). */
  turn(): Promise<TurnRef | null> {
    return this.#deps.activeTurn.current();
  }

  /** The run context as the running turn is prepared with: its own submission's tier and CI failures (run/run-context.ts). */
  async turnRun(): Promise<RunContext | undefined> {
    const run = await this.#deps.runs.get();
    const turn = await this.turn();
    const record = run && turn ? await this.#deps.inspect(turn.submissionId) : null;
    // Every run of a reporter session is a reporter's, whatever a record says.
    return this.#deps.trust.turn(run && record ? runContextForTurn(run, record.metadata) : run);
  }

  /** Where a run's messages go; with the submission's metadata, also who asked and whether it was continued (report/run-ref.ts). */
  async runRef(submissionId: string, metadata?: Record<string, unknown>): Promise<RunRef | null> {
    const run = await this.#deps.runs.get();
    if (!run) return null;
    const botLogin = this.botLogin(run);
    return runRefFor({
      run,
      submissionId,
      session: this.#deps.session(),
      publicBaseUrl: this.#deps.env.PUBLIC_BASE_URL,
      githubApiUrl: this.#deps.githubApiUrl(),
      ...(botLogin ? { botLogin } : {}),
      metadata
    });
  }

  /** The login of the bot the run acts as; undefined when there is none to act as (then no pull request counts as the App's). */
  botLogin(run: RunContext): string | undefined {
    const resolved = resolveBot(run.bot, this.#deps.env);
    return resolved.ok ? resolved.bot.login : undefined;
  }
}
