/**
 * The scripts the real-container suite's steps write into the workspace and
 * run in the container (container-steps.ts). They are files, not one-line
 * commands, so the Worker's early `git push` guard cannot read them and the
 * egress gateway alone decides. None holds a backslash: the scripted
 * model's write turns `\n` into a newline (writeLine). Pure.
 */

/** Where a step's files go: under the workspace, outside the repository's clone. */
export const STEP_DIR = "/workspace/container-suite";
/** The file holding the suite's token mark, read by grep -f, so the mark is in no process's arguments. */
export const MARK_FILE = `${STEP_DIR}/mark`;

const COMMIT = 'git -c user.name="container suite" -c user.email=suite@example.invalid';

/** Commits a file and pushes it to the run's branch; prints `pushed=<commit>`. */
export function pushBranchScript(branch: string): string {
  return [
    "set -e",
    "cd /workspace/repo",
    "date +%s%N > container-step.txt",
    "git add container-step.txt",
    `${COMMIT} commit -q -m "container suite: pushed from the container"`,
    `git push -q origin HEAD:refs/heads/${branch}`,
    'echo "pushed=$(git rev-parse HEAD)"'
  ].join("\n");
}

/** Pushes a commit to main, past the Worker's guard: only the gateway can refuse it. */
export function pushMainScript(): string {
  return ["cd /workspace/repo", `${COMMIT} commit -q --allow-empty -m "container suite: aimed at main"`, "git push origin HEAD:refs/heads/main"].join("\n");
}

/** Pushes the branch, amends its commit and force-pushes; prints `pushed=` and `force-exit=`. */
export function forcePushScript(branch: string): string {
  return [
    "set -e",
    "cd /workspace/repo",
    `${COMMIT} commit -q --allow-empty -m "container suite: first"`,
    `git push -q origin HEAD:refs/heads/${branch}`,
    'echo "pushed=$(git rev-parse HEAD)"',
    `${COMMIT} commit -q --amend --allow-empty -m "container suite: amended"`,
    "set +e",
    `git push --force origin HEAD:refs/heads/${branch}`,
    'echo "force-exit=$?"'
  ].join("\n");
}

/**
 * After a push (the gateway attached the write token to it) and an API read,
 * looks for the suite's token mark wherever a token could be left: the
 * environment, every process's environment and arguments, gh's config and
 * token, git's config and credential helpers. One line per place:
 * `scan <place> files=<read> hits=<files holding the mark>`; the canary
 * holds the mark, so a scan that finds nothing is known to look.
 */
export function tokenScanScript(branch: string, repo: string): string {
  return [
    `mark=${MARK_FILE}`,
    "cd /workspace/repo",
    `${COMMIT} commit -q --allow-empty -m "container suite: before the scan"`,
    `git push -q origin HEAD:refs/heads/${branch} && echo pushed=yes`,
    `gh api repos/${repo} > /dev/null 2>&1; echo "gh-api-exit=$?"`,
    "scan() {",
    '  name=$1; shift; files=0; hits=0',
    '  for f in "$@"; do',
    '    [ -r "$f" ] || continue',
    "    files=$((files + 1))",
    '    if grep -a -q -F -f "$mark" "$f" 2>/dev/null; then hits=$((hits + 1)); fi',
    "  done",
    '  echo "scan $name files=$files hits=$hits"',
    "}",
    "mkdir -p /temp/container-suite",
    "out=/temp/container-suite",
    'env > "$out/env"',
    'scan env "$out/env"',
    "scan proc-environ /proc/[0-9]*/environ",
    "scan proc-cmdline /proc/[0-9]*/cmdline",
    'gh auth token > "$out/gh-token" 2>&1',
    'scan gh "$out/gh-token" /root/.config/gh/hosts.yml /root/.config/gh/config.yml',
    'git config --list --show-origin > "$out/git-config" 2>&1',
    'scan git-config "$out/git-config"',
    '{ echo protocol=https; echo host=github.com; echo path=' + repo + '.git; echo; } | GIT_TERMINAL_PROMPT=0 git credential fill > "$out/credential" 2>&1',
    'scan git-credential "$out/credential"',
    'cat "$mark" > "$out/canary"',
    'scan canary "$out/canary"'
  ].join("\n");
}

/** The places the token scan must have read, each at least once. */
export const SCANNED_PLACES = ["env", "proc-environ", "proc-cmdline", "gh", "git-config", "git-credential"] as const;

/**
 * Node: sends a DNS query and a plain datagram to the container's default
 * gateway (the Docker host) and to each address given, all on `port`, where
 * the suite listens; then looks a name up with the system resolver. Prints
 * one JSON line: { gateway, sent, lookup }.
 */
export function udpScript(): string {
  return [
    'import dgram from "node:dgram";',
    'import dns from "node:dns/promises";',
    'import { readFileSync } from "node:fs";',
    "const [port, ...targets] = process.argv.slice(2);",
    "const [newline, tab] = [String.fromCharCode(10), String.fromCharCode(9)];",
    'const rows = readFileSync("/proc/net/route", "utf8").split(newline).map((line) => line.split(tab).map((field) => field.trim()));',
    'const route = rows.find((fields) => fields[1] === "00000000");',
    'const gateway = route ? [6, 4, 2, 0].map((at) => parseInt(route[2].slice(at, at + 2), 16)).join(".") : null;',
    "const addresses = [...new Set([gateway, ...targets].filter(Boolean))];",
    'const socket = dgram.createSocket("udp4");',
    "const sent = [];",
    "const send = (bytes, address) => new Promise((resolve) => socket.send(bytes, Number(port), address, (error) => {",
    "  sent.push({ address, bytes: bytes.length, error: error ? String(error.code ?? error) : null });",
    "  resolve();",
    "}));",
    "const label = (text) => [text.length, ...Buffer.from(text)];",
    'const query = Buffer.from([0x12, 0x34, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, ...label("ct-dns"), ...label("example"), 0, 0, 1, 0, 1]);',
    "for (const address of addresses) {",
    "  await send(query, address);",
    '  await send(Buffer.from("agent-think container suite"), address);',
    "}",
    "socket.close();",
    "let lookup;",
    'try { lookup = { address: (await dns.lookup("example.com")).address }; } catch (error) { lookup = { error: String(error.code ?? error) }; }',
    "console.log(JSON.stringify({ gateway, sent, lookup }));"
  ].join("\n");
}

/** The reproduction the template step writes: a stand-in bug whose check differs from what it expects. */
export function reproSource(issueUrl: string): string {
  return [
    "export type ReproResult = { expected: string; actual: string };",
    "",
    "export const REPRO = {",
    '  title: "add(2, 2) is 5",',
    `  issueUrl: "${issueUrl}",`,
    '  mode: "live" as "live" | "recorded",',
    '  note: ""',
    "};",
    "",
    "const add = (a: number, b: number) => a + b + 1;",
    "",
    "export async function triggerBug(): Promise<ReproResult> {",
    '  return { expected: "4", actual: String(add(2, 2)) };',
    "}",
    ""
  ].join("\n");
}

/** The fix-proof step's repository: a sum that adds one too many, and the check that says so. */
export const PROOF_REPO_FILES: Record<string, string> = {
  "sum.js": "module.exports = (a, b) => a + b + 1;\n",
  "check.sh": "test \"$(node -p 'require(\"./sum.js\")(2, 2)')\" = 4\n"
};
/** The check, as recorded by the reproduction and re-run by the Worker on the base and the head. */
export const PROOF_CHECK = "cd /workspace/repo && sh check.sh";
