/**
 * The seed's I/O around the planner: reading and checking a skills directory
 * (nothing is uploaded while any SKILL.md has a warning), and making a
 * bucket match it, against an in-memory bucket that lists in pages and
 * records what it was asked. The real local bucket of `wrangler dev` is
 * covered end to end in tests-e2e/seed-r2.test.ts.
 */
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { formatSeedSummary, readSkillTree, SeedError, syncBucket } from "../../scripts/lib/seed-skills";
import { layoutSkills } from "../../scripts/lib/seed-plan";
import type { SeedBucket } from "../../scripts/lib/skills-bucket";

const skillMarkdown = (name: string, description = `Does ${name}. Use when testing.`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n\n# ${name}\n`;

let dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
  dirs = [];
});

async function skillsDir(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "agent-think-skills-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

async function refusal(promise: Promise<unknown>): Promise<SeedError> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught
  );
  expect(error).toBeInstanceOf(SeedError);
  return error as SeedError;
}

/** An R2 bucket in memory: lists `pageSize` keys at a time, records puts and deletes. */
class FakeBucket implements SeedBucket {
  readonly objects = new Map<string, { text: string; contentType: string }>();
  readonly deleteCalls: string[][] = [];
  constructor(private readonly pageSize = 1_000) {}

  async list(options: { prefix: string; cursor?: string }) {
    const keys = [...this.objects.keys()].filter((key) => key.startsWith(options.prefix)).sort();
    const start = options.cursor === undefined ? 0 : Number(options.cursor);
    const page = keys.slice(start, start + this.pageSize);
    const next = start + page.length;
    return next < keys.length
      ? { objects: page.map((key) => ({ key })), truncated: true, cursor: String(next) }
      : { objects: page.map((key) => ({ key })), truncated: false };
  }

  async put(key: string, value: Uint8Array, options: { httpMetadata: { contentType: string } }) {
    this.objects.set(key, { text: new TextDecoder().decode(value), contentType: options.httpMetadata.contentType });
  }

  async delete(keys: string[]) {
    this.deleteCalls.push(keys);
    for (const key of keys) this.objects.delete(key);
  }
}

const encode = (text: string) => new TextEncoder().encode(text);

describe("readSkillTree", () => {
  it("returns every file of every valid skill", async () => {
    const dir = await skillsDir({
      "alpha/SKILL.md": skillMarkdown("alpha"),
      "alpha/references/guide.md": "# guide",
      "beta/SKILL.md": skillMarkdown("beta"),
      "beta/node_modules/x/index.js": "ignored"
    });
    expect((await readSkillTree(dir)).map((file) => file.key)).toEqual([
      "skills/alpha/SKILL.md",
      "skills/alpha/references/guide.md",
      "skills/beta/SKILL.md"
    ]);
  });

  it("refuses a skill whose name does not match its directory (a parser warning)", async () => {
    const dir = await skillsDir({ "alpha/SKILL.md": skillMarkdown("alpha"), "beta/SKILL.md": skillMarkdown("gamma") });
    const error = await refusal(readSkillTree(dir));
    expect(error.code).toBe("invalid-skills");
    expect(error.problems).toEqual([expect.stringMatching(/^beta\/SKILL\.md: name-mismatch: /)]);
  });

  it("refuses a skill with no description, a bad name, or no frontmatter, naming each", async () => {
    const dir = await skillsDir({
      "a/SKILL.md": "---\nname: a\n---\nbody\n",
      "Bad_Name/SKILL.md": skillMarkdown("Bad_Name"),
      "c/SKILL.md": "# no frontmatter\n"
    });
    const error = await refusal(readSkillTree(dir));
    expect(error.problems.map((problem) => problem.split(":").slice(0, 2).join(":"))).toEqual([
      "Bad_Name/SKILL.md: invalid-name",
      "a/SKILL.md: invalid-description",
      "c/SKILL.md: missing-frontmatter"
    ]);
    expect(error.message).toMatch(/^skills not seeded:\n {2}- Bad_Name\/SKILL\.md/);
  });

  it("refuses a tree that does not have the layout, and an empty one", async () => {
    const stray = await skillsDir({ "README.md": "hi", "alpha/SKILL.md": skillMarkdown("alpha") });
    expect((await refusal(readSkillTree(stray))).problems).toEqual(["README.md: only skill directories belong directly under skills/"]);
    const empty = await skillsDir({});
    expect((await refusal(readSkillTree(empty))).code).toBe("no-skills");
  });
});

