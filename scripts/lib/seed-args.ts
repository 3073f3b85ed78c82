/**
 * The command line of `npm run seed:r2`: `--local` seeds the bucket
 * `wrangler dev` reads, `--persist-to <dir>` matches a dev server started
 * with the same flag, no flag seeds the deployed bucket. Pure; used by
 * `scripts/seed-r2.ts`.
 */
export const SEED_USAGE = [
  "usage: npm run seed:r2 [-- --local [--persist-to <dir>]]",
  "",
  "  (no flag)           upload skills/** to the deployed R2 bucket (needs `wrangler login`)",
  "  --local             upload to the local bucket `wrangler dev` reads (.wrangler/state)",
  "  --persist-to <dir>  with --local: the --persist-to directory of the dev server to seed"
].join("\n");

export type SeedArgs = { local: false } | { local: true; persistTo?: string };

export type SeedArgsParse = { ok: true; kind: "seed"; args: SeedArgs } | { ok: true; kind: "help" } | { ok: false; error: string };

export function parseSeedArgs(argv: readonly string[]): SeedArgsParse {
  let local = false;
  let persistTo: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === "--help" || arg === "-h") return { ok: true, kind: "help" };
    if (arg === "--local") {
      local = true;
    } else if (arg === "--persist-to" || arg.startsWith("--persist-to=")) {
      const value = arg === "--persist-to" ? argv[++index] : arg.slice("--persist-to=".length);
      if (value === undefined || value === "" || value.startsWith("--")) return { ok: false, error: "--persist-to needs a directory" };
      persistTo = value;
    } else {
      return { ok: false, error: `unknown argument "${arg}"` };
    }
  }
  if (!local) {
    return persistTo === undefined ? { ok: true, kind: "seed", args: { local: false } } : { ok: false, error: "--persist-to only applies with --local" };
  }
  return { ok: true, kind: "seed", args: persistTo === undefined ? { local: true } : { local: true, persistTo } };
}
