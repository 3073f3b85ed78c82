/**
 * What a run reads from its repository on GitHub before the model starts
 * (src/run/prepare.ts), as the App with the run's token: a file at a ref
 * (the agent guidance files, `.github/agent-think.yml`), the App's own
 * open pull request for a branch, and an issue's body as it is now. A file GitHub does not have is null; any
 * other failure is a GitHubCallError, as in client.ts.
 */
import { callGitHub, GitHubCallError, octokitFor, ownerAndName, type GitHubClientOptions } from "./client";

export type OpenPullRequest = { number: number; url: string; branch: string };

export interface RepoReader {
  /** The file's text at `ref` (the default branch when absent), or null when there is no such file; at most `maxBytes` of it, and whether it was cut. */
  readFile(repo: string, path: string, ref: string | undefined, maxBytes: number): Promise<{ text: string; bytes: number; truncated: boolean } | null>;
  /** The open pull request whose head is `branch` in `repo` itself and whose author is `author`, or null. */
  openPullRequest(repo: string, branch: string, author: string): Promise<OpenPullRequest | null>;
  /** The issue's (or pull request's) body as GitHub has it now: "" for none. */
  issueBody(repo: string, issueNumber: number): Promise<string>;
}

export function createRepoReader(options: Omit<GitHubClientOptions, "botLogin">): RepoReader {
  const octokit = octokitFor(options);
  return {
    async readFile(repo, path, ref, maxBytes) {
      const { owner, name } = ownerAndName(repo);
      try {
        const response = await callGitHub(`read ${path}`, () =>
          octokit.rest.repos.getContent({
            owner,
            repo: name,
            path,
            ...(ref ? { ref } : {}),
            mediaType: { format: "raw" }
          })
        );
        // The raw media type answers the file's bytes; a directory would answer a JSON list.
        if (typeof response.data !== "string") return null;
        const bytes = new TextEncoder().encode(response.data);
        if (bytes.length <= maxBytes) return { text: response.data, bytes: bytes.length, truncated: false };
        const cut = new TextDecoder().decode(bytes.slice(0, maxBytes)).replace(/\uFFFD$/, "");
        return { text: cut, bytes: bytes.length, truncated: true };
      } catch (error) {
        if (error instanceof GitHubCallError && error.status === 404) return null;
        throw error;
      }
    },

    async openPullRequest(repo, branch, author) {
      const { owner, name } = ownerAndName(repo);
      const response = await callGitHub("list pull requests", () =>
        octokit.rest.pulls.list({ owner, repo: name, state: "open", head: `${owner}:${branch}`, per_page: 10 })
      );
      const wanted = author.toLowerCase();
      const found = response.data.find((pull) => pull.user?.login.toLowerCase() === wanted && pull.head.ref === branch);
      return found ? { number: found.number, url: found.html_url, branch } : null;
    },

    async issueBody(repo, issueNumber) {
      const { owner, name } = ownerAndName(repo);
      const response = await callGitHub("read the issue", () => octokit.rest.issues.get({ owner, repo: name, issue_number: issueNumber }));
      return response.data.body ?? "";
    }
  };
}
