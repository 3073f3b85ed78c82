/**
 * The GitHub calls the issue reporter makes: the shared client's reaction,
 * comment and marker search (src/github/client.ts), plus the two only the
 * reporter needs: an edit of one of our comments (the progress comment,
 * `PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}`) and 🚀 on a
 * pull request review comment (`POST /repos/{owner}/{repo}/pulls/comments/
 * {comment_id}/reactions`; a review itself has no reactions endpoint on
 * GitHub). Same Octokit, same errors (`GitHubCallError`), no retry of its
 * own: the outbox retries durably.
 */
import { callGitHub, createGitHubClient, octokitFor, ownerAndName, type GitHubClient, type GitHubClientOptions, type ReactionContent } from "../github/client";

export interface ReportClient extends GitHubClient {
  /** Replace the body of our comment `commentId`. */
  editComment(repo: string, commentId: number, body: string): Promise<void>;
  /** React on a pull request review comment (a line comment of the diff). */
  reactToReviewComment(repo: string, commentId: number, content: ReactionContent): Promise<void>;
}

export function createReportClient(options: GitHubClientOptions): ReportClient {
  const octokit = octokitFor(options);
  return {
    ...createGitHubClient(options),
    async editComment(repo, commentId, body) {
      const { owner, name } = ownerAndName(repo);
      await callGitHub("edit comment", () => octokit.rest.issues.updateComment({ owner, repo: name, comment_id: commentId, body }));
    },
    async reactToReviewComment(repo, commentId, content) {
      const { owner, name } = ownerAndName(repo);
      await callGitHub(`react ${content} on a review comment`, () =>
        octokit.rest.reactions.createForPullRequestReviewComment({ owner, repo: name, comment_id: commentId, content })
      );
    }
  };
}
