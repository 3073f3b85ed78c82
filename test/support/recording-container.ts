/**
 * A recording container shell behind the `CommandRunner` interface, in plain
 * TypeScript (the unit and the Workers suites share it). It answers each
 * wrapped command as the real wrapper (src/run/command-report.ts) would,
 * and like a real container it remembers the identity markers under /temp
 * the identity script left (src/run/git-identity.ts), which the guard in
 * front of every command checks; `replace()` swaps in a fresh container
 * without them. Like the real one it holds no credential: `gh auth token`
 * prints the launch env's SANDBOX_GH_TOKEN, and every stdin it was given is
 * kept (`stdins()`), so a test can show no token went in that way either. `hold()` and
 * `failNextWith()` make commands slow or failing; `answer()` gives the
 * commands that match a pattern an exit code and output of their own. A
 * command the run prepares the repository with (src/steps/prepare.ts opens
 * each with a `# agent-think prepare: <step>` line) is recorded by that name.
 */
import { IDENTITY_MARKER_DIR } from "../../src/run/git-identity";
import { SANDBOX_GH_TOKEN } from "../../src/pool/launch-spec";
import type { CommandRunner, RawRun } from "../../src/pool/container-commands";
import { deferred, type Deferred } from "../pool/fakes";

type Recorded = { script: string; stdin?: string };
type Answer = { exitCode: number; stdout?: string; stderr?: string };

const isIdentityScript = (script: string) => script.includes("git config --global user.name");
const markerIn = (script: string, form: "guard" | "write") =>
  new RegExp(form === "guard" ? `\\[ ! -e ${IDENTITY_MARKER_DIR}/([0-9a-f]{32}) \\]` : `: > ${IDENTITY_MARKER_DIR}/([0-9a-f]{32})`).exec(script)?.[1];

/** Answers a wrapped command as the real wrapper would, from the markers in the script. */
export class RecordingContainer implements CommandRunner {
  readonly runs: Recorded[] = [];
  /** Commands the identity guard stopped because this container had not set the bot's identity up. */
  readonly guardStops: string[] = [];
  /** Identity markers in this container's /temp. */
  #markers = new Set<string>();
  /** How many containers this one replaced. */
  generation = 0;
  #stopped = new WeakSet<Recorded>();
  #held: Deferred | undefined;
  #failNext: string | undefined;
  readonly #answers: Array<{ pattern: RegExp; answer: Answer }> = [];
  readonly #hooks: Array<{ pattern: RegExp; hook: () => Promise<void> }> = [];

  /** Call `hook` while a command whose script matches `pattern` runs (as the container's own requests would go out then). */
  during(pattern: RegExp, hook: () => Promise<void>): void {
    this.#hooks.push({ pattern, hook });
  }

  /** Answer every command whose script matches `pattern` with `answer` (the last matching rule wins). */
  answer(pattern: RegExp, answer: Answer): void {
    this.#answers.unshift({ pattern, answer });
  }

  /** Make the next command throw `message` (as a backend whose connect failed does). */
  failNextWith(message: string): void {
    this.#failNext = message;
  }

  /** Make the next commands wait (as a slow command and its sync back would) until `releaseHeld()`. */
  hold(): void {
    this.#held ??= deferred();
  }

  releaseHeld(): void {
    this.#held?.resolve();
    this.#held = undefined;
  }

  async run(script: string, options: { stdin?: string }): Promise<RawRun> {
    const recorded: Recorded = { script, stdin: options.stdin };
    this.runs.push(recorded);
    if (this.#held && !isIdentityScript(script)) await this.#held.promise;
    if (this.#failNext !== undefined) {
      const message = this.#failNext;
      this.#failNext = undefined;
      throw new Error(message);
    }
    if (isIdentityScript(script)) {
      const marker = markerIn(script, "write");
      if (marker) this.#markers.add(marker);
      return { exitCode: 0, stdout: "", stderr: "" };
    }
    const nonce = /"@@([A-Za-z0-9-]+)"/.exec(script)?.[1];
    const guard = markerIn(script, "guard");
    if (guard && !this.#markers.has(guard)) {
      this.guardStops.push(this.#command(script));
      this.#stopped.add(recorded);
      return { exitCode: 0, stdout: `\n@@${nonce} needs-git-identity\n`, stderr: "" };
    }
    for (const { pattern, hook } of this.#hooks) if (pattern.test(script)) await hook();
    const scripted = this.#answers.find((rule) => rule.pattern.test(script))?.answer;
    if (scripted) {
      const [out, err] = [scripted.stdout ?? "", scripted.stderr ?? ""];
      const lines = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
      return {
        exitCode: 0,
        stdout: `\n@@${nonce} stdout ${out.length} ${lines(out)}\n${out}\n@@${nonce} stderr ${err.length} ${lines(err)}\n${err}\n@@${nonce} end ${scripted.exitCode}\n`,
        stderr: ""
      };
    }
    const out = /\bgh auth token\b/.test(script) ? `${SANDBOX_GH_TOKEN}\n` : `${this.#command(script)}\n`;
    return {
      exitCode: 0,
      stdout: `\n@@${nonce} stdout ${out.length} 1\n${out}\n@@${nonce} stderr 0 0\n\n@@${nonce} end 0\n`,
      stderr: ""
    };
  }

  /** A new container in place of this one (a crash relaunch, a restart): no identity markers. */
  replace(): void {
    this.#markers = new Set();
    this.generation++;
  }

  /** The echoed text of each command that ran to the end (not the ones the guard stopped). */
  commands(): string[] {
    return this.runs
      .filter((run) => !isIdentityScript(run.script) && !this.#stoppedAt(run))
      .map((run) => this.#command(run.script));
  }

  /** The identity scripts this container (and the ones it replaced) ran, in order. */
  identities(): string[] {
    return this.runs.filter((run) => isIdentityScript(run.script)).map((run) => run.script);
  }

  /** Everything any command was given on stdin. */
  stdins(): string[] {
    return this.runs.flatMap((run) => (run.stdin === undefined ? [] : [run.stdin]));
  }

  #command(script: string): string {
    const prepared = /# agent-think prepare: ([^\n']+)/.exec(script)?.[1];
    return prepared ? `prepare: ${prepared}` : (/\becho ([^'\n]*)/.exec(script)?.[1] ?? "?");
  }

  #stoppedAt(run: Recorded): boolean {
    return this.#stopped.has(run);
  }
}
