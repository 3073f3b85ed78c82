/**
 * The run token's renewal rule (src/run/run-token.ts) over a real
 * RunContextStore (src/run/run-context.ts) on in-memory storage, with a fake
 * clock and a fake broker: a token is renewed before it expires, never when
 * it has time left or is empty, a failed renewal keeps the current token,
 * and every renewal stores the new expiry. The same in a real turn:
 * test/token-expiry.test.ts.
 */
import { describe, expect, it } from "vitest";
import { SecretRegistry } from "../../src/run/console-guard";
import {
  INSTALLATION_TOKEN_LIFETIME_MS,
  RunContextStore,
  tokenExpiry,
  type RunContext,
  type RunContextStorage
} from "../../src/run/run-context";
import { RunToken, TOKEN_REFRESH_MARGIN_MS, TOKEN_REFRESH_RETRY_MS, type MintedToken } from "../../src/run/run-token";

const T0 = Date.parse("2025-06-01T12:00:00Z");
const OLD = "ghs_old_token_000000000000000";
const NEW = "ghs_new_token_111111111111111";
const NEW_EXPIRY = "2025-06-01T14:00:00Z";

class MemoryStorage implements RunContextStorage {
  readonly map = new Map<string, unknown>();
  async get<T>(key: string) {
    return this.map.get(key) as T | undefined;
  }
  async put<T>(key: string, value: T) {
    this.map.set(key, structuredClone(value));
  }
  async delete(key: string) {
    return this.map.delete(key);
  }
}

type Broker = (repo: string) => Promise<MintedToken>;

/** A run whose token is `token`, received at T0, expiring at `expiresAt` (ms; undefined: as stored before expiries were kept). */
async function setup(options: { token?: string; expiresAt?: number; broker?: Broker; bot?: RunContext["bot"] } = {}) {
  let now = T0;
  const storage = new MemoryStorage();
  const runs = new RunContextStore(storage);
  const run: RunContext = {
    repo: "acme/widgets",
    issueNumber: 7,
    instruction: "open a PR",
    installationToken: options.token ?? OLD,
    ...(options.expiresAt === undefined ? {} : { tokenExpiresAt: options.expiresAt }),
    ...(options.bot ? { bot: options.bot } : {}),
    updatedAt: T0
  };
  await runs.put(run);
  const minted: string[] = [];
  const logs: Array<{ event: string; fields: Record<string, unknown> }> = [];
  const secrets = new SecretRegistry();
  const broker: Broker = options.broker ?? (async () => ({ token: NEW, expiresAt: NEW_EXPIRY }));
  const token = new RunToken({
    runs,
    mint: (repo) => {
      minted.push(repo);
      return broker(repo);
    },
    secrets,
    now: () => now,
    log: (event, fields) => void logs.push({ event, fields })
  });
  return {
    token,
    runs,
    minted,
    logs,
    secrets,
    stored: async () => (await runs.get())!,
    advanceTo: (at: number) => void (now = at)
  };
}

