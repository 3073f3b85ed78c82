/** Configuration and the commenter gates: pure rules, no runtime needed. */
import { describe, expect, it } from "vitest";
import { acceptsCiFix, ConfigError, DEFAULT_MAX_BODY_BYTES, isAllowedRepo, readConfig } from "../src/config";
import { gateCommenter, gatePermission } from "../src/gates";

const VARS = { GITHUB_API_URL: "https://api.github.com/", ALLOWED_REPOS: "Acme/Widgets, cloudflare/agents ,", BOT_LOGIN: "Agent-Think[bot]" };

describe("readConfig", () => {
  it("reads the vars, with no handle unless MENTION_HANDLE is set (the App's @<slug> is then learned), and a default size limit", () => {
    const config = readConfig(VARS);
    expect(config.apiUrl).toBe("https://api.github.com");
    expect(config.handle).toBe("");
    expect(readConfig({ ...VARS, MENTION_HANDLE: "  " }).handle).toBe("");
    expect(readConfig({ ...VARS, MENTION_HANDLE: " @Agent-Think " }).handle).toBe("@agent-think");
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

  it("reads CI_FIX_REPOS as ALLOWED_REPOS, or * for every allowed repository; unset or empty accepts none", () => {
    expect(readConfig(VARS).ciFixRepos).toEqual(new Set());
    expect(acceptsCiFix(readConfig(VARS), "acme/widgets")).toBe(false);
    expect(acceptsCiFix(readConfig({ ...VARS, CI_FIX_REPOS: "" }), "acme/widgets")).toBe(false);
    const listed = readConfig({ ...VARS, CI_FIX_REPOS: " ACME/widgets ," });
    expect([...(listed.ciFixRepos as Set<string>)]).toEqual(["acme/widgets"]);
    expect(acceptsCiFix(listed, "Acme/Widgets")).toBe(true);
    expect(acceptsCiFix(listed, "cloudflare/agents")).toBe(false);
    const all = readConfig({ ...VARS, CI_FIX_REPOS: " * " });
    expect(all.ciFixRepos).toBe("all");
    expect(acceptsCiFix(all, "cloudflare/agents")).toBe(true);
    // Never beyond the allowlist, listed or not.
    expect(acceptsCiFix(all, "evil/widgets")).toBe(false);
    expect(acceptsCiFix(readConfig({ ...VARS, CI_FIX_REPOS: "evil/widgets" }), "evil/widgets")).toBe(false);
  });

  it("refuses an unusable value, naming the variable", () => {
    const bad = [
      [{ GITHUB_API_URL: "api.github.com" }, "GITHUB_API_URL"],
      [{ MENTION_HANDLE: "@agent think" }, "MENTION_HANDLE"],
      [{ ALLOWED_REPOS: "acme" }, "ALLOWED_REPOS"],
      [{ CI_FIX_REPOS: "acme" }, "CI_FIX_REPOS"],
      [{ CI_FIX_REPOS: "*, acme/widgets" }, "CI_FIX_REPOS"],
      [{ CI_FIX_REPOS: "**" }, "CI_FIX_REPOS"],
      [{ MAX_BODY_BYTES: "lots" }, "MAX_BODY_BYTES"],
      [{ BOT_LOGIN: "agent-think" }, "BOT_LOGIN"],
      [{ BOT_LOGIN: "agent think[bot]" }, "BOT_LOGIN"],
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

  it("asks GitHub about every person, whatever the payload's association: it is not an argument", () => {
    expect(gateCommenter(user("Octocat"), "agent-think[bot]")).toEqual({ verdict: "ask_permission", login: "Octocat" });
    expect(gateCommenter(user("mona_acme"), "agent-think[bot]")).toEqual({ verdict: "ask_permission", login: "mona_acme" });
    expect(gateCommenter.length).toBe(2);
  });

  it("refuses a deleted account without asking", () => {
    expect(gateCommenter(null, "agent-think[bot]")).toEqual({ verdict: "refused", reason: "not_trusted" });
  });

  it("refuses the App's own bot and every other bot, before anything is asked", () => {
    expect(gateCommenter(user("Agent-Think[bot]", "Bot"), "agent-think[bot]")).toEqual({ verdict: "refused", reason: "own_bot" });
    expect(gateCommenter(user("dependabot[bot]", "Bot"), "agent-think[bot]")).toEqual({ verdict: "refused", reason: "bot" });
    expect(gateCommenter(user("renovate[bot]"), "")).toEqual({ verdict: "refused", reason: "bot" });
    expect(gateCommenter(user("ci-machine", "Bot"), "")).toEqual({ verdict: "refused", reason: "bot" });
  });
});

describe("gatePermission", () => {
  // As GitHub answers: `permission` is the legacy base role, `role_name` the role itself.
  it.each([
    [{ permission: "admin", roleName: "admin" }],
    [{ permission: "write", roleName: "maintain" }],
    [{ permission: "write", roleName: "write" }],
    [{ permission: "write", roleName: "release-manager" }]
  ])("lets write, maintain and admin through: %j", (answer) => expect(gatePermission(answer)).toEqual({ ok: true }));

  it.each([
    [{ permission: "read", roleName: "triage" }, "insufficient_permission"],
    [{ permission: "read", roleName: "read" }, "insufficient_permission"],
    [{ permission: "none", roleName: "none" }, "insufficient_permission"],
    // role_name alone never lets anyone through: a custom role may be called anything.
    [{ permission: "read", roleName: "maintain" }, "insufficient_permission"],
    [{ permission: "WRITE", roleName: null }, "insufficient_permission"],
    [{ permission: "", roleName: null }, "insufficient_permission"],
    [null, "not_collaborator"]
  ] as const)("refuses %j: %s", (answer, reason) => expect(gatePermission(answer)).toEqual({ ok: false, reason }));
});
