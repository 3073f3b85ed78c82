/**
 * The pull request calls the Worker makes for a run, as the App, with the
 * run's token (never from the sandbox, whose GitHub writes the egress
 * gateway refuses): the repository's default branch, the App's open pull
 * request for a branch, opening one, and updating one's title and body.
 * Errors are GitHubCallErrors, as in client.ts.
 */
import { callGitHub, octokitFor, ownerAndName, type GitHubClientOptions } from "./client";

export type PullRequestRef = { number: number; url: string };

export interface PullRequestClient {
  defaultBranch(repo: string): Promise<string>;
  /** The open pull request whose head is `branch` of `repo` itself and whose author is `author`, or null. */
  openByAuthor(repo: string, branch: string, author: string): Promise<PullRequestRef | null>;
  open(repo: string, pull: { head: string; base: string; title: string; body: string; draft: boolean }): Promise<PullRequestRef>;
  update(repo: string, number: number, pull: { title: string; body: string }): Promise<PullRequestRef>;
}

export function createPullRequestClient(options: Omit<GitHubClientOptions, "botLogin">): PullRequestClient {
  const octokit = octokitFor(options);
  return {
    async defaultBranch(repo) {
      const { owner, name } = ownerAndName(repo);
      const response = await callGitHub("read the repository", () => octokit.rest.repos.get({ owner, repo: name }));
      return response.data.default_branch;
    },
    async openByAuthor(repo, branch, author) {
      const { owner, name } = ownerAndName(repo);
      const response = await callGitHub("list pull requests", () => octokit.rest.pulls.list({ owner, repo: name, state: "open", head: `${owner}:${branch}`, per_page: 10 }));
      const wanted = author.toLowerCase();
      const found = response.data.find((pull) => pull.user?.login.toLowerCase() === wanted && pull.head.ref === branch);
      return found ? { number: found.number, url: found.html_url } : null;
    },
    async open(repo, pull) {
      const { owner, name } = ownerAndName(repo);
      const response = await callGitHub("open the pull request", () => octokit.rest.pulls.create({ owner, repo: name, ...pull }));
      return { number: response.data.number, url: response.data.html_url };
    },
    async update(repo, number, pull) {
      const { owner, name } = ownerAndName(repo);
      const response = await callGitHub("update the pull request", () => octokit.rest.pulls.update({ owner, repo: name, pull_number: number, ...pull }));
      return { number: response.data.number, url: response.data.html_url };
    }
  };
}