describe("RunToken.fresh", () => {
  it("renews a token with less than the margin left, stores the new one with its expiry, and holds it", async () => {
    const { token, minted, logs, secrets, stored } = await setup({ expiresAt: T0 + TOKEN_REFRESH_MARGIN_MS });
    expect(await token.fresh()).toBe(NEW);
    expect(minted).toEqual(["acme/widgets"]);
    expect(await stored()).toMatchObject({ installationToken: NEW, tokenExpiresAt: Date.parse(NEW_EXPIRY), updatedAt: T0 });
    expect(token.value).toBe(NEW);
    expect(secrets.list()).toContain(NEW);
    expect(logs).toEqual([{ event: "token:refreshed", fields: { reason: "expiring", expiresAt: NEW_EXPIRY } }]);
    expect(await token.fresh()).toBe(NEW);
    expect(minted).toHaveLength(1);
  });

  it("renews an expired token", async () => {
    const { token, minted } = await setup({ expiresAt: T0 - 1 });
    expect(await token.fresh()).toBe(NEW);
    expect(minted).toHaveLength(1);
  });

  it("keeps a token with more than the margin left, without asking the broker", async () => {
    const { token, minted, logs, stored } = await setup({ expiresAt: T0 + TOKEN_REFRESH_MARGIN_MS + 1 });
    expect(await token.fresh()).toBe(OLD);
    expect(token.value).toBe(OLD);
    expect(minted).toEqual([]);
    expect(logs).toEqual([]);
    expect((await stored()).installationToken).toBe(OLD);
  });

  it("counts a token of unknown expiry from when it was received: one hour", async () => {
    const { token, runs, minted, advanceTo, stored } = await setup({ expiresAt: T0 + 10 * INSTALLATION_TOKEN_LIFETIME_MS });
    const received = T0 + 5_000;
    await runs.setToken("ghs_continued_22222222222222", received);
    expect((await stored()).tokenExpiresAt).toBe(received + INSTALLATION_TOKEN_LIFETIME_MS);
    advanceTo(received + INSTALLATION_TOKEN_LIFETIME_MS - TOKEN_REFRESH_MARGIN_MS - 1);
    expect(await token.fresh()).toBe("ghs_continued_22222222222222");
    expect(minted).toEqual([]);
    advanceTo(received + INSTALLATION_TOKEN_LIFETIME_MS - TOKEN_REFRESH_MARGIN_MS);
    expect(await token.fresh()).toBe(NEW);
    expect(minted).toHaveLength(1);
  });

  it("counts a context stored without an expiry from its last update", async () => {
    const { token, minted, advanceTo } = await setup();
    advanceTo(T0 + INSTALLATION_TOKEN_LIFETIME_MS - TOKEN_REFRESH_MARGIN_MS - 1);
    expect(await token.fresh()).toBe(OLD);
    advanceTo(T0 + INSTALLATION_TOKEN_LIFETIME_MS - TOKEN_REFRESH_MARGIN_MS);
    expect(await token.fresh()).toBe(NEW);
    expect(minted).toHaveLength(1);
  });

  it("keeps the current token when the broker fails, logs why, and asks again only after a pause", async () => {
    let failing = true;
    const { token, minted, logs, stored, advanceTo } = await setup({
      expiresAt: T0 + 60_000,
      broker: async () => {
        if (failing) throw new Error("agent-think-ingress token broker: the GitHub App is not installed on acme/widgets");
        return { token: NEW, expiresAt: NEW_EXPIRY };
      }
    });
    expect(await token.fresh()).toBe(OLD);
    expect(token.value).toBe(OLD);
    expect((await stored()).installationToken).toBe(OLD);
    expect(logs).toEqual([
      {
        event: "github:token-refresh-failed",
        fields: { reason: "expiring", error: "agent-think-ingress token broker: the GitHub App is not installed on acme/widgets" }
      }
    ]);
    advanceTo(T0 + TOKEN_REFRESH_RETRY_MS - 1);
    expect(await token.fresh()).toBe(OLD);
    expect(minted).toHaveLength(1);
    failing = false;
    advanceTo(T0 + TOKEN_REFRESH_RETRY_MS);
    expect(await token.fresh()).toBe(NEW);
    expect(minted).toHaveLength(2);
  });

  it("keeps the current token when the broker answers an empty one (local dev without the webhook app)", async () => {
    const { token, logs, stored } = await setup({ expiresAt: T0, broker: async () => ({ token: "" }) });
    expect(await token.fresh()).toBe(OLD);
    expect((await stored()).installationToken).toBe(OLD);
    expect(logs.map((line) => line.event)).toEqual(["github:token-refresh-failed"]);
  });

  it("never renews an empty token (local dev: no GitHub access)", async () => {
    const { token, minted } = await setup({ token: "", expiresAt: T0 - INSTALLATION_TOKEN_LIFETIME_MS });
    expect(await token.fresh()).toBe("");
    expect(minted).toEqual([]);
  });

  it("renews once for callers that ask at the same time", async () => {
    const { token, minted } = await setup({ expiresAt: T0 });
    expect(await Promise.all([token.fresh(), token.fresh(), token.refresh("acme/widgets")])).toEqual([NEW, NEW, NEW]);
    expect(minted).toHaveLength(1);
  });

  it("returns an empty token without a run", async () => {
    const { token, runs, minted } = await setup({ expiresAt: T0 });
    await runs.clear();
    expect(await token.fresh()).toBe("");
    expect(minted).toEqual([]);
  });
});

