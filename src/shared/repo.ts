/**
 * GitHub's names, by GitHub's own rules: account logins (users and organizations, Enterprise
 * Managed Users included), GitHub App bot logins, and repository references `owner/name`.
 * Every check answers why a name is refused, so callers can say so. The rules and the GitHub
 * pages they come from: docs/contracts.md, "Session names".
 * Pure; shared by the agent Worker (dispatch input, session names), the webhook app (payload,
 * BOT_LOGIN, token broker), the CLI and the tests. It checks spelling only: whether an account
 * or a repository exists is GitHub's to say.
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
