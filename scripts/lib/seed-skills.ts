/**
 * `seedSkills`: make the skills bucket hold exactly `skills/**`. Every file
 * of every skill is uploaded under `skills/` with a content type, and objects
 * under that prefix with no file any more are deleted. Used by
 * `scripts/seed-r2.ts` (`npm run seed:r2`), by `npm start` for the local
 * bucket, and by the e2e test against a real `wrangler dev`.
 *
 * Nothing is written unless every SKILL.md parses with Think's skill parser
 * without a warning and the tree has the layout Think's R2 source reads.
 */
import { readdir, readFile } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { layoutSkills, planSeed, SKILLS_PREFIX, type SkillFile } from "./seed-plan";
import { checkSkill } from "./skill-check";
import { defaultPersistTo, openSkillsBucket, type SeedBucket } from "./skills-bucket";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
// R2 deletes at most 1,000 keys per call.
const MAX_DELETE_KEYS = 1_000;

export type SeedOptions = {
  /** true: the local bucket `wrangler dev --local` reads; false: the deployed bucket. */
  local: boolean;
  /** With `local`: the dev server's `--persist-to` directory (relative to the working directory, as wrangler reads it). */
  persistTo?: string;
  /** The directory holding the skill directories; `skills/` in the project by default. */
  skillsDir?: string;
  /** The Worker's config, which names the bucket; the project's wrangler.jsonc by default. */
  configPath?: string;
};

export type SeedResult = {
  target: "local" | "remote";
  bucketName: string;
  /** With a local target: the state directory that was seeded. */
  persistTo?: string;
  skills: string[];
  uploaded: number;
  deleted: number;
};

export type SeedErrorCode = "invalid-skills" | "no-skills";

/** Why the seed wrote nothing: `problems` names each file and rule. */
export class SeedError extends Error {
  override readonly name = "SeedError";
  constructor(
    readonly code: SeedErrorCode,
    readonly problems: readonly string[]
  ) {
    super(`skills not seeded:\n${problems.map((problem) => `  - ${problem}`).join("\n")}`);
  }
}

export async function seedSkills(options: SeedOptions): Promise<SeedResult> {
  const skillsDir = resolve(options.skillsDir ?? join(ROOT, "skills"));
  const configPath = resolve(options.configPath ?? join(ROOT, "wrangler.jsonc"));
  const files = await readSkillTree(skillsDir);

  const persistTo = options.local ? resolve(options.persistTo ?? defaultPersistTo(configPath)) : undefined;
  const opened = await openSkillsBucket(configPath, persistTo === undefined ? { local: false } : { local: true, persistTo });
  try {
    const { uploaded, deleted } = await syncBucket(opened.bucket, files, (file) => readFile(join(skillsDir, file.path)));
    return {
      target: options.local ? "local" : "remote",
      bucketName: opened.bucketName,
      ...(persistTo === undefined ? {} : { persistTo }),
      skills: [...new Set(files.map((file) => file.path.split("/")[0]!))].sort(),
      uploaded,
      deleted
    };
  } finally {
    await opened.dispose();
  }
}

/**
 * The files to upload from a skills directory, after checking its layout and
 * every SKILL.md. Throws `SeedError` when anything is wrong.
 */
export async function readSkillTree(skillsDir: string): Promise<SkillFile[]> {
  const entries = await readdir(skillsDir, { recursive: true, withFileTypes: true });
  const paths = entries
    .filter((entry) => entry.isFile())
    .map((entry) => relative(skillsDir, join(entry.parentPath, entry.name)).split(sep).join("/"));
  const layout = layoutSkills(paths);
  const problems = [...layout.problems];
  for (const directory of layout.skills) {
    const check = checkSkill(directory, await readFile(join(skillsDir, directory, "SKILL.md"), "utf8"));
    if (!check.ok) problems.push(...check.problems);
  }
  if (problems.length > 0) throw new SeedError("invalid-skills", problems);
  // An empty or mistyped directory must not empty the bucket.
  if (layout.skills.length === 0) throw new SeedError("no-skills", [`${skillsDir} holds no skill directories`]);
  return layout.files;
}

/** Puts every file and deletes every other object under the prefix. */
export async function syncBucket(
  bucket: SeedBucket,
  files: readonly SkillFile[],
  read: (file: SkillFile) => Promise<Uint8Array>
): Promise<{ uploaded: number; deleted: number }> {
  const plan = planSeed(
    files.map((file) => file.key),
    await listKeys(bucket, SKILLS_PREFIX)
  );
  const byKey = new Map(files.map((file) => [file.key, file]));
  for (const key of plan.put) {
    const file = byKey.get(key)!;
    await bucket.put(key, await read(file), { httpMetadata: { contentType: file.contentType } });
  }
  for (let start = 0; start < plan.delete.length; start += MAX_DELETE_KEYS) {
    await bucket.delete(plan.delete.slice(start, start + MAX_DELETE_KEYS));
  }
  return { uploaded: plan.put.length, deleted: plan.delete.length };
}

async function listKeys(bucket: SeedBucket, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await bucket.list({ prefix, ...(cursor === undefined ? {} : { cursor }) });
    keys.push(...page.objects.map((object) => object.key));
    cursor = page.truncated ? page.cursor : undefined;
  } while (cursor !== undefined);
  return keys;
}

/** The one line the seed prints. */
export function formatSeedSummary(result: SeedResult): string {
  const where = result.target === "local" ? `local ${result.bucketName} in ${result.persistTo}` : `R2 bucket ${result.bucketName}`;
  return `seed:r2: ${where}: uploaded ${result.uploaded}, deleted ${result.deleted} (skills: ${result.skills.join(", ")})`;
}