describe("RunToken.refresh (after a 401)", () => {
  it("renews whatever the expiry and stores the new token's", async () => {
    const { token, stored, logs } = await setup({ expiresAt: T0 + INSTALLATION_TOKEN_LIFETIME_MS });
    expect(await token.refresh("acme/widgets")).toBe(NEW);
    expect(await stored()).toMatchObject({ installationToken: NEW, tokenExpiresAt: Date.parse(NEW_EXPIRY) });
    expect(logs.map((line) => line.fields.reason)).toEqual(["unauthorized"]);
  });

  it("counts a new token of unknown expiry from now", async () => {
    const { token, stored, advanceTo } = await setup({ broker: async () => ({ token: NEW }) });
    advanceTo(T0 + 42_000);
    expect(await token.refresh("acme/widgets")).toBe(NEW);
    expect((await stored()).tokenExpiresAt).toBe(T0 + 42_000 + INSTALLATION_TOKEN_LIFETIME_MS);
  });

  it("answers null, never throws, when the broker fails", async () => {
    const { token, logs } = await setup({
      broker: async () => {
        throw new Error("broker down");
      }
    });
    expect(await token.refresh("acme/widgets")).toBeNull();
    expect(token.value).toBe("");
    expect(logs).toEqual([{ event: "github:token-refresh-failed", fields: { reason: "unauthorized", error: "broker down" } }]);
  });
});

describe("the App's bot that comes with a token", () => {
  const DISPATCHED = { login: "agent-think[bot]", id: 100 };
  const RENAMED = { login: "agent-think-two[bot]", id: 200 };

  it("becomes the run's when a renewal names it", async () => {
    const { token, stored } = await setup({ expiresAt: T0, bot: DISPATCHED, broker: async () => ({ token: NEW, expiresAt: NEW_EXPIRY, bot: RENAMED }) });
    expect(await token.fresh()).toBe(NEW);
    expect(await stored()).toMatchObject({ installationToken: NEW, bot: RENAMED });
  });

  it("is given to a run that had none", async () => {
    const { token, stored } = await setup({ expiresAt: T0, broker: async () => ({ token: NEW, bot: RENAMED }) });
    expect(await token.refresh("acme/widgets")).toBe(NEW);
    expect((await stored()).bot).toEqual(RENAMED);
  });

  it("stores the renewal's bot with the fresh token, not the one before it", async () => {
    const { token, stored } = await setup({ expiresAt: T0, bot: DISPATCHED, broker: async () => ({ token: NEW, expiresAt: NEW_EXPIRY, bot: RENAMED }) });
    expect(await token.fresh()).toBe(NEW);
    expect((await stored()).bot).toEqual(RENAMED);
  });

  it("leaves the run's as it was when the broker names none (an older broker)", async () => {
    const { token, stored } = await setup({ expiresAt: T0, bot: DISPATCHED });
    expect(await token.fresh()).toBe(NEW);
    expect((await stored()).bot).toEqual(DISPATCHED);
    expect(await token.replace("ghs_continued_22222222222222")).toMatchObject({ bot: DISPATCHED });
    expect(await token.replace("ghs_continued_33333333333333", undefined, RENAMED)).toMatchObject({ bot: RENAMED });
  });
});

describe("tokenExpiry", () => {
  it("takes the sender's expiry, or one lifetime after receipt when it is unknown or does not parse", () => {
    expect(tokenExpiry(T0, "2025-06-01T12:30:00+02:00")).toBe(Date.parse("2025-06-01T10:30:00Z"));
    expect(tokenExpiry(T0)).toBe(T0 + INSTALLATION_TOKEN_LIFETIME_MS);
    expect(tokenExpiry(T0, "soon")).toBe(T0 + INSTALLATION_TOKEN_LIFETIME_MS);
  });
});
