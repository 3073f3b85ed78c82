/**
 * GitHub's names, by GitHub's own rules: account logins (users and
 * organizations, Enterprise Managed Users included), GitHub App bot logins,
 * and repository references `owner/name`. Every check answers why a name is
 * refused, so callers can say so. Pure; shared by the agent Worker
 * (dispatch input, session names), the webhook app (payload, BOT_LOGIN,
 * token broker), the CLI and the tests. It checks spelling only: whether an
 * account or repository exists is GitHub's to say.
 *
 * Where the rules come from:
 *
 * - Logins today: letters, digits and single hyphens, not first or last
 *   (github.com/join's form: "Username may only contain alphanumeric
 *   characters or single hyphens, and cannot begin or end with a hyphen"),
 *   at most 39 characters (docs.github.com, "Username considerations for
 *   external authentication": "Usernames ... must not exceed 39
 *   characters"). Organizations follow the same rule.
 * - Logins from before that rule (about 2013) were kept: live accounts
 *   begin or end with hyphens or hold runs of them (`foo-`, `artur-`,
 *   `-ACE-`, `0----0`; reported in github.com/shinnn/github-username-regex
 *   issues 1, 4 and 7). GitHub still serves them, so they are accepted too:
 *   any 1-39 letters, digits and hyphens with at least one letter or digit.
 *   (No account made only of hyphens is known; such a name is refused.)
 * - Enterprise Managed Users (docs.github.com/enterprise-cloud@latest,
 *   "Username considerations for external authentication"): GitHub makes
 *   the login `IDP-USERNAME_SHORT-CODE`, the identity provider's name
 *   normalized to letters, digits and single inner hyphens, an underscore,
 *   and the enterprise's short code, "an alphanumeric string between three
 *   and eight characters" (`mona-cat_octo`); the setup user is
 *   `SHORT-CODE_admin`, the same shape. The 39-character limit counts the
 *   underscore and the short code. On GHE.com (data residency) the short
 *   code is hidden in the interface but is still part of the login. A
 *   managed user's own repositories are owned by that login
 *   (`octocat_acme/widgets`).
 * - Bots: a GitHub App acts as `<slug>[bot]`, the slug being the App's name
 *   (at most 34 characters) lowercased with spaces and special characters
 *   replaced by hyphens (docs.github.com, "Registering a GitHub App"). The
 *   slug is held to a login's letters, digits and hyphens and 39 characters,
 *   no tighter: a bot GitHub names is never refused for its spelling.
 * - Repository names: "The repository name can only contain ASCII letters,
 *   digits, and the characters ., -, and _" (GitHub's new-repository form),
 *   at most 100 characters; `.` and `..` are refused while other names
 *   made of dots (`...`) or starting with one (`.github`) are fine; a name
 *   ending in `.git` has the suffix removed on creation and one ending in
 *   `.wiki` is refused, since `<name>.git` and `<name>.wiki.git` are a
 *   repository's and its wiki's clone paths (github/docs issue 44518).
 */
export type RepoRef = { owner: string; name: string };

export type NameCheck = { ok: true } | { ok: false; reason: string };
export type RepoParse = ({ ok: true } & RepoRef) | { ok: false; reason: string };

export const MAX_LOGIN_CHARS = 39;
export const MAX_REPO_NAME_CHARS = 100;

/** Today's signup rule: letters, digits and single inner hyphens. */
const CURRENT_LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9]))*$/;
/** Today's rule, or an account kept from before it: letters, digits and hyphens, at least one letter or digit. */
const PLAIN_LOGIN = /^[A-Za-z0-9-]*[A-Za-z0-9][A-Za-z0-9-]*$/;
const EMU_SHORT_CODE = /^[A-Za-z0-9]{3,8}$/;
const BOT_SUFFIX = "[bot]";
const REPO_NAME = /^[A-Za-z0-9._-]+$/;

const ok: NameCheck = { ok: true };
const refuse = (reason: string): NameCheck => ({ ok: false, reason });

const LOGIN_SHAPE =
  "letters, digits and hyphens, or an Enterprise Managed User's handle_shortcode (such as mona_acme)";

/** A user's or organization's login (not a bot's). */
export function checkLogin(login: string): NameCheck {
  if (login.length === 0) return refuse("must not be empty");
  if (login.length > MAX_LOGIN_CHARS) return refuse(`must be at most ${MAX_LOGIN_CHARS} characters`);
  const underscore = login.lastIndexOf("_");
  if (underscore < 0) {
    return PLAIN_LOGIN.test(login) ? ok : refuse(`must be ${LOGIN_SHAPE}`);
  }
  const handle = login.slice(0, underscore);
  const shortCode = login.slice(underscore + 1);
  if (!CURRENT_LOGIN.test(handle)) {
    return refuse("must be an Enterprise Managed User's handle_shortcode, with a handle of letters, digits and single inner hyphens");
  }
  if (!EMU_SHORT_CODE.test(shortCode)) {
    return refuse("must be an Enterprise Managed User's handle_shortcode, with a short code of 3-8 letters or digits");
  }
  return ok;
}

/** A GitHub App's bot login, `<slug>[bot]`. */
export function checkBotLogin(login: string): NameCheck {
  if (!login.endsWith(BOT_SUFFIX)) return refuse(`must end in ${BOT_SUFFIX}`);
  const slug = login.slice(0, -BOT_SUFFIX.length);
  if (slug.length === 0 || slug.length > MAX_LOGIN_CHARS || !PLAIN_LOGIN.test(slug)) {
    return refuse(`must be an App's slug (letters, digits and hyphens) followed by ${BOT_SUFFIX}`);
  }
  return ok;
}

/** Who can write a comment: an account or an App's bot. */
export function checkActorLogin(login: string): NameCheck {
  if (login.endsWith(BOT_SUFFIX)) return checkBotLogin(login);
  return checkLogin(login);
}

export function checkRepoName(name: string): NameCheck {
  if (name.length === 0) return refuse("must not be empty");
  if (name.length > MAX_REPO_NAME_CHARS) return refuse(`must be at most ${MAX_REPO_NAME_CHARS} characters`);
  if (!REPO_NAME.test(name)) return refuse("must be ASCII letters, digits, '.', '-' or '_'");
  if (name === "." || name === "..") return refuse(`must not be "${name}"`);
  if (name.endsWith(".git")) return refuse("must not end in .git (GitHub drops it from a repository's name: leave it out)");
  if (name.endsWith(".wiki")) return refuse("must not end in .wiki");
  return ok;
}

export function parseRepo(value: string): RepoParse {
  const parts = value.split("/");
  if (parts.length !== 2) return { ok: false, reason: 'must be "owner/name"' };
  const [owner, name] = parts as [string, string];
  const ownerCheck = checkLogin(owner);
  if (!ownerCheck.ok) return { ok: false, reason: `owner ${ownerCheck.reason}` };
  const nameCheck = checkRepoName(name);
  if (!nameCheck.ok) return { ok: false, reason: `name ${nameCheck.reason}` };
  return { ok: true, owner, name };
}
