/**
 * Checks a SKILL.md the way Think will read it: with the Agent Skills parser
 * from `agents/skills` (the one `@cloudflare/think` re-exports as `skills`),
 * told its directory so a name that does not match is caught. A skill that
 * fails to parse or parses with any warning is a problem: Think would skip it
 * or load it with a logged warning nobody reads. Used by the seed script and
 * the skill contract test.
 */
import { parseSkill, type Skill } from "agents/skills";

export type SkillCheck = { ok: true; skill: Skill } | { ok: false; problems: string[] };

/** `directory` is the skill's directory name under `skills/`. */
export function checkSkill(directory: string, markdown: string): SkillCheck {
  const parsed = parseSkill(markdown, { directory });
  const where = `${directory}/SKILL.md`;
  if (!parsed.ok) return { ok: false, problems: [`${where}: ${parsed.error.code}: ${parsed.error.message}`] };
  if (parsed.warnings.length > 0) {
    return { ok: false, problems: parsed.warnings.map((warning) => `${where}: ${warning.code}: ${warning.message}`) };
  }
  return { ok: true, skill: parsed.value };
}
