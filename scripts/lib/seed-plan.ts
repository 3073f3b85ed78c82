/**
 * What `npm run seed:r2` does to the skills bucket, decided without touching
 * it: which files under `skills/` are skill files, the object key and content
 * type of each, and which objects to put and delete given the bucket's
 * listing. Pure; used by `seed-skills.ts`, which does the I/O.
 *
 * The layout is the one Think's R2 skill source reads: `<prefix><skill>/SKILL.md`
 * with the skill's resources beside it. Anything that source would not read
 * as part of a skill (a file directly under `skills/`, a directory without a
 * SKILL.md) is a problem to fix, not something to upload silently.
 */

import { contentTypeFor, SKILLS_PREFIX } from "../../src/shared/buckets";

export { contentTypeFor, SKILLS_PREFIX };

/** Path segments Think's skill sources skip; never uploaded. */
const IGNORED_SEGMENTS = new Set([".git", "node_modules", ".DS_Store"]);

/** A file to upload: its path relative to the skills directory (with `/`), its key and content type. */
export type SkillFile = { path: string; key: string; contentType: string };

export type SkillLayout = {
  /** Every skill directory (one level below `skills/`), sorted. */
  skills: string[];
  /** Every file to upload, sorted by key. */
  files: SkillFile[];
  /** What is wrong with the tree; nothing is uploaded while this is non-empty. */
  problems: string[];
};

export function isIgnoredPath(path: string): boolean {
  return path.split("/").some((segment) => IGNORED_SEGMENTS.has(segment));
}


/**
 * Sorts the files found under the skills directory (relative paths with
 * `/`) into skills and their files, and names every path that does not fit
 * the layout.
 */
export function layoutSkills(paths: readonly string[], prefix: string = SKILLS_PREFIX): SkillLayout {
  const problems: string[] = [];
  const byDirectory = new Map<string, string[]>();
  for (const path of paths) {
    if (isIgnoredPath(path)) continue;
    const slash = path.indexOf("/");
    if (slash <= 0) {
      problems.push(`${path}: only skill directories belong directly under skills/`);
      continue;
    }
    const directory = path.slice(0, slash);
    byDirectory.set(directory, [...(byDirectory.get(directory) ?? []), path]);
  }
  const skills: string[] = [];
  const files: SkillFile[] = [];
  for (const [directory, entries] of byDirectory) {
    if (!entries.includes(`${directory}/SKILL.md`)) {
      problems.push(`${directory}/: a skill directory needs a SKILL.md`);
      continue;
    }
    skills.push(directory);
    for (const path of entries) files.push({ path, key: `${prefix}${path}`, contentType: contentTypeFor(path) });
  }
  skills.sort();
  files.sort((a, b) => compare(a.key, b.key));
  problems.sort();
  return { skills, files, problems };
}

export type SeedPlan = {
  /** Keys to write, sorted: every local file, so an edited file is always replaced. */
  put: string[];
  /** Keys under the prefix with no local file any more, sorted. */
  delete: string[];
};

/**
 * Every local key is put; every bucket key under the prefix that no local
 * file has is deleted. Keys outside the prefix are never touched, whatever
 * the listing holds.
 */
export function planSeed(localKeys: readonly string[], bucketKeys: readonly string[], prefix: string = SKILLS_PREFIX): SeedPlan {
  const local = new Set(localKeys);
  const stale = new Set(bucketKeys.filter((key) => key.startsWith(prefix) && !local.has(key)));
  return { put: [...local].sort(compare), delete: [...stale].sort(compare) };
}

// Code-unit order, the order R2 lists keys in; locale-independent.
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
