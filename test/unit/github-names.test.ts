/**
 * GitHub's naming rules (src/shared/repo.ts), one case per rule: logins as
 * GitHub gives them out today, accounts kept from before that rule,
 * Enterprise Managed Users, App bots, and repository names, each refusal
 * with the reason a caller shows.
 */
import { describe, expect, it } from "vitest";
import { checkActorLogin, checkBotLogin, checkLogin, checkRepoName, parseRepo } from "../../src/shared/repo";

const reasonOf = (check: { ok: true } | { ok: false; reason: string }) => (check.ok ? "ok" : check.reason);

describe("logins", () => {
  it.each([
    ["octocat", "letters"],
    ["a", "one character"],
    ["0", "one digit"],
    ["mona-lisa-the-cat", "single inner hyphens"],
    ["Octo-Cat42", "capitals (GitHub keeps the case)"],
    ["a".repeat(39), "39 characters"]
  ])("accepts today's signup rule: %s (%s)", (login) => expect(reasonOf(checkLogin(login))).toBe("ok"));

  it.each([
    ["artur-", "ends in a hyphen"],
    ["-ACE-", "begins and ends with one"],
    ["0----0", "a run of hyphens"],
    [`0${"-".repeat(38)}`, "39 characters, mostly hyphens"]
  ])("accepts accounts kept from before that rule: %s (%s)", (login) => expect(reasonOf(checkLogin(login))).toBe("ok"));

  it.each([
    ["mona_acme", "handle_shortcode"],
    ["mona-cat_octo", "GitHub's own example"],
    ["octo_admin", "the setup user, SHORT-CODE_admin"],
    ["2abvd19d_admin", "a GHE.com setup user (random short code)"],
    ["m_abc", "a three-character short code"],
    ["m_abcdefgh", "an eight-character one"],
    [`${"a".repeat(30)}_${"b".repeat(8)}`, "39 characters, underscore and short code counted"]
  ])("accepts Enterprise Managed Users: %s (%s)", (login) => expect(reasonOf(checkLogin(login))).toBe("ok"));

  it.each([
    ["", "must not be empty"],
    ["a".repeat(40), "must be at most 39 characters"],
    [`${"a".repeat(31)}_${"b".repeat(8)}`, "must be at most 39 characters"],
    ["---", "must be letters, digits and hyphens, or an Enterprise Managed User's handle_shortcode (such as mona_acme)"],
    ["mona.lisa", "must be letters, digits and hyphens, or an Enterprise Managed User's handle_shortcode (such as mona_acme)"],
    ["mona lisa", "must be letters, digits and hyphens, or an Enterprise Managed User's handle_shortcode (such as mona_acme)"],
    ["mönа", "must be letters, digits and hyphens, or an Enterprise Managed User's handle_shortcode (such as mona_acme)"],
    ["renovate[bot]", "must be letters, digits and hyphens, or an Enterprise Managed User's handle_shortcode (such as mona_acme)"],
    ["mona_ac", "must be an Enterprise Managed User's handle_shortcode, with a short code of 3-8 letters or digits"],
    ["mona_abcdefghi", "must be an Enterprise Managed User's handle_shortcode, with a short code of 3-8 letters or digits"],
    ["mona_", "must be an Enterprise Managed User's handle_shortcode, with a short code of 3-8 letters or digits"],
    ["mona_ac-me", "must be an Enterprise Managed User's handle_shortcode, with a short code of 3-8 letters or digits"],
    ["_acme", "must be an Enterprise Managed User's handle_shortcode, with a handle of letters, digits and single inner hyphens"],
    ["mona__acme", "must be an Enterprise Managed User's handle_shortcode, with a handle of letters, digits and single inner hyphens"],
    ["mona_lisa_acme", "must be an Enterprise Managed User's handle_shortcode, with a handle of letters, digits and single inner hyphens"],
    ["-mona_acme", "must be an Enterprise Managed User's handle_shortcode, with a handle of letters, digits and single inner hyphens"],
    ["mona-_acme", "must be an Enterprise Managed User's handle_shortcode, with a handle of letters, digits and single inner hyphens"],
    ["mo--na_acme", "must be an Enterprise Managed User's handle_shortcode, with a handle of letters, digits and single inner hyphens"]
  ])("refuses %j: %s", (login, reason) => expect(reasonOf(checkLogin(login))).toBe(reason));
});

