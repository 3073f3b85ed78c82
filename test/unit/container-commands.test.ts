/**
 * One container command (src/pool/container-commands.ts) over the recording
 * container shell and a recording turn: the identity guard sets the run's
 * bot up on a new container before the command and never otherwise (and
 * again for another bot); a failed identity script is an error result and
 * the command does not run; a run with no bot is an error result; nothing
 * the container is given holds a credential; a retired container is given
 * back and the command runs on a fresh one; a release can wait, bounded,
 * for the commands still running.
 */
import { describe, expect, it } from "vitest";
import { ContainerCommands } from "../../src/pool/container-commands";
import type { RawRun } from "../../src/pool/container-commands";
import { RecordingContainer } from "../support/recording-container";
import { gitIdentityScript, identityMarker, type GitBot } from "../../src/run/git-identity";
import { BotIdentityError, MISSING_BOT_ERROR } from "../../src/run/bot-identity";

function setup(options: { bot?: () => GitBot | null } = {}) {
  const container = new RecordingContainer();
  let runner: { run(script: string, o: { stdin?: string; timeoutMs: number }): Promise<RawRun> } = container;
  let bot = options.bot ?? (() => ({ login: "agent-think[bot]" }));
  const turnCalls: string[] = [];
  let sandbox = 1;
  let reconnects = 0;
  const commands = new ContainerCommands({
    runner: () => runner,
    turns: {
      sandbox: async () => {
        turnCalls.push(`sandbox:${sandbox}`);
        return `sandbox-${sandbox}`;
      },
      replaceRetired: async (id: string) => {
        turnCalls.push(`retired:${id}`);
        sandbox++;
      }
    },
    bot: () => bot(),
    maxOutputBytes: () => 16_384,
    reconnect: async () => {
      reconnects++;
    },
    log: () => {}
  });
  return {
    container,
    commands,
    turnCalls,
    reconnects: () => reconnects,
    setBot: (next: () => GitBot | null) => (bot = next),
    setRunner: (next: typeof runner) => (runner = next)
  };
}

describe("a container command", () => {
  it("sets a fresh container's identity up before its first command, and not again for the same bot", async () => {
    const { container, commands } = setup();
    expect(await commands.run("echo one", 10_000)).toMatchObject({ backend: "container", exitCode: 0, stdout: { text: "one\n" } });
    expect(await commands.run("echo two", 10_000)).toMatchObject({ exitCode: 0, stdout: { text: "two\n" } });
    expect(container.guardStops).toEqual(["one"]);
    expect(container.identities()).toHaveLength(1);
    expect(container.commands()).toEqual(["one", "two"]);
    // Nothing goes in on stdin: there is no credential to give.
    expect(container.stdins()).toEqual([]);
  });

  it("sets it up again after the container was replaced, and for another bot", async () => {
    const { container, commands, setBot } = setup();
    await commands.run("echo a", 10_000);
    container.replace();
    await commands.run("echo b", 10_000);
    setBot(() => ({ login: "other-app[bot]", id: 7 }));
    await commands.run("echo c", 10_000);
    expect(container.identities()).toHaveLength(3);
    expect(container.identities()[2]).toContain("login='other-app[bot]'");
    expect(container.guardStops).toEqual(["a", "b", "c"]);
    expect(container.commands()).toEqual(["a", "b", "c"]);
  });

  it("commits as the run's bot, with the id GitHub gave and no lookup", async () => {
    const bot = { login: "acme-think[bot]", id: 41898282 };
    const { container, commands } = setup({ bot: () => bot });
    expect(await commands.run("echo as-acme", 10_000)).toMatchObject({ exitCode: 0 });
    const [script] = container.identities();
    expect(script).toBe(gitIdentityScript(bot, await identityMarker(bot)));
    expect(script).toContain("id='41898282'");
    expect(script).not.toContain("gh api");
    expect(script).not.toContain("gh auth");
  });

  it("answers a run with no bot to commit as with an error that says so, and runs nothing", async () => {
    const { container, commands } = setup({
      bot: () => {
        throw new BotIdentityError(MISSING_BOT_ERROR);
      }
    });
    await expect(commands.run("echo never", 10_000)).rejects.toThrow(/bot identity is missing.*BOT_LOGIN/);
    expect(container.runs).toEqual([]);
  });

  it("runs without a guard when there is no run's bot", async () => {
    const { container, commands } = setup({ bot: () => null });
    expect(await commands.run("echo plain", 10_000)).toMatchObject({ exitCode: 0 });
    expect(container.runs.map((run) => run.script.includes("needs-git-identity"))).toEqual([false]);
    expect(container.identities()).toEqual([]);
  });

  it("answers a failed identity script as an error and does not run the command", async () => {
    const { container, commands, setRunner } = setup();
    setRunner({
      run: async (script, options) =>
        script.includes("git config --global user.name") ? { exitCode: 4, stdout: "", stderr: "git: no HOME" } : container.run(script, options)
    });
    expect(await commands.run("echo never", 10_000)).toEqual({ backend: "container", error: "setting up git's identity failed (exit 4): git: no HOME" });
    expect(container.commands()).toEqual([]);
  });

  it("gives a retired container back and runs the command on a fresh one", async () => {
    const { container, commands, turnCalls, reconnects } = setup({ bot: () => null });
    container.failNextWith("connect failed at stage=start lastError=sandbox sandbox-1 was stopped and is never started again");
    expect(await commands.run("echo again", 10_000)).toMatchObject({ exitCode: 0, stdout: { text: "again\n" } });
    expect(turnCalls).toEqual(["sandbox:1", "retired:sandbox-1", "sandbox:2"]);
    expect(reconnects()).toBe(1);
  });

  it("lets a release wait for the commands still running, and stops waiting at its bound", async () => {
    const { container, commands } = setup({ bot: () => null });
    expect(await commands.settle(10)).toEqual({ settled: true, running: 0 });
    container.hold();
    const running = commands.run("echo slow", 10_000);
    expect(await commands.settle(30)).toEqual({ settled: false, running: 1 });
    const settling = commands.settle(5_000);
    container.releaseHeld();
    expect(await settling).toEqual({ settled: true, running: 0 });
    expect(await running).toMatchObject({ exitCode: 0 });
  });
});
