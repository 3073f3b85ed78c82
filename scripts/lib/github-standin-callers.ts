/**
 * Who is calling the GitHub stand-in: the token of an Authorization header,
 * and whom it acts as (docs/github-standin.md, "Who is calling").
 */
import type { StandinCaller } from "./github-standin-answers";

/** The token prefixes GitHub gives a user's tokens: classic and fine-grained personal, OAuth app, and GitHub App user-to-server. */
const USER_TOKEN = /^(?:ghp_|github_pat_|gho_|ghu_)/;
/** A JSON Web Token (the App's): three base64url parts, the header's JSON opening `eyJ`. */
const JWT = /^eyJ[\w-]*\.[\w-]*\.[\w-]*$/;

/** The token an Authorization header carries (`token …` or `bearer …`); null for none. */
export function bearer(header: string | undefined): string | null {
  const match = /^(?:token|bearer)\s+(\S+)$/i.exec(header?.trim() ?? "");
  return match ? match[1]! : null;
}

/**
 * Who a token acts as. No token, an empty one, the App's JWT and any other
 * token act as the App's bot (installation tokens, minted here or not, and
 * the made-up tokens tests hand the agent); a token with one of GitHub's
 * user prefixes acts as `userLogin`.
 */
export function callerOf(token: string | null, userLogin: string): StandinCaller {
  if (token === null || token === "") return { kind: "anonymous" };
  if (JWT.test(token)) return { kind: "app" };
  if (USER_TOKEN.test(token)) return { kind: "user", login: userLogin };
  return { kind: "installation" };
}
