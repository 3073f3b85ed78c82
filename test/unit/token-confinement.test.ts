/**
 * Token confinement's pure parts: what is redacted (redact.ts), the console
 * every library prints through (console-guard.ts), tool results
 * (tools/confine.ts) and the run's token as the agent holds it
 * (run/run-token.ts). The same against real turns: test/token-confinement.test.ts.
 */
import { tool, type Tool } from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { guardConsole, redactArgument, SecretRegistry, type GuardableConsole } from "../../src/run/console-guard";
import { holdsSecret, REDACTED, redactDeep, redactSecrets } from "../../src/run/redact";
import { RunToken } from "../../src/run/run-token";
import { confineTools } from "../../src/tools/confine";

const RUN = "run-canary-0123456789";
const GHS = `ghs_${"A1b2".repeat(9)}`;
const PAT = `github_pat_${"C".repeat(22)}_${"d".repeat(59)}`;

describe("redactSecrets", () => {
  it.each([
    ["an installation token", GHS],
    ["a classic PAT", `ghp_${"x".repeat(36)}`],
    ["an OAuth token", `gho_${"y".repeat(36)}`],
    ["a user token", `ghu_${"z".repeat(36)}`],
    ["a refresh token", `ghr_${"w".repeat(76)}`],
    ["a fine-grained PAT", PAT],
    ["the run's own token, whatever its shape", RUN]
  ])("removes %s wherever it stands", (_what, secret) => {
    for (const text of [secret, `Bearer ${secret}`, `x${secret}y`, `"${secret}"\n`, `token=${secret}&a=1`]) {
      const out = redactSecrets(text, [RUN]);
      expect(out).not.toContain(secret);
      expect(out).toContain(REDACTED);
      expect(holdsSecret(text, [RUN])).toBe(true);
    }
  });

  it("leaves ordinary text, short secrets and near misses alone", () => {
    for (const text of ["ghs_short", "the ghs_ prefix", "github_pat_", "a plain sentence"]) {
      expect(redactSecrets(text, ["short"])).toBe(text);
      expect(holdsSecret(text, ["short"])).toBe(false);
    }
  });

  it("redacts every string inside data, keeping the rest and returning data with nothing to redact as it was", () => {
    const value = { stdout: { text: `token ${GHS}`, totalBytes: 60 }, list: ["ok", RUN], n: 3, nested: { deep: [{ s: PAT }] } };
    expect(redactDeep(value, [RUN])).toEqual({
      stdout: { text: `token ${REDACTED}`, totalBytes: 60 },
      list: ["ok", REDACTED],
      n: 3,
      nested: { deep: [{ s: REDACTED }] }
    });
    const clean = { a: ["b", { c: 1 }] };
    expect(redactDeep(clean, [RUN])).toBe(clean);
  });
});

describe("guardConsole", () => {
  function fakeConsole() {
    const printed: unknown[][] = [];
    const record = (...args: unknown[]) => void printed.push(args);
    const target: GuardableConsole = { log: record, info: record, warn: record, error: record, debug: record, trace: record };
    return { target, printed };
  }

  it("redacts what a library prints, in strings, errors and objects, and passes the rest untouched", () => {
    const { target, printed } = fakeConsole();
    const secrets = new SecretRegistry();
    secrets.add(RUN);
    guardConsole(target, () => secrets.list());
    const cause = new Error(`provider said ${GHS}`);
    const failure = Object.assign(new Error("Submission failed", { cause }), { responseBody: `{"echo":"${RUN}"}` });
    const plain = { keep: "me" };
    target.error("[Think] Submission failed:", failure);
    target.warn({ headers: { authorization: `token ${RUN}` } });
    target.log(`${RUN} in a line`, plain, 7);

    const all = JSON.stringify(printed.map((args) => args.map((arg) => (arg instanceof Error ? `${arg.stack} ${arg.message}` : arg))));
    expect(all).not.toContain(RUN);
    expect(all).not.toContain(GHS);
    expect(printed[0]![0]).toBe("[Think] Submission failed:");
    expect(String(printed[0]![1])).toContain("Submission failed");
    expect(String(printed[0]![1])).toContain(REDACTED);
    expect(printed[2]).toEqual([`${REDACTED} in a line`, plain, 7]);
    expect(printed[2]![1]).toBe(plain);
  });

  it("guards a console once, and keeps only the newest secrets", () => {
    const { target, printed } = fakeConsole();
    guardConsole(target, () => [RUN]);
    guardConsole(target, () => []);
    target.log(RUN);
    expect(printed).toEqual([[REDACTED]]);

    const small = new SecretRegistry(2);
    for (const secret of ["secret-one-1", "secret-two-2", "secret-three-3", "secret-two-2", "tiny"]) small.add(secret);
    expect(small.list()).toEqual(["secret-three-3", "secret-two-2"]);
    expect(redactArgument(Symbol.for("x"), [RUN])).toBe(Symbol.for("x"));
  });
});

