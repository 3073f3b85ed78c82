/**
 * How the webhook app runs locally (`npm run dev:ingress`) and how a sample
 * delivery reaches it (`npm run send:delivery`): the `wrangler dev` command
 * line, the throwaway dev secrets in the gitignored `ingress/.dev.vars`,
 * the banner, and the send script's command line. Pure apart from nothing:
 * the scripts own files, processes and the network. The cross-Worker e2e
 * starts ingress with `ingressDevArgs` too.
 */
import { parseRepo } from "../../src/shared/repo";

export const INGRESS_CONFIG = "ingress/wrangler.jsonc";
/**
 * Where wrangler runs for the webhook app (`--cwd`). `wrangler dev` checks
 * whether `./worker-configuration.d.ts` of its working directory is current
 * for the config it runs; from the repository root that is the agent
 * Worker's file, so it would say "Your types might be out of date" right
 * after `npm run typecheck` found both files current. From `ingress/` it
 * checks the webhook app's own file.
 */
export const INGRESS_DIR = "ingress";
export const INGRESS_DEV_VARS = "ingress/.dev.vars";
export const DEFAULT_INGRESS_PORT = 8788;
export const DEFAULT_STANDIN_PORT = 8790;
/** The repository the sample delivery names; dev:ingress allows it unless ALLOWED_REPOS says otherwise. */
export const DEV_REPO = "acme/widgets";
/** Local CI follow-ups on every allowed repository: the stand-in's CI runs no workflow, with or without secrets. */
export const DEV_CI_FIX_REPOS = "*";
/** Any id: the local GitHub stand-in accepts every JWT. */
export const DEV_APP_ID = "1";
/** Kept apart from `npm start`'s `.wrangler/state`, so the two wrangler processes never share files. */
export const DEV_PERSIST_TO = ".wrangler/ingress-state";
export const WEBHOOK_PATH = "/webhooks/github";

export type IngressDevOptions = {
  port: number;
  /** The GitHub API the Worker calls: the local stand-in. */
  githubApiUrl: string;
  allowedRepos: string;
  /**
   * CI_FIX_REPOS; `*` unless told: locally GitHub is the stand-in and CI
   * its seeded runs, so no workflow with secrets runs on a push.
   */
  ciFixRepos?: string;
  /** Absolute. */
  persistTo: string;
  inspectorPort?: number;
  /**
   * Where the secrets come from instead of ingress/.dev.vars (a file, so a
   * secret is never on a command line); wrangler then also reads the
   * secrets listed in the config from the environment. Absolute.
   */
  envFile?: string;
};

/** The `wrangler dev` arguments; `persistTo` and `envFile` must be absolute, since wrangler runs in `ingress/`. */
export function ingressDevArgs(options: IngressDevOptions): string[] {
  for (const [name, path] of [["persistTo", options.persistTo], ["envFile", options.envFile]] as const) {
    if (path !== undefined && !path.startsWith("/")) throw new TypeError(`ingressDevArgs: ${name} must be an absolute path (wrangler runs in ${INGRESS_DIR}/), got "${path}"`);
  }
  const args = [
    ...["dev", "--cwd", INGRESS_DIR, "-c", "wrangler.jsonc", "--local", "--ip", "127.0.0.1", "--port", String(options.port)],
    ...["--show-interactive-dev-session=false", "--persist-to", options.persistTo],
    ...["--var", `GITHUB_API_URL:${options.githubApiUrl}`, "--var", `ALLOWED_REPOS:${options.allowedRepos}`],
    ...["--var", `CI_FIX_REPOS:${options.ciFixRepos ?? DEV_CI_FIX_REPOS}`]
  ];
  if (options.inspectorPort !== undefined) args.push("--inspector-port", String(options.inspectorPort));
  if (options.envFile !== undefined) args.push("--env-file", options.envFile);
  return args;
}

export type DevSecrets = { webhookSecret: string; appId: string; privateKeyPem: string };

/** The dotenv text wrangler reads: the PEM on one line with `\n` escapes, inside double quotes. */
export function devVarsText(secrets: DevSecrets): string {
  return [
    "# Throwaway secrets for `npm run dev:ingress`, written by scripts/dev-ingress.ts.",
    "# The key belongs to no GitHub App; delete this file to get fresh ones.",
    `GITHUB_WEBHOOK_SECRET=${secrets.webhookSecret}`,
    `GITHUB_APP_ID=${secrets.appId}`,
    `GITHUB_APP_PRIVATE_KEY="${secrets.privateKeyPem.trim().replaceAll("\n", "\\n")}"`,
    ""
  ].join("\n");
}

