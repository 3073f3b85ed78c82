/**
 * Who the bot is (src/run/bot-identity.ts): the run's identity as GitHub
 * named it, else a configured BOT_LOGIN (login only), else in local dev the
 * stand-in's bot, else an error that says what is missing. Never a quiet
 * default in production.
 */
import { describe, expect, it } from "vitest";
import {
  assertBotFor,
  BotIdentityError,
  DEFAULT_BOT_LOGIN,
  MISSING_BOT_ERROR,
  requireBot,
  resolveBot
} from "../../src/run/bot-identity";

const GITHUB_SAYS = { login: "acme-think[bot]", id: 41898282 };
const PRODUCTION = { LOCAL_DEV: "" };

describe("resolveBot", () => {
  it("takes the run's identity, login and id, over any configuration", () => {
    expect(resolveBot(GITHUB_SAYS, { BOT_LOGIN: "other[bot]", LOCAL_DEV: "1" })).toEqual({ ok: true, bot: GITHUB_SAYS, source: "run" });
    expect(resolveBot(GITHUB_SAYS, PRODUCTION)).toEqual({ ok: true, bot: GITHUB_SAYS, source: "run" });
  });

  it("falls back on a configured BOT_LOGIN, the login only", () => {
    expect(resolveBot(undefined, { BOT_LOGIN: "widget-fixer[bot]", LOCAL_DEV: "" })).toEqual({
      ok: true,
      bot: { login: "widget-fixer[bot]" },
      source: "BOT_LOGIN"
    });
  });

  it("gives the stand-in's bot in local dev only", () => {
    expect(resolveBot(undefined, { LOCAL_DEV: "1" })).toEqual({ ok: true, bot: { login: DEFAULT_BOT_LOGIN }, source: "local-dev" });
    expect(resolveBot(undefined, { BOT_LOGIN: "", LOCAL_DEV: "1" })).toMatchObject({ ok: true, source: "local-dev" });
  });

  it("refuses production with neither, saying what is missing and how to supply it", () => {
    for (const config of [PRODUCTION, {}, { BOT_LOGIN: "", LOCAL_DEV: "0" }]) {
      const resolved = resolveBot(undefined, config);
      expect(resolved).toEqual({ ok: false, error: MISSING_BOT_ERROR });
    }
    expect(MISSING_BOT_ERROR).toMatch(/webhook app sends it with each dispatch/);
    expect(MISSING_BOT_ERROR).toMatch(/set BOT_LOGIN/);
  });

  it("names BOT_LOGIN when it is set but is not a bot login, even in local dev", () => {
    for (const value of ["agent-think", "agent think[bot]", "[bot]", "x'; reboot #[bot]"]) {
      const resolved = resolveBot(undefined, { BOT_LOGIN: value, LOCAL_DEV: "1" });
      expect(resolved.ok).toBe(false);
      expect(!resolved.ok && resolved.error).toMatch(/^BOT_LOGIN /);
    }
  });
});

describe("requireBot and assertBotFor", () => {
  it("throw a typed error, with a code, when there is no identity", () => {
    const error = (() => {
      try {
        requireBot(undefined, PRODUCTION);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(BotIdentityError);
    expect(error).toMatchObject({ name: "BotIdentityError", code: "bot_identity_missing", message: MISSING_BOT_ERROR });
    expect(requireBot(GITHUB_SAYS, PRODUCTION)).toEqual(GITHUB_SAYS);
  });

  it("ask an identity only of a run that holds a token", () => {
    expect(() => assertBotFor("ghs_token000", undefined, PRODUCTION)).toThrow(BotIdentityError);
    expect(() => assertBotFor("", undefined, PRODUCTION)).not.toThrow();
    expect(() => assertBotFor("ghs_token000", GITHUB_SAYS, PRODUCTION)).not.toThrow();
    expect(() => assertBotFor("ghs_token000", undefined, { BOT_LOGIN: "acme-think[bot]" })).not.toThrow();
  });
});
