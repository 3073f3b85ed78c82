/**
 * The container's git identity: commits are the App's bot's (`<login>`,
 * `<id>+<login>@<noreply domain>`; the id looked up through the gateway when only a login is
 * known), and the container trusts the platform's interception CA. No credential is involved:
 * the container holds none (src/egress/gateway.ts). Identity belongs to a container, not a turn,
 * so the script leaves a marker under /temp and a guard in front of every container command
 * stops when it is missing; the WorkspaceAgent then runs the script and the command again.
 * docs/containers.md, "Git and gh in the container". Pure.
 */
import { GITHUB_COM, type GitHubHost } from "../shared/github-urls";
import { checkBotLogin } from "../shared/repo";

/** The bot git commits as: its login and, when known, its user id (run/bot-identity.ts's RunBot). */
export type GitBot = { login: string; id?: number };

/** A host name as GitHubHost carries it: lowercase DNS labels, nothing a shell would read. */
const DOMAIN = /^[a-z0-9](?:[a-z0-9.:-]{0,251}[a-z0-9])?$/;

/** Where Cloudflare Containers put the HTTPS interception CA (docs: "Handle outbound traffic"). */
export const INTERCEPTION_CA_PATH = "/etc/cloudflare/certs/cloudflare-containers-ca.crt";
const TRUSTED_CA_PATH = "/usr/local/share/ca-certificates/cloudflare-containers-ca.crt";

/** Where the identity markers live in the container: outside /workspace, so never synced or kept. */
export const IDENTITY_MARKER_DIR = "/temp/agent-think/git-identity";
const MARKER = /^[0-9a-f]{32}$/;

/**
 * The script for one bot on one GitHub (the login is checked as a bot login,
 * the id as a positive integer, the host and noreply domain against DOMAIN,
 * so all are safe inside single quotes). With a marker (from
 * `identityMarker`), a successful run ends by leaving it.
 */
export function gitIdentityScript(bot: GitBot, marker?: string, github: GitHubHost = GITHUB_COM): string {
  const { login, id } = bot;
  if (!checkBotLogin(login).ok) throw new Error(`not a bot login: ${login}`);
  if (id !== undefined && !(Number.isSafeInteger(id) && id > 0)) throw new Error(`not a bot user id: ${id}`);
  if (marker !== undefined && !MARKER.test(marker)) throw new Error("not an identity marker");
  if (!DOMAIN.test(github.host) || !DOMAIN.test(github.noreplyDomain)) throw new Error(`not a GitHub host: ${github.host}`);
  const encoded = login.replace("[", "%5B").replace("]", "%5D");
  return [
    "set -u",
    ...TRUST_INTERCEPTION_CA,
    `login='${login}'`,
    id === undefined ? `id=$(gh api --hostname '${github.host}' 'users/${encoded}' --jq .id 2>/dev/null) || id=""` : `id='${id}'`,
    'git config --global user.name "$login" || exit $?',
    'case "$id" in',
    `  ""|*[!0-9]*) git config --global user.email "$login@${github.noreplyDomain}" ;;`,
    `  *) git config --global user.email "$id+$login@${github.noreplyDomain}" ;;`,
    "esac",
    ...(marker === undefined ? [] : [`mkdir -p ${IDENTITY_MARKER_DIR} && : > ${IDENTITY_MARKER_DIR}/${marker}`])
  ].join("\n");
}

/** Trust the interception CA once it exists; a failure is said, and the commands then fail TLS with their own errors. */
const TRUST_INTERCEPTION_CA = [
  `if [ -f '${INTERCEPTION_CA_PATH}' ] && ! cmp -s '${INTERCEPTION_CA_PATH}' '${TRUSTED_CA_PATH}'; then`,
  `  { cp '${INTERCEPTION_CA_PATH}' '${TRUSTED_CA_PATH}' && update-ca-certificates >/dev/null 2>&1; } || echo "agent-think: could not trust the egress CA" >&2`,
  "fi"
];

/** The marker of one bot's identity on one GitHub: 128 bits of a SHA-256 digest. */
export async function identityMarker(bot: GitBot, github: GitHubHost = GITHUB_COM): Promise<string> {
  return (await sha256Hex(`${bot.login}\n${bot.id ?? ""}\n${github.host}`)).slice(0, 32);
}

/**
 * The first lines of a container command: when the marker is missing, print
 * a line carrying the run's nonce and stop before the command runs.
 */
export function identityGuard(marker: string, nonce: string): string {
  if (!MARKER.test(marker) || !/^[A-Za-z0-9-]+$/.test(nonce)) throw new Error("bad identity guard arguments");
  return `if [ ! -e ${IDENTITY_MARKER_DIR}/${marker} ]; then printf '\\n@@%s needs-git-identity\\n' '${nonce}'; exit 0; fi`;
}

/** Whether a guarded command stopped because its container has no identity yet. */
export function stoppedForIdentity(stdout: string, nonce: string): boolean {
  return stdout.includes(`\n@@${nonce} needs-git-identity\n`);
}

async function sha256Hex(text: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
