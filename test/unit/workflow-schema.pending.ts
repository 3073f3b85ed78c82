/**
 * The workflow files validated against GitHub's workflow schema with
 * @action-validator/core (a devDependency still to add: this session could
 * not install packages). Not yet a test file: once the package is in
 * package.json, rename this to workflow-schema.test.ts and the unit suite,
 * so `npm test`, runs it. Until then it fails loudly, naming the package.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const FOLDER = join(import.meta.dirname, "../../.github/workflows");
const PACKAGE = "@action-validator/core";

type ValidationState = { errors: { code: string; title: string; detail?: string; path?: string }[] };
type Validator = { validateWorkflow: (source: string) => ValidationState };

/** The validator, or an error that says what to add; a name in a variable keeps tsc from needing the package. */
async function validator(): Promise<Validator> {
  try {
    // The package is CommonJS built by wasm-pack: its functions are named exports or sit on the default one.
    const module = (await import(PACKAGE)) as Partial<Validator> & { default?: Validator };
    return module.validateWorkflow ? (module as Validator) : module.default!;
  } catch (cause) {
    throw new Error(`${PACKAGE} is not installed: add it with \`npm install --save-dev ${PACKAGE}\` to validate .github/workflows in npm test`, { cause });
  }
}

describe("the workflow files by GitHub's schema", () => {
  it.each(readdirSync(FOLDER).filter((name) => /\.ya?ml$/.test(name)))("%s validates", async (name) => {
    const { validateWorkflow } = await validator();
    expect(validateWorkflow(readFileSync(join(FOLDER, name), "utf8")).errors).toEqual([]);
  });
});
