/**
 * One container command for the model, as the WorkspaceAgent runs it:
 * wrapped so only a bounded head and tail come back (run/command-report.ts),
 * behind the identity guard (run/git-identity.ts; the container holds no
 * credential), on the turn's container (turn-container.ts; a retired one is
 * replaced), and tracked so a release waits for it. A run with no bot to
 * commit as is an error result. Pure apart from its dependencies (runner,
 * the turn's containers, bot, GitHub host, reconnect). docs/containers.md.
 */
import { gitIdentityScript, identityGuard, identityMarker, stoppedForIdentity, type GitBot } from "../run/git-identity";
import type { GitHubHost } from "../shared/github-urls";
import type { Logger } from "../run/log";
import { commandId, parseReport, wrapCommand } from "../run/command-report";
import type { BashResult } from "../run/bash-command";
import { isSandboxRetired } from "./errors";
import type { TurnContainers } from "./turn-container";

/** What one run of a script returned, before bounding. */
export type RawRun = { exitCode: number; stdout: string; stderr: string };

/** Runs a script on one backend. The seam tests replace for the container. */
export interface CommandRunner {
  run(script: string, options: { stdin?: string; timeoutMs: number }): Promise<RawRun>;
}

export type ContainerCommandDeps = {
  runner: () => CommandRunner;
  turns: Pick<TurnContainers, "sandbox" | "replaceRetired">;
  /**
   * The run's bot, which git commits as (run/bot-identity.ts): null when no
   * run is going on (no identity to set up); throws, saying what is
   * missing, when the run has none.
   */
  bot: () => GitBot | null;
  /** The GitHub the container commits for (from GITHUB_API_URL; github.com when absent); throws, naming it, when it names none. */
  github?: () => GitHubHost;
  maxOutputBytes: () => number;
  /** Drop the connection to a container that is gone; the next command reconnects. */
  reconnect: () => Promise<void>;
  log: Logger;
};

/** How much longer than the command's own timeout the runner waits for the wrapper's report. */
const REPORT_GRACE_MS = 15_000;
const IDENTITY_TIMEOUT_MS = 60_000;

export class ContainerCommands {
  readonly #deps: ContainerCommandDeps;
  /** Commands still running in this isolate. */
  readonly #inflight = new Set<Promise<unknown>>();

  constructor(deps: ContainerCommandDeps) {
    this.#deps = deps;
  }

  /** Run `command` on the turn's container. Throws only what the caller turns into an error result. */
  run(command: string, timeoutMs: number): Promise<BashResult> {
    const work = this.#run(command, timeoutMs);
    this.#inflight.add(work);
    void work.finally(() => this.#inflight.delete(work)).catch(() => {});
    return work;
  }

  /** Wait, at most `waitMs`, for the commands still running. True when they all finished. */
  async settle(waitMs: number): Promise<{ settled: boolean; running: number }> {
    if (this.#inflight.size === 0) return { settled: true, running: 0 };
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), waitMs);
    });
    const outcome = await Promise.race([Promise.allSettled([...this.#inflight]), timeout]);
    clearTimeout(timer);
    return { settled: outcome !== "timeout", running: this.#inflight.size };
  }

  async #run(command: string, timeoutMs: number): Promise<BashResult> {
    const started = Date.now();
    const id = commandId();
    const nonce = crypto.randomUUID().replaceAll("-", "");
    const maxBytes = this.#deps.maxOutputBytes();
    const bot = this.#deps.bot();
    const github = this.#deps.github?.();
    const marker = bot ? await identityMarker(bot, github) : undefined;
    const wrapped = wrapCommand(command, { id, nonce, maxBytes, timeoutSeconds: timeoutMs / 1000 });
    const script = marker ? `${identityGuard(marker, nonce)}\n${wrapped}` : wrapped;
    const runScript = () => this.#deps.runner().run(script, { timeoutMs: timeoutMs + REPORT_GRACE_MS });
    let raw = await this.#onTurnContainer(runScript);
    if (bot && marker && stoppedForIdentity(raw.stdout, nonce)) {
      const failure = await this.#setIdentity(bot, marker, github);
      if (failure) return { backend: "container", error: failure };
      raw = await runScript();
    }
    const parsed = parseReport(raw.stdout, { id, nonce, maxBytes });
    if (!parsed.ok) {
      return { backend: "container", error: `${parsed.reason} (exit ${raw.exitCode}${raw.stderr ? `: ${raw.stderr.slice(0, 500)}` : ""})` };
    }
    // The wrapper says whether our timeout fired (and had to SIGKILL); the exit code alone cannot.
    const { exitCode, stdout, stderr, timedOut, killed } = parsed.report;
    return {
      backend: "container",
      exitCode,
      stdout,
      stderr,
      durationMs: Date.now() - started,
      ...(timedOut ? { timedOut: true } : {}),
      ...(killed ? { killed: true } : {})
    };
  }

  /** Run on the turn's container, claiming it first; a retired one is given back and the call runs once more on a fresh one. */
  async #onTurnContainer<T>(run: () => Promise<T>): Promise<T> {
    const sandboxId = await this.#deps.turns.sandbox();
    try {
      return await run();
    } catch (error) {
      if (!isSandboxRetired(error)) throw error;
      this.#deps.log("container:retired", { sandboxId });
      await this.#deps.turns.replaceRetired(sandboxId);
      await this.#deps.reconnect();
      await this.#deps.turns.sandbox();
      return await run();
    }
  }

  /** Give this container the bot's git identity (and trust the egress CA); an error message when it failed. */
  async #setIdentity(bot: GitBot, marker: string, github: GitHubHost | undefined): Promise<string | undefined> {
    this.#deps.log("git-identity:start", { bot: bot.login, ...(bot.id === undefined ? {} : { botId: bot.id }) });
    const run = await this.#deps.runner().run(gitIdentityScript(bot, marker, github), { timeoutMs: IDENTITY_TIMEOUT_MS });
    if (run.exitCode !== 0) {
      this.#deps.log("git-identity:failed", { exitCode: run.exitCode });
      return `setting up git's identity failed (exit ${run.exitCode}): ${run.stderr.slice(0, 500)}`;
    }
    this.#deps.log("git-identity:done", {});
    return undefined;
  }
}
