/**
 * Authenticating git and gh in the container as the App, without the token
 * ever being a process argument: the token arrives on the command's stdin,
 * is written to a 0600 file under /temp, fed to `gh auth login --with-token`
 * over stdin, and removed; `gh auth setup-git` then makes git use gh's
 * credentials. The script is fixed text; only stdin carries the secret.
 *
 * Then git's identity becomes the App's bot, so commits and PRs are the
 * App's: `<login>` and `<id>+<login>@users.noreply.github.com`, the address
 * GitHub attributes to the bot account (the id is looked up with the new
 * credentials; without it, the plain noreply address).
 *
 * The container is re-authenticated whenever the run's token changes. What
 * is remembered to tell is a SHA-256 digest, never the token. Pure.
 */
/** A GitHub App's bot login: `<app-slug>[bot]`. */
export const BOT_LOGIN_PATTERN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\[bot\]$/;
export const DEFAULT_BOT_LOGIN = "agent-think[bot]";

/** The bot login from configuration, or the default when it is unset or not a bot login. */
export function botLogin(configured: string | undefined): string {
  return configured !== undefined && BOT_LOGIN_PATTERN.test(configured) ? configured : DEFAULT_BOT_LOGIN;
}

/** The script for one bot login (checked against BOT_LOGIN_PATTERN, so it is safe inside single quotes). */
export function gitAuthScript(login: string = DEFAULT_BOT_LOGIN): string {
  if (!BOT_LOGIN_PATTERN.test(login)) throw new Error(`not a bot login: ${login}`);
  const encoded = login.replace("[", "%5B").replace("]", "%5D");
  return [
    ...GIT_AUTH_STEPS,
    `login='${login}'`,
    `id=$(gh api 'users/${encoded}' --jq .id 2>/dev/null) || id=""`,
    'git config --global user.name "$login"',
    'case "$id" in',
    '  ""|*[!0-9]*) git config --global user.email "$login@users.noreply.github.com" ;;',
    '  *) git config --global user.email "$id+$login@users.noreply.github.com" ;;',
    "esac"
  ].join("\n");
}

const GIT_AUTH_STEPS = [
  "set -u",
  "umask 077",
  "mkdir -p /temp/agent-think",
  'f=$(mktemp /temp/agent-think/gh-token.XXXXXX)',
  'cat > "$f"',
  'gh auth login --hostname "${GH_HOST:-github.com}" --with-token < "$f"',
  "rc=$?",
  'rm -f "$f"',
  'if [ "$rc" -ne 0 ]; then exit "$rc"; fi',
  "gh auth setup-git || exit $?"
];

/** The script with the default bot login. */
export const GIT_AUTH_SCRIPT = gitAuthScript();

export async function tokenDigest(token: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
