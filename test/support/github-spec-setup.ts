/**
 * The Workers tests' global setup (in Node, before any test file): starts
 * the GitHub stand-in twice, once judging by api.github.com's REST
 * description and once by GitHub Enterprise Server 3.19's, and provides
 * their URLs to the tests (`inject("githubSpec")`). The MSW handlers
 * inside workerd cannot run the validator themselves (Ajv generates code,
 * which workerd forbids), so they ask these stand-ins'
 * `POST /_standin/validate` about every request before they answer it
 * (test/support/github-spec.ts). Nothing is answered by these two; they
 * only judge. A third, Enterprise Server 3.19's too, is a whole GitHub for
 * a test that forwards its GitHub calls to it (`inject("githubStandin")`:
 * test/verified-commits.test.ts). Both the Workers suite and the webhook
 * app's use it.
 */
import type { TestProject } from "vitest/node";
import { startGitHubStandin, type GitHubStandin } from "../../scripts/lib/github-standin";
import type {} from "./github-spec";

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const standins: GitHubStandin[] = await Promise.all([
    startGitHubStandin(),
    startGitHubStandin({ description: "ghes-3.19" }),
    startGitHubStandin({ description: "ghes-3.19", webhook: null })
  ]);
  const [github, enterprise, answering] = standins as [GitHubStandin, GitHubStandin, GitHubStandin];
  project.provide("githubSpec", { "api.github.com": github.url, "ghes-3.19": enterprise.url });
  project.provide("githubStandin", answering.url);
  return async () => {
    await Promise.all(standins.map((standin) => standin.close()));
  };
}
