/**
 * Authenticating git and gh in the container as the App, without the token
 * ever being a process argument: the token arrives on the command's stdin,
 * is written to a 0600 file under /temp, fed to `gh auth login --with-token`
 * over stdin, and removed; `gh auth setup-git` then makes git use gh's
 * credentials. The script is fixed text; only stdin carries the secret.
 *
 * The host is the deploy's GitHub (src/shared/github-urls.ts: github.com,
 * a GHE.com tenant or a GitHub Enterprise Server), named explicitly to
 * every gh call here rather than left to GH_HOST or gh's github.com default;
 * the token stays gh's stored login for that host (GH_ENTERPRISE_TOKEN would
 * put it in the environment).
 *
 * Then git's identity becomes the App's bot, so commits and PRs are the
 * App's: `<login>` and `<id>+<login>@<noreply domain>` (on github.com
 * `users.noreply.github.com`), the address GitHub attributes to the bot
 * account. The bot is the run's (run/bot-identity.ts decides who that is):
 * with the id GitHub gave, the script uses it as is; with the login alone
 * (a configured BOT_LOGIN) it looks the id up with the new credentials, and
 * without an answer uses the plain noreply address.
 *
 * Authentication belongs to a container, not to a turn: a container that
 * replaces another mid-turn (a crash relaunch, a restart, the reconcile
 * after a deploy) starts with no gh login. So a successful login leaves a
 * marker file inside the container, named by a digest of the login and the
 * token (never the token), under /temp (container-local, never synced), and
 * every container command starts with a guard that stops before running the
 * command when the marker for the run's current token is missing. The
 * WorkspaceAgent then logs in and runs the command again: a new container,
 * or a new token, is authenticated before its first command, at the cost of
 * one round trip only then. Pure.
 */
import { GITHUB_COM, type GitHubHost } from "../shared/github-urls";
import { checkBotLogin } from "../shared/repo";

/** The bot git commits as: its login and, when known, its user id (run/bot-identity.ts's RunBot). */
export type GitBot = { login: string; id?: number };

/** A host name as GitHubHost carries it: lowercase DNS labels, nothing a shell would read. */
const DOMAIN = /^[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?$/;

/** Where the login markers live in the container: outside /workspace, so never synced or kept. */
export const AUTH_MARKER_DIR = "/temp/agent-think/git-auth";
const MARKER = /^[0-9a-f]{32}$/;

/**
 * The script for one bot on one GitHub (the login is checked as a bot login,
 * letters, digits, hyphens and `[bot]`, the id as a positive integer, and the
 * host and noreply domain against DOMAIN, so all are safe inside single
 * quotes). With a marker (from `authMarker`), a successful login ends by
 * leaving it in AUTH_MARKER_DIR.
 */
export function gitAuthScript(bot: GitBot, marker?: string, github: GitHubHost = GITHUB_COM): string {
  const { login, id } = bot;
  if (!checkBotLogin(login).ok) throw new Error(`not a bot login: ${login}`);
  if (id !== undefined && !(Number.isSafeInteger(id) && id > 0)) throw new Error(`not a bot user id: ${id}`);
  if (marker !== undefined && !MARKER.test(marker)) throw new Error("not an auth marker");
  if (!DOMAIN.test(github.host) || !DOMAIN.test(github.noreplyDomain)) throw new Error(`not a GitHub host: ${github.host}`);
  const encoded = login.replace("[", "%5B").replace("]", "%5D");
  return [
    `host='${github.host}'`,
    ...GIT_AUTH_STEPS,
    `login='${login}'`,
    id === undefined ? `id=$(gh api --hostname "$host" 'users/${encoded}' --jq .id 2>/dev/null) || id=""` : `id='${id}'`,
    'git config --global user.name "$login"',
    'case "$id" in',
    `  ""|*[!0-9]*) git config --global user.email "$login@${github.noreplyDomain}" ;;`,
    `  *) git config --global user.email "$id+$login@${github.noreplyDomain}" ;;`,
    "esac",
    ...(marker === undefined ? [] : [`mkdir -p ${AUTH_MARKER_DIR} && : > ${AUTH_MARKER_DIR}/${marker}`])
  ].join("\n");
}

/** The marker of one login with one token: 128 bits of a SHA-256 digest, never the token. */
export async function authMarker(token: string, login: string): Promise<string> {
  return (await tokenDigest(`${login}\n${token}`)).slice(0, 32);
}

/**
 * The first lines of a container command: when the marker is missing, print
 * a line carrying the run's nonce and stop before the command runs.
 */
export function authGuard(marker: string, nonce: string): string {
  if (!MARKER.test(marker) || !/^[A-Za-z0-9-]+$/.test(nonce)) throw new Error("bad auth guard arguments");
  return `if [ ! -e ${AUTH_MARKER_DIR}/${marker} ]; then printf '\\n@@%s needs-git-auth\\n' '${nonce}'; exit 0; fi`;
}

/** Whether a guarded command stopped because its container is not logged in with the current token. */
export function stoppedForGitAuth(stdout: string, nonce: string): boolean {
  return stdout.includes(`\n@@${nonce} needs-git-auth\n`);
}

const GIT_AUTH_STEPS = [
  "set -u",
  "umask 077",
  "mkdir -p /temp/agent-think",
  'f=$(mktemp /temp/agent-think/gh-token.XXXXXX)',
  'cat > "$f"',
  'gh auth login --hostname "$host" --with-token < "$f"',
  "rc=$?",
  'rm -f "$f"',
  'if [ "$rc" -ne 0 ]; then exit "$rc"; fi',
  'gh auth setup-git --hostname "$host" || exit $?'
];

export async function tokenDigest(token: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
