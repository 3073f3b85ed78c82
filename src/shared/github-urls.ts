/** Links to GitHub pages a human follows. Pure. */
export const GITHUB_WEB_URL = "https://github.com";

export const issueUrl = (repo: string, issueNumber: number) => `${GITHUB_WEB_URL}/${repo}/issues/${issueNumber}`;

export const commentUrl = (repo: string, issueNumber: number, commentId: number) =>
  `${issueUrl(repo, issueNumber)}#issuecomment-${commentId}`;
