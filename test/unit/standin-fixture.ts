/**
 * The GitHub stand-in for a unit test file: GitHub's REST description,
 * loaded once before the file's tests (the first load in a process parses
 * and indexes 13 MB, about a second; later ones are cached), and a
 * `start()` whose stand-in is closed after each test, with `cleanup` run
 * too.
 */
import { afterEach, beforeAll } from "vitest";
import { loadGitHubDescription, type GitHubDescription } from "../../scripts/lib/github-openapi";
import { startGitHubStandin, type GitHubStandin, type StandinOptions } from "../../scripts/lib/github-standin";

export function standinFixture(cleanup: () => void = () => {}) {
  let description: GitHubDescription | undefined;
  let standin: GitHubStandin | undefined;
  beforeAll(async () => {
    description = await loadGitHubDescription();
  }, 30_000);
  afterEach(async () => {
    await standin?.close();
    standin = undefined;
    cleanup();
  });
  return {
    /** The api.github.com description (after the file's beforeAll). */
    description: (): GitHubDescription => {
      if (!description) throw new Error("the description loads in beforeAll");
      return description;
    },
    async start(options: StandinOptions = {}): Promise<GitHubStandin> {
      standin = await startGitHubStandin(options);
      return standin;
    }
  };
}
