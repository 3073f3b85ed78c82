/**
 * The command line of `npm run chaos`: `--seed S --runs N --kills K`
 * (each optional), `--keep` to keep the state directory, `-h`. Pure: the
 * fresh seed comes in as a parameter, and a bad argument is a tagged result
 * that `scripts/chaos.ts` prints with the usage.
 */
import { MAX_SEED } from "./prng";

export const DEFAULT_RUNS = 6;
export const DEFAULT_KILLS = 5;
const MAX_RUNS = 50;
const MAX_KILLS = 50;

export const USAGE = `usage: npm run chaos -- [--seed S] [--runs N] [--kills K] [--short] [--keep]

Dispatches N scripted runs to a local wrangler dev, SIGKILLs the whole
runtime K times at seeded moments, restarts it on the same state, and checks
that every run ended once, consistently and without leaking its token
(docs/chaos.md).

  --seed S    the seed (0-${MAX_SEED}); a fresh one by default
  --runs N    how many runs, each its own issue (default ${DEFAULT_RUNS})
  --kills K   how many kills (default ${DEFAULT_KILLS})
  --short     shorter runs and kill delays (what the e2e variant in npm test uses)
  --keep      keep the state directory and logs, even when every check passes
  -h, --help  show this help

exit codes: 0 every check passed, 1 a check failed, 2 a bad argument`;

export type ChaosArgs = { seed: number; runs: number; kills: number; short: boolean; keep: boolean };

export type ChaosArgsParse = { ok: true; kind: "run"; args: ChaosArgs } | { ok: true; kind: "help" } | { ok: false; error: string };

export function parseChaosArgs(argv: readonly string[], freshSeed: () => number): ChaosArgsParse {
  let seed: number | undefined;
  let runs = DEFAULT_RUNS;
  let kills = DEFAULT_KILLS;
  let keep = false;
  let short = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "-h" || arg === "--help") return { ok: true, kind: "help" };
    if (arg === "--keep" || arg === "--short") {
      if (arg === "--keep") keep = true;
      else short = true;
      continue;
    }
    const [name, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (name !== "--seed" && name !== "--runs" && name !== "--kills") return { ok: false, error: `unknown argument "${arg}"` };
    const value = inline ?? argv[++i];
    if (value === undefined) return { ok: false, error: `${name} needs a value` };
    const number = /^\d+$/.test(value) ? Number(value) : Number.NaN;
    if (name === "--seed") {
      if (!(number <= MAX_SEED)) return { ok: false, error: `--seed must be an integer from 0 to ${MAX_SEED}, got "${value}"` };
      seed = number;
    } else if (name === "--runs") {
      if (!(number >= 1 && number <= MAX_RUNS)) return { ok: false, error: `--runs must be an integer from 1 to ${MAX_RUNS}, got "${value}"` };
      runs = number;
    } else {
      if (!(number >= 0 && number <= MAX_KILLS)) return { ok: false, error: `--kills must be an integer from 0 to ${MAX_KILLS}, got "${value}"` };
      kills = number;
    }
  }
  return { ok: true, kind: "run", args: { seed: seed ?? freshSeed(), runs, kills, short, keep } };
}

/** The command that replays a chaos run. */
export function replayCommand(args: Pick<ChaosArgs, "seed" | "runs" | "kills"> & { short?: boolean }): string {
  return `npm run chaos -- --seed ${args.seed} --runs ${args.runs} --kills ${args.kills}${args.short ? " --short" : ""}`;
}
