/**
 * `npm run seed:r2`: upload `skills/**` to the skills R2 bucket and delete
 * objects for skills and files that no longer exist. `-- --local` seeds the
 * bucket `wrangler dev --local` reads (`--persist-to <dir>` for a dev server
 * started with that flag); without it the deployed bucket is seeded, which
 * needs `wrangler login`. The work is `seedSkills` (scripts/lib/seed-skills.ts).
 */
import { parseSeedArgs, SEED_USAGE } from "./lib/seed-args";
import { formatSeedSummary, SeedError, seedSkills } from "./lib/seed-skills";

const parsed = parseSeedArgs(process.argv.slice(2));
if (!parsed.ok) {
  console.error(`seed:r2: ${parsed.error}\n\n${SEED_USAGE}`);
  process.exit(2);
}
if (parsed.kind === "help") {
  console.log(SEED_USAGE);
  process.exit(0);
}

try {
  console.log(formatSeedSummary(await seedSkills(parsed.args)));
} catch (error) {
  // A SeedError lists every problem; anything else (most often: not logged in
  // to Cloudflare for a remote seed) is wrangler's own message.
  console.error(error instanceof SeedError ? error.message : `seed:r2: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}