describe("syncBucket", () => {
  const files = layoutSkills(["alpha/SKILL.md", "alpha/references/guide.md", "beta/SKILL.md"]).files;
  const read = async (file: { path: string }) => encode(`content of ${file.path}`);

  it("uploads every file with its content type into an empty bucket", async () => {
    const bucket = new FakeBucket();
    expect(await syncBucket(bucket, files, read)).toEqual({ uploaded: 3, deleted: 0 });
    expect(Object.fromEntries(bucket.objects)).toEqual({
      "skills/alpha/SKILL.md": { text: "content of alpha/SKILL.md", contentType: "text/markdown; charset=utf-8" },
      "skills/alpha/references/guide.md": { text: "content of alpha/references/guide.md", contentType: "text/markdown; charset=utf-8" },
      "skills/beta/SKILL.md": { text: "content of beta/SKILL.md", contentType: "text/markdown; charset=utf-8" }
    });
  });

  it("replaces edited files, deletes objects with no file across listing pages, and leaves other prefixes alone", async () => {
    const bucket = new FakeBucket(2);
    await bucket.put("skills/alpha/SKILL.md", encode("old"), { httpMetadata: { contentType: "text/plain" } });
    for (const key of ["skills/gone/SKILL.md", "skills/gone/a.md", "skills/gone/b.md", "skills/alpha/old.md", "elsewhere/keep.txt"]) {
      await bucket.put(key, encode("x"), { httpMetadata: { contentType: "text/plain" } });
    }
    expect(await syncBucket(bucket, files, read)).toEqual({ uploaded: 3, deleted: 4 });
    expect([...bucket.objects.keys()].sort()).toEqual([
      "elsewhere/keep.txt",
      "skills/alpha/SKILL.md",
      "skills/alpha/references/guide.md",
      "skills/beta/SKILL.md"
    ]);
    expect(bucket.objects.get("skills/alpha/SKILL.md")?.text).toBe("content of alpha/SKILL.md");
  });

  it("deletes in calls of at most 1,000 keys", async () => {
    const bucket = new FakeBucket();
    for (let index = 0; index < 2_500; index++) bucket.objects.set(`skills/old/${index}.md`, { text: "", contentType: "" });
    expect(await syncBucket(bucket, files, read)).toEqual({ uploaded: 3, deleted: 2_500 });
    expect(bucket.deleteCalls.map((keys) => keys.length)).toEqual([1_000, 1_000, 500]);
  });
});

describe("formatSeedSummary", () => {
  it("says where, how many uploaded and deleted, and which skills, on one line", () => {
    const local = formatSeedSummary({
      target: "local",
      bucketName: "agent-think-skills",
      persistTo: "/p/.wrangler/state",
      skills: ["open-pr", "reproduce"],
      uploaded: 11,
      deleted: 2
    });
    expect(local).toBe("seed:r2: local agent-think-skills in /p/.wrangler/state: uploaded 11, deleted 2 (skills: open-pr, reproduce)");
    const remote = formatSeedSummary({ target: "remote", bucketName: "agent-think-skills", skills: ["reproduce"], uploaded: 1, deleted: 0 });
    expect(remote).toBe("seed:r2: R2 bucket agent-think-skills: uploaded 1, deleted 0 (skills: reproduce)");
  });
});
