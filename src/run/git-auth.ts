/**
 * Authenticating git and gh in the container as the App, without the token
 * ever being a process argument: the token arrives on the command's stdin,
 * is written to a 0600 file under /temp, fed to `gh auth login --with-token`
 * over stdin, and removed; `gh auth setup-git` then makes git use gh's
 * credentials. The script is fixed text; only stdin carries the secret.
 *
 * The container is re-authenticated whenever the run's token changes. What
 * is remembered to tell is a SHA-256 digest, never the token. Pure.
 */
export const GIT_AUTH_SCRIPT = [
  "set -u",
  "umask 077",
  "mkdir -p /temp/agent-think",
  'f=$(mktemp /temp/agent-think/gh-token.XXXXXX)',
  'cat > "$f"',
  'gh auth login --hostname "${GH_HOST:-github.com}" --with-token < "$f"',
  "rc=$?",
  'rm -f "$f"',
  'if [ "$rc" -ne 0 ]; then exit "$rc"; fi',
  "gh auth setup-git"
].join("\n");

export async function tokenDigest(token: string): Promise<string> {
  const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token));
  return [...new Uint8Array(bytes)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