describe("confineTools", () => {
  const redact = <T,>(value: T) => redactDeep(value, [RUN]);

  it("redacts results, thrown errors and streamed results, and leaves tools without execute alone", async () => {
    const tools = confineTools(
      {
        bash: tool({ inputSchema: z.object({}), execute: async () => ({ stdout: { text: `${GHS}\n` }, exitCode: 0 }) }),
        read: tool({ inputSchema: z.object({}), execute: async () => `file: ${RUN}` }),
        failing: tool({
          inputSchema: z.object({}),
          execute: async (): Promise<string> => {
            throw new TypeError(`could not use ${RUN}`);
          }
        }),
        streaming: tool({
          inputSchema: z.object({}),
          execute: async function* () {
            yield { progress: "half" };
            yield { done: `with ${PAT}` };
          }
        }),
        client: tool({ inputSchema: z.object({}) })
      },
      redact
    );
    const options = { toolCallId: "c1", messages: [], context: undefined } as unknown as Parameters<NonNullable<Tool["execute"]>>[1];
    expect(await tools.bash!.execute!({}, options)).toEqual({ stdout: { text: `${REDACTED}\n` }, exitCode: 0 });
    expect(await tools.read!.execute!({}, options)).toBe(`file: ${REDACTED}`);
    await expect(Promise.resolve(tools.failing!.execute!({}, options))).rejects.toThrow(`could not use ${REDACTED}`);
    await expect(Promise.resolve(tools.failing!.execute!({}, options))).rejects.toMatchObject({ name: "TypeError" });
    const streamed: unknown[] = [];
    for await (const part of tools.streaming!.execute!({}, options) as AsyncIterable<unknown>) streamed.push(part);
    expect(streamed).toEqual([{ progress: "half" }, { done: `with ${REDACTED}` }]);
    expect(tools.streaming!.execute!.constructor.name).toBe("AsyncGeneratorFunction");
    expect(tools.client!.execute).toBeUndefined();
  });
});

describe("RunToken", () => {
  function runToken(stored = RUN) {
    let context: { installationToken: string } | undefined = { installationToken: stored };
    const secrets = new SecretRegistry();
    const minted: string[] = [];
    const retired: string[] = [];
    const token = new RunToken({
      runs: {
        get: async () => context as never,
        setToken: async (next: string) => (context ? (context = { installationToken: next }) : null) as never
      },
      mint: async (repo) => {
        minted.push(repo);
        return { token: "ghs_minted_after_401_0000000" };
      },
      secrets,
      now: () => 1,
      log: () => {},
      retired: (old) => retired.push(old)
    });
    return { token, secrets, minted, retired, drop: () => (context = undefined) };
  }

  it("holds the stored token, registers every token it holds, and redacts it", async () => {
    const { token, secrets } = runToken();
    expect(await token.load()).toBe(RUN);
    expect(token.redact(`a ${RUN} b`)).toBe(`a ${REDACTED} b`);
    expect(token.redactDeep({ x: [RUN] })).toEqual({ x: [REDACTED] });
    expect(await token.replace("second-token-000000")).not.toBeNull();
    expect(token.value).toBe("second-token-000000");
    expect(secrets.list()).toEqual([RUN, "second-token-000000"]);
  });

  it("refreshes from the broker, hands the token it replaced back for revocation, and forgets", async () => {
    const { token, minted, drop, retired } = runToken();
    await token.load();
    expect(await token.refresh("acme/widgets")).toBe("ghs_minted_after_401_0000000");
    expect(minted).toEqual(["acme/widgets"]);
    expect(retired).toEqual([RUN]);
    drop();
    expect(await token.refresh("acme/widgets")).toBeNull();
    expect(token.clear()).toBe("ghs_minted_after_401_0000000");
    expect(token.value).toBe("");
    expect(token.secrets()).toEqual([]);
    // Clearing is not replacing: nothing more was handed back.
    expect(retired).toEqual([RUN]);
  });
});
