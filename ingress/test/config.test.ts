/** Configuration and the commenter gate: pure rules, no runtime needed. */
import { describe, expect, it } from "vitest";
import { ConfigError, DEFAULT_MAX_BODY_BYTES, isAllowedRepo, readConfig } from "../src/config";
import { gateCommenter } from "../src/gates";

const VARS = { GITHUB_API_URL: "https://api.github.com/", ALLOWED_REPOS: "Acme/Widgets, cloudflare/agents ,", BOT_LOGIN: "Agent-Think[bot]" };

describe("readConfig", () => {
  it("reads the vars, with defaults for the handle and the size limit", () => {
    const config = readConfig(VARS);
    expect(config.apiUrl).toBe("https://api.github.com");
    expect(config.handle).toBe("@agent-think");
    expect([...config.allowedRepos]).toEqual(["acme/widgets", "cloudflare/agents"]);
    expect(config.botLogin).toBe("agent-think[bot]");
    expect(config.maxBodyBytes).toBe(DEFAULT_MAX_BODY_BYTES);
  });

  it("matches the allowlist case-insensitively and exactly", () => {
    const config = readConfig(VARS);
    expect(isAllowedRepo(config, "ACME/widgets")).toBe(true);
    expect(isAllowedRepo(config, "acme/widgets-fork")).toBe(false);
    expect(isAllowedRepo(readConfig({ ...VARS, ALLOWED_REPOS: "" }), "acme/widgets")).toBe(false);
  });

  it("refuses an unusable value, naming the variable", () => {
    const bad = [
      [{ GITHUB_API_URL: "api.github.com" }, "GITHUB_API_URL"],
      [{ MENTION_HANDLE: "@agent think" }, "MENTION_HANDLE"],
      [{ ALLOWED_REPOS: "acme" }, "ALLOWED_REPOS"],
      [{ MAX_BODY_BYTES: "lots" }, "MAX_BODY_BYTES"],
      [{ MAX_BODY_BYTES: "10" }, "MAX_BODY_BYTES"]
    ] as const;
    for (const [vars, variable] of bad) {
      let caught: unknown;
      try {
        readConfig({ ...VARS, ...vars });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ConfigError);
      expect((caught as ConfigError).variable).toBe(variable);
    }
  });
});

describe("gateCommenter", () => {
  const user = (login: string, type = "User") => ({ login, type });

  it("lets owners, members and collaborators through", () => {
    for (const association of ["OWNER", "MEMBER", "COLLABORATOR"]) {
      expect(gateCommenter(user("Octocat"), association, "agent-think[bot]")).toEqual({ ok: true, login: "Octocat" });
    }
  });

  it("refuses everyone else", () => {
    for (const association of ["CONTRIBUTOR", "FIRST_TIMER", "FIRST_TIME_CONTRIBUTOR", "MANNEQUIN", "NONE", "owner"]) {
      expect(gateCommenter(user("octocat"), association, "agent-think[bot]")).toEqual({ ok: false, reason: "not_trusted" });
    }
    expect(gateCommenter(null, "OWNER", "agent-think[bot]")).toEqual({ ok: false, reason: "not_trusted" });
  });

  it("refuses the App's own bot and every other bot, whatever their standing", () => {
    expect(gateCommenter(user("Agent-Think[bot]", "Bot"), "OWNER", "agent-think[bot]")).toEqual({ ok: false, reason: "own_bot" });
    expect(gateCommenter(user("dependabot[bot]", "Bot"), "MEMBER", "agent-think[bot]")).toEqual({ ok: false, reason: "bot" });
    expect(gateCommenter(user("renovate[bot]"), "MEMBER", "")).toEqual({ ok: false, reason: "bot" });
    expect(gateCommenter(user("ci-machine", "Bot"), "COLLABORATOR", "")).toEqual({ ok: false, reason: "bot" });
  });
});
