/**
 * The reproduction page's template (skills/reproduce/assets/repro-app, the
 * files the image holds at /opt/agent-think/repro-app), run for real. A copy
 * under the project resolves this project's react, react-dom, vite and
 * @vitejs/plugin-react, which are the exact versions the image's `npm ci`
 * installs (checked first). `node check.mjs`, what `npm run repro` runs, is
 * given variants of src/repro.ts and answers with the exit codes the
 * reproduce skill reads: 0 matches, 1 differs (a throw included), 2 could not
 * run; its words only compare, never call a result a bug. One `vite build`
 * shows the page uses relative asset URLs. No network.
 */
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { matches, thrownResult, verdict } from "../../skills/reproduce/assets/repro-app/src/outcome";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TEMPLATE = join(ROOT, "skills", "reproduce", "assets", "repro-app");
// Under the project, so Node and Vite find its node_modules; test-results/ is ignored by git.
const SCRATCH = join(ROOT, "test-results");
mkdirSync(SCRATCH, { recursive: true });
const WORK = mkdtempSync(join(SCRATCH, "repro-template-"));
afterAll(() => rmSync(WORK, { recursive: true, force: true }));

let copies = 0;
/** A fresh copy of the template, with src/repro.ts replaced when `repro` is given. */
function templateCopy(repro?: string): string {
  const dir = join(WORK, String(copies++));
  cpSync(TEMPLATE, dir, { recursive: true, filter: (source) => !/[/\\](node_modules|dist)$/.test(source) });
  if (repro !== undefined) writeFileSync(join(dir, "src", "repro.ts"), repro);
  return dir;
}

