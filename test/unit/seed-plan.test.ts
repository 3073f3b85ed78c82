/**
 * The seed's pure decisions: which files under skills/ are skill files, the
 * key and content type of each, which keys to put and which to delete given
 * a bucket listing, and the command line of `npm run seed:r2`.
 */
import { describe, expect, it } from "vitest";
import { contentTypeFor, isIgnoredPath, layoutSkills, planSeed, SKILLS_PREFIX } from "../../scripts/lib/seed-plan";
import { parseSeedArgs } from "../../scripts/lib/seed-args";

describe("layoutSkills", () => {
  it("maps every file of every skill to a key under skills/, sorted", () => {
    const layout = layoutSkills(["reproduce/SKILL.md", "open-pr/references/pull-request.md", "open-pr/SKILL.md", "reproduce/assets/repro-app/src/App.tsx"]);
    expect(layout.problems).toEqual([]);
    expect(layout.skills).toEqual(["open-pr", "reproduce"]);
    expect(layout.files).toEqual([
      { path: "open-pr/SKILL.md", key: "skills/open-pr/SKILL.md", contentType: "text/markdown; charset=utf-8" },
      { path: "open-pr/references/pull-request.md", key: "skills/open-pr/references/pull-request.md", contentType: "text/markdown; charset=utf-8" },
      { path: "reproduce/SKILL.md", key: "skills/reproduce/SKILL.md", contentType: "text/markdown; charset=utf-8" },
      { path: "reproduce/assets/repro-app/src/App.tsx", key: "skills/reproduce/assets/repro-app/src/App.tsx", contentType: "text/x-typescript; charset=utf-8" }
    ]);
  });

  it("names a file directly under skills/ and a directory without SKILL.md, and uploads neither", () => {
    const layout = layoutSkills(["README.md", "draft/notes.md", "reproduce/SKILL.md"]);
    expect(layout.problems).toEqual(["README.md: only skill directories belong directly under skills/", "draft/: a skill directory needs a SKILL.md"]);
    expect(layout.skills).toEqual(["reproduce"]);
    expect(layout.files.map((file) => file.key)).toEqual(["skills/reproduce/SKILL.md"]);
  });

  it("skips what Think's skill sources skip: .git, node_modules, .DS_Store", () => {
    const layout = layoutSkills(["reproduce/SKILL.md", "reproduce/node_modules/x/index.js", "reproduce/.DS_Store", ".git/HEAD"]);
    expect(layout.problems).toEqual([]);
    expect(layout.files.map((file) => file.path)).toEqual(["reproduce/SKILL.md"]);
    expect(isIgnoredPath("a/node_modules/b")).toBe(true);
    expect(isIgnoredPath("a/modules/b")).toBe(false);
  });

  it("takes another prefix", () => {
    expect(layoutSkills(["a/SKILL.md"], "x/").files[0]?.key).toBe("x/a/SKILL.md");
  });
});

describe("contentTypeFor", () => {
  it.each([
    ["reproduce/SKILL.md", "text/markdown; charset=utf-8"],
    ["a/assets/repro-app/package.json", "application/json; charset=utf-8"],
    ["a/assets/repro-app/wrangler.jsonc", "application/jsonc; charset=utf-8"],
    ["a/assets/repro-app/index.html", "text/html; charset=utf-8"],
    ["a/assets/repro-app/vite.config.ts", "text/x-typescript; charset=utf-8"],
    ["a/scripts/run.sh", "text/x-shellscript; charset=utf-8"],
    ["a/assets/logo.PNG", "image/png"],
    ["a/assets/data.bin", "application/octet-stream"],
    ["a/LICENSE", "application/octet-stream"],
    ["a/.env", "application/octet-stream"]
  ])("%s is %s", (path, type) => {
    expect(contentTypeFor(path)).toBe(type);
  });
});

describe("planSeed", () => {
  const local = ["skills/open-pr/SKILL.md", "skills/reproduce/SKILL.md"];

  it("puts every local key, into an empty bucket", () => {
    expect(planSeed(local, [])).toEqual({ put: local, delete: [] });
  });

  it("puts every local key again, so an edited file is replaced, and deletes nothing that still exists", () => {
    expect(planSeed(local, local)).toEqual({ put: local, delete: [] });
  });

  it("deletes the objects of a skill that no longer exists, and a file removed from a skill", () => {
    const bucket = [...local, "skills/old-skill/SKILL.md", "skills/old-skill/references/a.md", "skills/reproduce/references/gone.md"];
    expect(planSeed(local, bucket).delete).toEqual([
      "skills/old-skill/SKILL.md",
      "skills/old-skill/references/a.md",
      "skills/reproduce/references/gone.md"
    ]);
  });

  it("never deletes outside the prefix, whatever the listing holds", () => {
    const plan = planSeed(local, ["other/thing.txt", "skillsX/SKILL.md", "skills", "skills/gone/SKILL.md"]);
    expect(plan.delete).toEqual(["skills/gone/SKILL.md"]);
    expect(SKILLS_PREFIX).toBe("skills/");
  });

  it("sorts and de-duplicates", () => {
    expect(planSeed(["skills/b/SKILL.md", "skills/a/SKILL.md", "skills/a/SKILL.md"], ["skills/z", "skills/c"])).toEqual({
      put: ["skills/a/SKILL.md", "skills/b/SKILL.md"],
      delete: ["skills/c", "skills/z"]
    });
  });
});

describe("parseSeedArgs", () => {
  it("seeds the deployed bucket without flags", () => {
    expect(parseSeedArgs([])).toEqual({ ok: true, kind: "seed", args: { local: false } });
  });

  it("seeds the local bucket with --local, and the dev server's state directory with --persist-to", () => {
    expect(parseSeedArgs(["--local"])).toEqual({ ok: true, kind: "seed", args: { local: true } });
    expect(parseSeedArgs(["--local", "--persist-to", "tmp/state"])).toEqual({ ok: true, kind: "seed", args: { local: true, persistTo: "tmp/state" } });
    expect(parseSeedArgs(["--persist-to=tmp/state", "--local"])).toEqual({ ok: true, kind: "seed", args: { local: true, persistTo: "tmp/state" } });
  });

  it("refuses what it does not understand", () => {
    expect(parseSeedArgs(["--persist-to", "x"])).toEqual({ ok: false, error: "--persist-to only applies with --local" });
    expect(parseSeedArgs(["--local", "--persist-to"])).toEqual({ ok: false, error: "--persist-to needs a directory" });
    expect(parseSeedArgs(["--local", "--persist-to", "--remote"])).toEqual({ ok: false, error: "--persist-to needs a directory" });
    expect(parseSeedArgs(["--remote"])).toEqual({ ok: false, error: 'unknown argument "--remote"' });
  });

  it("answers --help", () => {
    expect(parseSeedArgs(["--local", "--help"])).toEqual({ ok: true, kind: "help" });
  });
});
