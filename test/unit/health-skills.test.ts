import { readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { REQUIRED_SKILLS, skillsHealth, type SkillListing } from "../../src/health/skills";

const SKILLS_DIR = fileURLToPath(new URL("../../skills", import.meta.url));
const listed = (names: string[], invalid: SkillListing["invalid"] = []) => ({ kind: "listed" as const, listing: { skills: names.map((name) => ({ name })), invalid } });

describe("REQUIRED_SKILLS", () => {
  it("is every skill directory under skills/", () => {
    const onDisk = readdirSync(SKILLS_DIR, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && existsSync(join(SKILLS_DIR, entry.name, "SKILL.md")))
      .map((entry) => entry.name)
      .sort();
    expect([...REQUIRED_SKILLS].sort()).toEqual(onDisk);
  });
});

describe("skillsHealth", () => {
  it("is ok when the bucket serves every required skill (and extra ones)", () => {
    expect(skillsHealth(listed([...REQUIRED_SKILLS, "extra"]), { localDev: false })).toMatchObject({ id: "skills", status: "ok" });
  });

  it("blocks an empty bucket with the seed command as the fix", () => {
    expect(skillsHealth(listed([]), { localDev: false })).toEqual({
      id: "skills",
      label: "Skills bucket",
      status: "block",
      detail: "SKILLS_BUCKET holds no skills",
      fix: "npm run seed:r2"
    });
    expect(skillsHealth(listed([]), { localDev: true }).fix).toContain("npm run seed:r2 -- --local");
  });

  it("blocks a bucket that lacks one, naming it and any unreadable skill", () => {
    const check = skillsHealth(listed(["address-review", "open-pr"], [{ location: "skills/reproduce/SKILL.md", reason: "no description" }]), { localDev: false });
    expect(check).toMatchObject({ status: "block", fix: "npm run seed:r2" });
    expect(check.detail).toBe("SKILLS_BUCKET lacks reproduce; unreadable: skills/reproduce/SKILL.md (no description)");
    expect(skillsHealth(listed(["open-pr", "reproduce"]), { localDev: false }).detail).toBe("SKILLS_BUCKET lacks address-review");
  });

  it("warns about an unreadable extra skill when the required ones are there", () => {
    expect(skillsHealth(listed([...REQUIRED_SKILLS], [{ location: "skills/odd/SKILL.md", reason: "bad" }]), { localDev: false }).status).toBe("warn");
  });

  it("blocks a missing binding or a listing that fails", () => {
    expect(skillsHealth({ kind: "unbound" }, { localDev: false })).toMatchObject({ status: "block", detail: "SKILLS_BUCKET is not bound", fix: expect.stringContaining("npm run seed:r2") });
    expect(skillsHealth({ kind: "failed", error: "no such bucket" }, { localDev: false })).toMatchObject({
      status: "block",
      detail: "SKILLS_BUCKET could not be listed: no such bucket",
      fix: expect.stringContaining("npm run seed:r2")
    });
  });
});
