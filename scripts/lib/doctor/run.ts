/**
 * `npm run doctor`'s command line: reads the arguments, checks the
 * checkout, asks the Worker when --url is given, prints the report and
 * returns the exit code (0 nothing blocks, 1 something blocks runs, 2 a bad
 * argument). The root, the environment, the output and the network are
 * passed in, so the tests run it in-process; scripts/doctor.ts wires the
 * real ones.
 */
import { checkoutChecks } from "./checks";
import { readCheckout } from "./checkout";
import { accessTokenFromEnv, ACCESS_ID_VAR, ACCESS_SECRET_VAR, healthUrl, workerHealth, type WorkerHealth } from "./remote";
import { doctorReport, exitCode, formatReport } from "./report";
import { line, type DoctorCheck } from "./types";

export const USAGE = `usage: npm run doctor [-- --url <base>] [--json]

Checks this checkout before a deploy: both wrangler configs against each
other, compatibility flags, the env files, the model settings and skills/.

options:
  --url <base>   also read the running agent Worker's GET <base>/api/health;
                 behind Cloudflare Access, set ${ACCESS_ID_VAR} and
                 ${ACCESS_SECRET_VAR} (an Access service token) in the environment
  --json         print the report as JSON
  -h, --help     show this help

exit codes: 0 nothing blocks runs, 1 something does, 2 a bad argument.
docs/doctor.md describes every check.`;

export type DoctorArgs = { url: string | null; json: boolean };

export function parseDoctorArgs(argv: readonly string[]): { ok: true; kind: "run"; args: DoctorArgs } | { ok: true; kind: "help" } | { ok: false; error: string } {
  const args: DoctorArgs = { url: null, json: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "-h" || arg === "--help") return { ok: true, kind: "help" };
    if (arg === "--json") {
      args.json = true;
      continue;
    }
    const [flag, inline] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
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
  const checkout = await checkCheckout(io.root);
  const worker = args.url === null ? undefined : await checkWorker(args.url, io);
  const report = doctorReport({ root: io.root, checkout, ...(worker ? { worker } : {}), now: io.now?.() ?? Date.now() });
  io.out(args.json ? `${JSON.stringify(report, null, 2)}\n` : formatReport(report));
  return exitCode(report);
}

async function checkCheckout(root: string): Promise<DoctorCheck[]> {
  try {
    return checkoutChecks(await readCheckout(root));
  } catch (error) {
    return [line("checkout", "Checkout", "block", `could not be read: ${error instanceof Error ? error.message : String(error)}`, "fix the file named (wrangler.jsonc and ingress/wrangler.jsonc must parse)")];
  }
}

async function checkWorker(url: string, io: DoctorIo): Promise<WorkerHealth> {
  const token = accessTokenFromEnv(io.env);
  if (!token.ok) return { url, checks: [line("endpoint", "Health endpoint", "block", `not asked: ${token.error}`, `set both ${ACCESS_ID_VAR} and ${ACCESS_SECRET_VAR}, or neither`)] };
  return workerHealth(url, { token: token.token, ...(io.fetch ? { fetch: io.fetch } : {}) });
}