export function ingressBanner(url: string, standinUrl: string, allowedRepos: string, ciFixRepos: string = DEV_CI_FIX_REPOS): string {
  const urlOption = url === `http://127.0.0.1:${DEFAULT_INGRESS_PORT}` ? "" : ` --url ${url}`;
  return [
    "",
    `agent-think-ingress is running at ${url} (GitHub webhooks: POST ${WEBHOOK_PATH})`,
    `GitHub calls go to the stand-in at ${standinUrl}; allowed repositories: ${allowedRepos || "(none)"}; CI follow-ups on: ${ciFixRepos === "*" ? "all of them" : ciFixRepos || "(none)"}`,
    "",
    `  send a signed sample delivery:  npm run send:delivery --${urlOption} --body "@agent-think reproduce this issue"`,
    `  what GitHub was asked:          curl ${standinUrl}/_standin/records`,
    "  stop:                           Ctrl-C",
    ""
  ].join("\n");
}

export const SEND_USAGE = `usage: npm run send:delivery -- [options]

Signs a sample issue_comment.created delivery with the dev webhook secret
(ingress/.dev.vars, or $GITHUB_WEBHOOK_SECRET) and POSTs it to the local
webhook app (\`npm run dev:ingress\`).

options:
  --repo <owner/name>     the repository (default: ${DEV_REPO})
  --issue <n>             the issue number (default: 7)
  --body <text>           the comment (default: "@agent-think reproduce this issue")
  --comment-id <n>        the comment id; the same id twice is a redelivery (default: new each time)
  --login <login>         the commenter (default: octocat)
  --association <value>   the commenter's author_association (default: OWNER)
  --url <base>            the webhook app (default: http://127.0.0.1:${DEFAULT_INGRESS_PORT})
  -h, --help              show this help

exit codes: 0 the app answered 2xx, 1 it did not (or is unreachable), 2 a bad argument.`;

export type SendArgs = {
  repo: string;
  issueNumber: number;
  body: string;
  commentId: number;
  login: string;
  association: string;
  url: string;
};

export type SendArgsParse = { ok: true; kind: "send"; args: SendArgs } | { ok: true; kind: "help" } | { ok: false; error: string };

const SEND_DEFAULTS = {
  repo: DEV_REPO,
  issue: "7",
  body: "@agent-think reproduce this issue",
  "comment-id": "",
  login: "octocat",
  association: "OWNER",
  url: `http://127.0.0.1:${DEFAULT_INGRESS_PORT}`
};

export function parseSendArgs(argv: readonly string[], newCommentId: () => number): SendArgsParse {
  const values: Record<string, string> = { ...SEND_DEFAULTS };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "-h" || arg === "--help") return { ok: true, kind: "help" };
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    const name = flag.replace(/^--/, "");
    if (!flag.startsWith("--") || !(name in SEND_DEFAULTS)) return { ok: false, error: `unknown argument ${JSON.stringify(arg)}` };
    const value = inline ?? argv[++i];
    if (value === undefined) return { ok: false, error: `${flag} needs a value` };
    values[name] = value;
  }
  const repo = parseRepo(values.repo!);
  if (!repo.ok) return { ok: false, error: `--repo ${repo.reason}` };
  const issueNumber = positiveInt(values.issue!);
  if (issueNumber === null) return { ok: false, error: "--issue must be a positive whole number" };
  const commentId = values["comment-id"] === "" ? newCommentId() : positiveInt(values["comment-id"]!);
  if (commentId === null) return { ok: false, error: "--comment-id must be a positive whole number" };
  if (!/^https?:\/\/[^/]+/.test(values.url!)) return { ok: false, error: "--url must be an http(s) URL" };
  return {
    ok: true,
    kind: "send",
    args: {
      repo: values.repo!,
      issueNumber,
      body: values.body!,
      commentId,
      login: values.login!,
      association: values.association!.toUpperCase(),
      url: values.url!.replace(/\/+$/, "")
    }
  };
}

function positiveInt(value: string): number | null {
  const number = Number(value);
  return /^\d+$/.test(value) && number > 0 && Number.isSafeInteger(number) ? number : null;
}