/** `npm run repro`'s command in a copy: the exit code and both streams. */
function check(repro?: string): { code: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, ["check.mjs"], { cwd: templateCopy(repro), encoding: "utf8", timeout: 15_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A filled-in src/repro.ts whose triggerBug() has `body`. */
function reproWith(body: string, imports = ""): string {
  return `${imports}
export type ReproResult = { expected: string; actual: string };

export const REPRO = {
  title: "camelCase drops the case of acronyms",
  issueUrl: "https://github.com/acme/widgets/issues/7",
  mode: "live" as "live" | "recorded",
  note: ""
};

export async function triggerBug(): Promise<ReproResult> {
${body}
}
`;
}

const pkg = JSON.parse(readFileSync(join(TEMPLATE, "package.json"), "utf8")) as {
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

describe("the template's dependencies", () => {
  it("are the exact versions this project has installed, so this test runs what the image runs", () => {
    const named = { ...pkg.dependencies, ...pkg.devDependencies };
    expect(Object.keys(named).sort()).toEqual(["@vitejs/plugin-react", "react", "react-dom", "vite"]);
    for (const [name, version] of Object.entries(named)) {
      const installed = (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
      expect({ name, installed }).toEqual({ name, installed: version });
    }
    expect(pkg.scripts.repro).toBe("node check.mjs");
  });
});

describe("check.mjs", () => {
  it("runs on a Node that strips TypeScript types (22.18 and later)", () => {
    expect(process.features.typescript).toBeTruthy();
  });

  it("exits 0 and prints both values when actual matches expected", () => {
    const run = check(reproWith(`  return { expected: "ids", actual: "IDs".toLowerCase() };`));
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ expected: "ids", actual: "ids" });
    expect(run.stderr).toContain("Matches expected");
  });

  it("only compares: neither answer calls the result a bug or a reproduction (the skill decides that from the evidence)", () => {
    const same = check(reproWith(`  return { expected: "ids", actual: "ids" };`));
    const different = check(reproWith(`  return { expected: "ids", actual: "iDs" };`));
    expect([same.code, different.code]).toEqual([0, 1]);
    expect(same.stderr.trim()).toBe("Matches expected");
    expect(different.stderr.trim()).toBe("Differs from expected");
    for (const text of [same.stderr, different.stderr, readFileSync(join(TEMPLATE, "src", "outcome.ts"), "utf8").split("\n").filter((line) => !line.startsWith("//")).join("\n")]) {
      expect(text).not.toMatch(/\bbug\b|reproduced/i);
    }
  });

  it("exits 1 and prints both values when they differ, with several examples folded into one by JSON.stringify", () => {
    const body = `  const camelCase = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
  return {
    expected: JSON.stringify({ "camelCase('IDs')": "ids", "camelCase('AmazingIDs')": "amazingIds", react: "19" }, null, 2),
    actual: JSON.stringify({ "camelCase('IDs')": camelCase("IDs"), "camelCase('AmazingIDs')": camelCase("AmazingIDs"), react: version.split(".")[0] }, null, 2)
  };`;
    // A package import resolves: react is in the template's dependencies.
    const run = check(reproWith(body, `import { version } from "react";\n`));
    expect(run.code).toBe(1);
    const printed = JSON.parse(run.stdout) as { expected: string; actual: string };
    expect(JSON.parse(printed.actual)).toEqual({ "camelCase('IDs')": "iDs", "camelCase('AmazingIDs')": "amazingIDs", react: "19" });
    expect(JSON.parse(printed.expected)).toMatchObject({ "camelCase('IDs')": "ids" });
    expect(run.stderr).toContain(
      `Differs from expected\n  camelCase('IDs'): expected "ids", actual "iDs"\n  camelCase('AmazingIDs'): expected "amazingIds", actual "amazingIDs"\n`
    );
  });

  it("takes a triggerBug() that throws as a result: exit 1, actual 'threw <Name>: <message>', the error and its stack on stderr", () => {
    const run = check(reproWith(`  const parsed = JSON.parse("null") as { ids: string[] };
  return { expected: "ids", actual: parsed.ids.join(",") };`));
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toEqual({ expected: "no error", actual: "threw TypeError: Cannot read properties of null (reading 'ids')" });
    expect(run.stderr).toContain("triggerBug() threw:\nTypeError: Cannot read properties of null (reading 'ids')\n    at ");
    expect(run.stderr).toMatch(/src\/repro\.ts:\d+:\d+/);
  });

  it("exits 2 on the untouched template, and on a template triggerBug() under a real title", () => {
    const untouched = check();
    expect(untouched.code).toBe(2);
    expect(untouched.stdout).toBe("");
    expect(untouched.stderr).toContain("src/repro.ts is still the template");
    expect(untouched.stderr).toMatch(/^hint: /m);

    const template = readFileSync(join(TEMPLATE, "src", "repro.ts"), "utf8");
    const titled = check(template.replace(/title: "REPLACE[^"]*"/, 'title: "a real title"'));
    expect(titled.code).toBe(2);
    expect(titled.stderr).toContain("src/repro.ts is still the template (triggerBug)");
  });

  it("exits 2 with the error and a hint when src/repro.ts has TypeScript Node cannot strip (an enum)", () => {
    const run = check(reproWith(`  return { expected: Case.Lower, actual: Case.Lower };`, `enum Case { Lower = "lower" }\n`));
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("src/repro.ts failed to load");
    expect(run.stderr).toContain("ERR_UNSUPPORTED_TYPESCRIPT_SYNTAX");
    expect(run.stderr).toMatch(/^hint: .*instead of an enum/m);
  });

  it("exits 2 with an npm install hint when src/repro.ts imports a package that is not installed", () => {
    const run = check(reproWith(`  return { expected: "a", actual: "a" };`, `import "agent-think-no-such-package";\n`));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("Cannot find package 'agent-think-no-such-package'");
    expect(run.stderr).toMatch(/^hint: .*npm install --save-exact <package>@<version>/m);
  });

  it("exits 2 when triggerBug() returns something other than two strings", () => {
    const run = check(reproWith(`  return { expected: ["ids"], actual: ["iDs"] } as unknown as ReproResult;`));
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^hint: .*JSON\.stringify/m);
  });
});

describe("the page", () => {
  it("shows a thrown error as the actual result the way check.mjs prints it", () => {
    const app = readFileSync(join(TEMPLATE, "src", "App.tsx"), "utf8");
    expect(app).toContain('import { thrownResult, verdict } from "./outcome";');
    expect(app).toContain("result: thrownResult(error)");
    expect(app).toContain("{verdict(result)}");
    const thrown = thrownResult(new TypeError("x is not a function"));
    expect(thrown).toEqual({ expected: "no error", actual: "threw TypeError: x is not a function" });
    expect(verdict(thrown)).toBe("Differs from expected");
    expect(matches({ expected: "a", actual: "a" })).toBe(true);
    expect(verdict({ expected: "a", actual: "a" })).toBe("Matches expected");
  });

  it("builds with vite to a dist/index.html whose asset URLs are relative", () => {
    const dir = templateCopy(reproWith(`  return { expected: "ids", actual: "iDs" };`));
    const vite = join(ROOT, "node_modules", "vite", "bin", "vite.js");
    const build = spawnSync(process.execPath, [vite, "build", "--logLevel", "warn"], { cwd: dir, encoding: "utf8", timeout: 60_000 });
    expect({ code: build.status, stderr: build.stderr }).toEqual({ code: 0, stderr: "" });
    const html = readFileSync(join(dir, "dist", "index.html"), "utf8");
    const urls = [...html.matchAll(/\b(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url).toMatch(/^\.\/assets\//);
  });
});