describe("bot logins", () => {
  it.each(["agent-think[bot]", "dependabot[bot]", "github-actions[bot]", `${"a".repeat(34)}[bot]`])("accepts %s", (login) => {
    expect(reasonOf(checkBotLogin(login))).toBe("ok");
    expect(reasonOf(checkActorLogin(login))).toBe("ok");
  });

  it.each([
    ["agent-think", "must end in [bot]"],
    ["[bot]", "must be an App's slug (letters, digits and hyphens) followed by [bot]"],
    ["mona_acme[bot]", "must be an App's slug (letters, digits and hyphens) followed by [bot]"],
    ["agent think[bot]", "must be an App's slug (letters, digits and hyphens) followed by [bot]"],
    [`${"a".repeat(40)}[bot]`, "must be an App's slug (letters, digits and hyphens) followed by [bot]"]
  ])("refuses %j: %s", (login, reason) => expect(reasonOf(checkBotLogin(login))).toBe(reason));

  it("takes a commenter's login as an account's or a bot's", () => {
    expect(reasonOf(checkActorLogin("mona_acme"))).toBe("ok");
    expect(reasonOf(checkActorLogin("x[bot]x"))).not.toBe("ok");
  });
});

describe("repository names", () => {
  it.each([
    ["widgets", "letters"],
    [".github", "a leading dot"],
    ["a..b", "two dots inside"],
    ["...", "dots only, other than . and .."],
    ["-", "a hyphen alone"],
    ["_", "an underscore alone"],
    ["hello.world_x-1", "every allowed character"],
    ["x.gitignore", ".git not at the end"],
    ["b".repeat(100), "100 characters"]
  ])("accepts %s (%s)", (name) => expect(reasonOf(checkRepoName(name))).toBe("ok"));

  it.each([
    ["", "must not be empty"],
    [".", 'must not be "."'],
    ["..", 'must not be ".."'],
    ["b".repeat(101), "must be at most 100 characters"],
    ["a b", "must be ASCII letters, digits, '.', '-' or '_'"],
    ["naïve", "must be ASCII letters, digits, '.', '-' or '_'"],
    ["a?b", "must be ASCII letters, digits, '.', '-' or '_'"],
    ["widgets.git", "must not end in .git (GitHub drops it from a repository's name: leave it out)"],
    ["widgets.wiki", "must not end in .wiki"]
  ])("refuses %j: %s", (name, reason) => expect(reasonOf(checkRepoName(name))).toBe(reason));
});

describe("parseRepo", () => {
  it("accepts an Enterprise Managed User's own repository and keeps the spelling", () => {
    expect(parseRepo("octocat_acme/widgets")).toEqual({ ok: true, owner: "octocat_acme", name: "widgets" });
    expect(parseRepo("Mona-Cat_OCTO/.github")).toEqual({ ok: true, owner: "Mona-Cat_OCTO", name: ".github" });
  });

  it("names the part that is wrong and why", () => {
    expect(parseRepo("octocat_acme")).toEqual({ ok: false, reason: 'must be "owner/name"' });
    expect(parseRepo("a/b/c")).toEqual({ ok: false, reason: 'must be "owner/name"' });
    expect(parseRepo("octocat_a/widgets")).toEqual({
      ok: false,
      reason: "owner must be an Enterprise Managed User's handle_shortcode, with a short code of 3-8 letters or digits"
    });
    expect(parseRepo("octo.cat/widgets")).toEqual({
      ok: false,
      reason: "owner must be letters, digits and hyphens, or an Enterprise Managed User's handle_shortcode (such as mona_acme)"
    });
    expect(parseRepo("octocat_acme/widgets.git")).toEqual({
      ok: false,
      reason: "name must not end in .git (GitHub drops it from a repository's name: leave it out)"
    });
    expect(parseRepo("octocat_acme/..")).toEqual({ ok: false, reason: 'name must not be ".."' });
  });
});
