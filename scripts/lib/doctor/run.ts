/**
 * `npm run doctor`'s command line: reads the arguments, checks the
 * checkout, asks the Worker when --url is given and GitHub when --remote
 * is (rulesets.ts, ci-secrets-read.ts), prints the report and
 * returns the exit code (0 nothing blocks, 1 something blocks runs, 2 a bad
 * argument). The root, the environment, the output and the network are
 * passed in, so the tests run it in-process; scripts/doctor.ts wires the
 * real ones.
 */
import { readAllowedRepos } from "../../../src/shared/allowed-repos";
import { ciFixCheck } from "./ci-fix";
import { judgeCiSecrets } from "./ci-secrets";
import { readCiFacts, type CiReadOptions } from "./ci-secrets-read";
import { checkoutChecks } from "./checks";
import { readCheckout } from "./checkout";
import { rulesetsCheck } from "./rulesets";
import { accessTokenFromEnv, ACCESS_ID_VAR, ACCESS_SECRET_VAR, healthUrl, workerHealth, type WorkerHealth } from "./remote";
import { doctorReport, exitCode, formatReport } from "./report";
import { line, varsOf, type Checkout, type DoctorCheck } from "./types";

/** Where --remote takes its GitHub token from, in this order: never an argument. */
export const TOKEN_VARS = ["GITHUB_TOKEN", "GH_TOKEN"] as const;

export const USAGE = `usage: npm run doctor [-- --url <base>] [--remote [--repo owner/name]...] [--json]

Checks this checkout before a deploy: both wrangler configs against each
other, compatibility flags, the env files, the model settings and skills/.

options:
  --url <base>   also read the running agent Worker's GET <base>/api/health;
                 behind Cloudflare Access, set ${ACCESS_ID_VAR} and
                 ${ACCESS_SECRET_VAR} (an Access service token) in the environment
  --remote       also ask GitHub, on each repository in ALLOWED_REPOS (or each
                 --repo), whether rulesets hold the App to agent-think/** and to
                 no tag, what secrets a push there reaches in CI, and whether CI
                 follow-ups run there (CI_FIX_REPOS); with ${TOKEN_VARS[0]} (or ${TOKEN_VARS[1]})
                 from the environment and GITHUB_APP_ID to recognise the App
  --repo <o/n>   a repository for --remote (repeat for more; implies --remote)
  --json         print the report as JSON
  -h, --help     show this help

exit codes: 0 nothing blocks runs, 1 something does, 2 a bad argument.
docs/doctor.md describes every check.`;

export type DoctorArgs = { url: string | null; json: boolean; remote: boolean; repos: string[] };


export function parseDoctorArgs(argv: readonly string[]): { ok: true; kind: "run"; args: DoctorArgs } | { ok: true; kind: "help" } | { ok: false; error: string } {
  const args: DoctorArgs = { url: null, json: false, remote: false, repos: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "-h" || arg === "--help") return { ok: true, kind: "help" };
    if (arg === "--json") {
      args.json = true;
      continue;
    }
    if (arg === "--remote") {
      args.remote = true;
      continue;
    }
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    if (flag === "--repo") {
      const repo = inline ?? argv[++i];
      const parsed = repo === undefined || repo.startsWith("--") ? null : readAllowedRepos(repo);
      if (parsed === null || !parsed.ok || parsed.repos.size !== 1) return { ok: false, error: `--repo needs one owner/name, got ${JSON.stringify(repo ?? "")}` };
      args.repos.push(...parsed.repos);
      args.remote = true;
      continue;
    }
    if (flag !== "--url") return { ok: false, error: `unknown argument ${JSON.stringify(arg)}` };
    const value = inline ?? argv[++i];
    if (value === undefined || value.startsWith("--")) return { ok: false, error: "--url needs the Worker's base URL" };
    const url = healthUrl(value);
    if (url === null) return { ok: false, error: `--url must be an http(s) URL without credentials, got ${JSON.stringify(value)}` };
    args.url = url;
  }
  return { ok: true, kind: "run", args };
}

export type DoctorIo = {
  /** The checkout to check. */
  root: string;
  env: Record<string, string | undefined>;
  out(text: string): void;
  err(text: string): void;
  fetch?: typeof fetch;
  now?(): number;
};

