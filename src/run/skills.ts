/**
 * Where the agent's skills come from: Think's R2 skill source over the
 * SKILLS_BUCKET, which `npm run seed:r2` fills from skills/**. Editing the
 * files in the repository changes nothing until the bucket is reseeded.
 */
import { skills } from "@cloudflare/think";
import { SKILLS_PREFIX } from "../shared/buckets";

export type SkillSource = ReturnType<typeof skills.r2>;

export function skillSource(bucket: R2Bucket): SkillSource {
  return skills.r2(bucket, { prefix: SKILLS_PREFIX });
}

export type ListedSkillSummary = { name: string; description: string };

/** The skills the bucket serves, by name and description; invalid ones are named with why. */
export async function listSkills(
  source: SkillSource
): Promise<{ skills: ListedSkillSummary[]; invalid: Array<{ location: string; reason: string }> }> {
  const result = await source.list();
  if (!result.ok) throw new Error(`skills could not be listed: ${result.error.message}`);
  return {
    skills: result.value.skills.map(({ skill }) => ({ name: skill.name, description: skill.description })),
    invalid: result.value.invalid.map((entry) => ({ location: entry.location, reason: entry.error.message }))
  };
}
