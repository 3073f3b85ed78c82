/**
 * One container command (src/pool/container-commands.ts) over the recording
 * container shell and a recording turn: the login guard logs a new container
 * or a renewed token in before the command and never otherwise; a failed
 * login is an error result and the command does not run; git logs in as
 * the run's bot (its id used as given), and a token with no bot is an error
 * result; a retired
 * container is given back and the command runs on a fresh one; a release
 * can wait, bounded, for the commands still running.
 */
import { describe, expect, it } from "vitest";
import { ContainerCommands } from "../../src/pool/container-commands";
import type { RawRun } from "../../src/pool/container-commands";
import { RecordingContainer } from "../support/recording-container";
import { authMarker, gitAuthScript, type GitBot } from "../../src/run/git-auth";
import { BotIdentityError, MISSING_BOT_ERROR } from "../../src/run/bot-identity";

const TOKEN = "ghs_unitTOKEN_0000000000";

function setup(options: { token?: string; bot?: () => GitBot } = {}) {
  const container = new RecordingContainer();
  let runner: { run(script: string, o: { stdin?: string; timeoutMs: number }): Promise<RawRun> } = container;
  let token = options.token ?? TOKEN;
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
    token: () => token,
    bot: options.bot ?? (() => ({ login: "agent-think[bot]" })),
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
    setToken: (next: string) => (token = next),
    setRunner: (next: typeof runner) => (runner = next)
  };
}

describe("a container command", () => {
  it("logs a fresh container in before its first command, and not again for the same token", async () => {
    const { container, commands } = setup();
    expect(await commands.run("echo one", 10_000)).toMatchObject({ backend: "container", exitCode: 0, stdout: { text: "one\n" } });
    expect(await commands.run("echo two", 10_000)).toMatchObject({ exitCode: 0, stdout: { text: "two\n" } });
    expect(container.guardStops).toEqual(["one"]);
    expect(container.auths()).toEqual([TOKEN]);
    expect(container.commands()).toEqual(["one", "two"]);
    // The token went in on stdin only.
    expect(container.runs.filter((run) => run.script.includes(TOKEN))).toEqual([]);
  });

  it("logs in again after the container was replaced, and after the token was renewed", async () => {
    const { container, commands, setToken } = setup();
    await commands.run("echo a", 10_000);
    container.replace();
    await commands.run("echo b", 10_000);
    setToken("ghs_unitRENEWED_00000000");
    await commands.run("echo c", 10_000);
    expect(container.auths()).toEqual([TOKEN, TOKEN, "ghs_unitRENEWED_00000000"]);
    expect(container.guardStops).toEqual(["a", "b", "c"]);
    expect(container.commands()).toEqual(["a", "b", "c"]);
  });

  it("logs in as the run's bot, with the id GitHub gave and no lookup", async () => {
    const bot = { login: "acme-think[bot]", id: 41898282 };
    const { container, commands } = setup({ bot: () => bot });
    expect(await commands.run("echo as-acme", 10_000)).toMatchObject({ exitCode: 0 });
    const login = container.runs.find((run) => run.script.includes("gh auth login"))!;
    expect(login.script).toBe(gitAuthScript(bot, await authMarker(TOKEN, bot.login)));
    expect(login.script).toContain("id='41898282'");
    expect(login.script).not.toContain("gh api");
  });

  it("answers a token with no bot to commit as with an error that says so, and runs nothing", async () => {
    const { container, commands } = setup({
      bot: () => {
        throw new BotIdentityError(MISSING_BOT_ERROR);
      }
    });
    await expect(commands.run("echo never", 10_000)).rejects.toThrow(/bot identity is missing.*BOT_LOGIN/);
    expect(container.runs).toEqual([]);
  });

  it("runs without a guard when there is no token (local dev)", async () => {
    const { container, commands } = setup({
      token: "",
      bot: () => {
        throw new Error("no token: the bot is never asked");
      }
    });
    expect(await commands.run("echo plain", 10_000)).toMatchObject({ exitCode: 0 });
    expect(container.runs.map((run) => run.script.includes("needs-git-auth"))).toEqual([false]);
    expect(container.auths()).toEqual([]);
  });

  it("answers a failed login as an error and does not run the command", async () => {
    const { container, commands, setRunner } = setup();
    setRunner({
      run: async (script, options) =>
        script.includes("gh auth login") ? { exitCode: 4, stdout: "", stderr: "gh: bad credentials" } : container.run(script, options)
    });
    expect(await commands.run("echo never", 10_000)).toEqual({ backend: "container", error: "git auth failed (exit 4): gh: bad credentials" });
    expect(container.commands()).toEqual([]);
  });

  it("gives a retired container back and runs the command on a fresh one", async () => {
    const { container, commands, turnCalls, reconnects } = setup({ token: "" });
    container.failNextWith("connect failed at stage=start lastError=sandbox sandbox-1 was stopped and is never started again");
    expect(await commands.run("echo again", 10_000)).toMatchObject({ exitCode: 0, stdout: { text: "again\n" } });
    expect(turnCalls).toEqual(["sandbox:1", "retired:sandbox-1", "sandbox:2"]);
    expect(reconnects()).toBe(1);
  });

  it("lets a release wait for the commands still running, and stops waiting at its bound", async () => {
    const { container, commands } = setup({ token: "" });
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