export async function runDoctor(argv: readonly string[], io: DoctorIo): Promise<0 | 1 | 2> {
  const parsed = parseDoctorArgs(argv);
  if (!parsed.ok) {
    io.err(`doctor: ${parsed.error}\n\n${USAGE}\n`);
    return 2;
  }
  if (parsed.kind === "help") {
    io.out(`${USAGE}\n`);
    return 0;
  }
  const { args } = parsed;
  const read = await checkCheckout(io.root);
  const worker = args.url === null ? undefined : await checkWorker(args.url, io);
  const github = args.remote ? await checkGitHub(args.repos, read.checkout, io) : undefined;
  const report = doctorReport({ root: io.root, checkout: read.checks, ...(worker ? { worker } : {}), ...(github ? { github } : {}), now: io.now?.() ?? Date.now() });
  io.out(args.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return exitCode(report);
}

async function checkCheckout(root: string): Promise<{ checks: DoctorCheck[]; checkout?: Checkout }> {
  try {
    const checkout = await readCheckout(root);
    return { checks: checkoutChecks(checkout), checkout };
  } catch (error) {
    return { checks: [line("checkout", "Checkout", "block", `could not be read: ${error instanceof Error ? error.message : String(error)}`, "fix the file named (wrangler.jsonc and ingress/wrangler.jsonc must parse)")] };
  }
}

/**
 * --remote: per repository, its rulesets line, its CI secrets line and its
 * CI follow-ups line. The repositories are the --repo ones, else
 * ALLOWED_REPOS (the environment's, else the webhook app's config);
 * CI_FIX_REPOS likewise; GitHub is GITHUB_API_URL (the environment's, else
 * the agent Worker's config); the App's id is GITHUB_APP_ID (the
 * environment's, else the webhook app's local secrets).
 */
async function checkGitHub(repos: string[], checkout: Checkout | undefined, io: DoctorIo): Promise<DoctorCheck[]> {
  const label = "Rulesets";
  const configured = io.env.ALLOWED_REPOS ?? (checkout ? varsOf(checkout.ingress).ALLOWED_REPOS : undefined) ?? "";
  const allowed = readAllowedRepos(configured);
  const targets = repos.length > 0 ? repos : allowed.ok ? [...allowed.repos] : [];
  if (targets.length === 0) {
    return [line("rulesets", label, "warn", allowed.ok ? "no repository to ask about: ALLOWED_REPOS is empty" : `ALLOWED_REPOS is not a list of owner/name (${allowed.bad})`, "pass --repo owner/name, or set ALLOWED_REPOS in ingress/wrangler.jsonc")];
  }
  const tokenVar = TOKEN_VARS.find((name) => (io.env[name]?.trim() ?? "") !== "");
  if (tokenVar === undefined) {
    return [line("rulesets", label, "warn", `not asked: neither ${TOKEN_VARS.join(" nor ")} is set`, `set ${TOKEN_VARS[0]} to a token that can read ${targets.join(", ")} (a repository admin's, to see bypass lists), e.g. GITHUB_TOKEN=$(gh auth token)`)];
  }
  const apiUrl = io.env.GITHUB_API_URL?.trim() || (checkout ? varsOf(checkout.agent).GITHUB_API_URL : undefined) || "https://api.github.com";
  const appIdText = io.env.GITHUB_APP_ID?.trim() || checkout?.ingressLocal?.vars.GITHUB_APP_ID?.trim() || "";
  const appId = /^[1-9]\d*$/.test(appIdText) ? Number(appIdText) : undefined;
  const token = io.env[tokenVar]!.trim();
  const ciFixRepos = io.env.CI_FIX_REPOS ?? (checkout ? varsOf(checkout.ingress).CI_FIX_REPOS : undefined);
  const fetchOption = io.fetch ? { fetch: io.fetch } : {};
  const checks: DoctorCheck[] = [];
  for (const repo of targets) {
    checks.push(await rulesetsCheck(repo, { apiUrl, token, app: appId === undefined ? {} : { appId }, ...fetchOption }));
    checks.push(...(await ciChecks(repo, ciFixRepos, { apiUrl, token, ...(appId === undefined ? {} : { appId }), ...fetchOption })));
  }
  return checks;
}

/** The CI secrets and CI follow-ups lines, or one line saying why GitHub could not be asked (never the token). */
async function ciChecks(repo: string, ciFixRepos: string | undefined, options: CiReadOptions): Promise<DoctorCheck[]> {
  try {
    const { facts, configFile } = await readCiFacts(repo, options);
    const secrets = judgeCiSecrets(facts);
    return [secrets.check, ciFixCheck({ repo, defaultBranch: facts.defaultBranch, configFile, ciFixRepos, ci: secrets.verdict })];
  } catch (error) {
    const status = (error as { status?: number }).status;
    const said = error instanceof Error ? error.message : String(error);
    const detail = status === 404 ? "GitHub answered 404: the repository does not exist or the token cannot read it" : `GitHub could not be asked: ${status ? `${status} ` : ""}${said}`;
    return [line("ci-secrets", `CI secrets (${repo})`, "warn", detail.replaceAll(options.token, "[redacted]"), "set GITHUB_TOKEN to a token that can read the repository (a repository admin's, to see its secrets' names)")];
  }
}

async function checkWorker(url: string, io: DoctorIo): Promise<WorkerHealth> {
  const token = accessTokenFromEnv(io.env);
  if (!token.ok) return { url, checks: [line("endpoint", "Health endpoint", "block", `not asked: ${token.error}`, `set both ${ACCESS_ID_VAR} and ${ACCESS_SECRET_VAR}, or neither`)] };
  return workerHealth(url, { token: token.token, ...(io.fetch ? { fetch: io.fetch } : {}) });
}
