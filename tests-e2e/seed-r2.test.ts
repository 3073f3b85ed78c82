/**
 * The seed script against the R2 bucket of a real `wrangler dev --local`:
 * skills seeded into a state directory before the server starts are the ones
 * its Worker lists through Think's R2 skill source (`GET /dev/skills`, open
 * only with LOCAL_DEV=1), and a reseed while it runs, from a copy of
 * `skills/` with one skill removed, deletes that skill's objects so the
 * listing drops it.
 *
 * Both orders work, and both matter (`npm start` seeds before wrangler
 * starts; a contributor reseeds while it runs): the seed opens the very R2
 * storage the dev server uses, SQLite metadata and blob files under
 * `<persistTo>/v3/r2/<bucket>`, in a Miniflare of its own. SQLite's file
 * locking lets the two processes share it, and the local R2 reads those files
 * on every request, so a put or delete is visible to the running Worker at
 * once, which the reseed test checks without polling. (`/dev/skills` builds
 * a fresh skill source per request; a long-lived Think R2 source would reuse
 * its listing for 60 s.)
 */
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedSkills } from "../scripts/lib/seed-skills";
import { ROOT, startDevServer } from "./fixture";

type SkillSummary = { name: string; description: string };
type SkillListing = { skills: SkillSummary[]; invalid: Array<{ location: string; reason: string }> };

async function listSkills(url: string): Promise<SkillSummary[]> {
  const response = await fetch(`${url}/dev/skills`);
  const text = await response.text();
  expect(response.status, `GET /dev/skills: ${text}`).toBe(200);
  const body = JSON.parse(text) as SkillListing;
  // Think's parser in the Worker accepts every seeded SKILL.md.
  expect(body.invalid ?? []).toEqual([]);
  return [...body.skills].sort((a, b) => a.name.localeCompare(b.name));
}

const listNames = async (url: string) => (await listSkills(url)).map((skill) => skill.name);

async function countFiles(directory: string): Promise<number> {
  return (await readdir(directory, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).length;
}

describe("npm run seed:r2 -- --local against wrangler dev", () => {
  let stateDir: string;
  let copyDir: string;
  let server: Awaited<ReturnType<typeof startDevServer>>;

  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), "agent-think-seed-e2e-"));
    copyDir = await mkdtemp(join(tmpdir(), "agent-think-skills-copy-"));
    // Seeded before the server starts, as `npm start` does.
    const seeded = await seedSkills({ local: true, persistTo: stateDir });
    expect(seeded).toMatchObject({ target: "local", skills: ["address-review", "open-pr", "reproduce"], deleted: 0 });
    server = await startDevServer({ localDev: true, persistTo: stateDir });
  });

  afterAll(async () => {
    await server?.stop();
    await rm(stateDir, { recursive: true, force: true });
    await rm(copyDir, { recursive: true, force: true });
  });

  it("the dev Worker lists the seeded skills with their descriptions", async () => {
    const skills = await listSkills(server.url);
    expect(skills.map((skill) => skill.name), server.output()).toEqual(["address-review", "open-pr", "reproduce"]);
    for (const skill of skills) expect(skill.description).toMatch(/Use when/);
  });

  it("a reseed without a skill deletes its objects, and the running Worker stops listing it", async () => {
    const skillsCopy = join(copyDir, "skills");
    await cp(join(ROOT, "skills"), skillsCopy, { recursive: true });
    const openPrFiles = await countFiles(join(skillsCopy, "open-pr"));
    await rm(join(skillsCopy, "open-pr"), { recursive: true });

    const reseeded = await seedSkills({ local: true, persistTo: server.persistTo, skillsDir: skillsCopy });
    expect(reseeded.skills).toEqual(["address-review", "reproduce"]);
    expect(reseeded.deleted).toBe(openPrFiles);
    expect(await listNames(server.url)).toEqual(["address-review", "reproduce"]);

    // And back: seeding the real tree again restores it while the server runs.
    const restored = await seedSkills({ local: true, persistTo: server.persistTo });
    expect(restored.deleted).toBe(0);
    expect(await listNames(server.url)).toEqual(["address-review", "open-pr", "reproduce"]);
  });
});
