/**
 * The skills line: whether SKILLS_BUCKET holds every skill the agent needs,
 * as Think's R2 skill source reads them (src/run/skills.ts). The Worker
 * cannot read the repository at runtime, so the list it needs is
 * `REQUIRED_SKILLS`, kept equal to the directories under skills/ by
 * test/unit/health-skills.test.ts. No binding, a listing that fails or a
 * skill missing blocks: a run that activates a missing skill has nothing to
 * follow. Pure: the caller lists the bucket.
 */
import type { HealthCheck } from "../shared/health";
import { HEALTH_LABELS } from "./labels";

/** The skills under skills/ that the agent is told to use. */
export const REQUIRED_SKILLS = ["address-review", "open-pr", "reproduce"] as const;

export type SkillListing = { skills: ReadonlyArray<{ name: string }>; invalid: ReadonlyArray<{ location: string; reason: string }> };

/** What listing the bucket found: no binding, a failed listing, or the skills it serves. */
export type SkillsProbe = { kind: "unbound" } | { kind: "failed"; error: string } | { kind: "listed"; listing: SkillListing };

const LABEL = HEALTH_LABELS.skills;

export function seedCommand(localDev: boolean): string {
  return localDev ? "npm run seed:r2 -- --local (npm start does it)" : "npm run seed:r2";
}

export function skillsHealth(probe: SkillsProbe, options: { localDev: boolean }): HealthCheck {
  const seed = seedCommand(options.localDev);
  if (probe.kind === "unbound") {
    return { id: "skills", label: LABEL, status: "block", detail: "SKILLS_BUCKET is not bound", fix: `add the SKILLS_BUCKET r2_buckets entry to wrangler.jsonc, then ${seed}` };
  }
  if (probe.kind === "failed") {
    return { id: "skills", label: LABEL, status: "block", detail: `SKILLS_BUCKET could not be listed: ${probe.error}`, fix: `create the bucket wrangler.jsonc names, then ${seed}` };
  }
  const { listing } = probe;
  const present = new Set(listing.skills.map((skill) => skill.name));
  const missing = REQUIRED_SKILLS.filter((name) => !present.has(name));
  const invalid = listing.invalid.length > 0 ? `; unreadable: ${listing.invalid.map((entry) => `${entry.location} (${entry.reason})`).join(", ")}` : "";
  if (missing.length > 0) {
    const none = missing.length === REQUIRED_SKILLS.length && present.size === 0;
    return {
      id: "skills",
      label: LABEL,
      status: "block",
      detail: `${none ? "SKILLS_BUCKET holds no skills" : `SKILLS_BUCKET lacks ${missing.join(", ")}`}${invalid}`,
      fix: seed
    };
  }
  if (invalid) {
    return { id: "skills", label: LABEL, status: "warn", detail: `every required skill is present${invalid}`, fix: `fix the SKILL.md named, then ${seed}` };
  }
  return { id: "skills", label: LABEL, status: "ok", detail: `holds every skill the agent uses: ${REQUIRED_SKILLS.join(", ")}` };
}
