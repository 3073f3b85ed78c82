/**
 * The GitHub calls the issue reporter makes: the shared client's reaction,
 * comment and marker search (src/github/client.ts), plus those only the
 * reporter needs: an edit of one of our comments (the progress comment),
 * 🚀 on a pull request review comment (a review itself has no reactions
 * endpoint on GitHub), and the outcome's label on the issue (GitHub creates
 * a label on first use). Same Octokit, same errors (`GitHubCallError`), no
 * retry of its own: the outbox retries durably.
 */
import {
  callGitHub,
  createGitHubClient,
  GitHubCallError,
  octokitFor,
  ownerAndName,
  type GitHubClient,
  type GitHubClientOptions,
  type ReactionContent
} from "../github/client";

export interface ReportClient extends GitHubClient {
  /** Replace the body of our comment `commentId`. */
  editComment(repo: string, commentId: number, body: string): Promise<void>;
  /** React on a pull request review comment (a line comment of the diff). */
  reactToReviewComment(repo: string, commentId: number, content: ReactionContent): Promise<void>;
  /** Give the issue `label`, and take off its other labels that begin with `replacing`; each step is safe to repeat. */
  labelIssue(repo: string, issueNumber: number, label: string, replacing: string): Promise<void>;
}

/** Labels compare as GitHub compares them, without case. */
const sameLabel = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

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
    },
    async labelIssue(repo, issueNumber, label, replacing) {
      const { owner, name } = ownerAndName(repo);
      const issue = { owner, repo: name, issue_number: issueNumber };
      // GitHub holds at most 100 labels on an issue: one page is all of them.
      const { data: labels } = await callGitHub("list labels", () => octokit.rest.issues.listLabelsOnIssue({ ...issue, per_page: 100 }));
      // Added before the old one goes, so the issue is never left without an outcome.
      if (!labels.some((held) => sameLabel(held.name, label))) await callGitHub("add label", () => octokit.rest.issues.addLabels({ ...issue, labels: [label] }));
      for (const held of labels) {
        if (sameLabel(held.name, label) || !held.name.toLowerCase().startsWith(replacing.toLowerCase())) continue;
        try {
          await callGitHub("remove label", () => octokit.rest.issues.removeLabel({ ...issue, name: held.name }));
        } catch (error) {
          // Someone took it off meanwhile: what was asked is done.
          if (!(error instanceof GitHubCallError && error.status === 404)) throw error;
        }
      }
    }
  };
}
