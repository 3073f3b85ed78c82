/**
 * What a run reads from its repository on GitHub before the model starts (src/steps/prepare.ts),
 * as the App with the run's token: a file at a ref (guidance, `.github/agent-think.yml`), the
 * App's open pull request for a branch, an issue (or a pull request's conversation) with its
 * latest comments in one request (GitHub's `full` media type: `body_html` carries a private
 * image's signed address), the default branch and whether a branch's rules require signed commits
 * (docs/verified-commits.md). A missing file is null, any other failure a GitHubCallError. It
 * neither reveals nor bounds what people wrote (issue-facts.ts); `fetchAttachment` fetches with the
 * read-only token as attachment-fetch.ts allows. docs/skills.md, The workspace block.
 */
import { createAttachmentReader, type FetchedAttachment } from "./attachment-fetch";
import { callGitHub, GitHubCallError, octokitFor, ownerAndName, type GitHubClientOptions } from "./client";
import { requiresSignatures } from "../run/signed-commits";

/** GitHub's largest page. */
const MAX_PER_PAGE = 100;

export type OpenPullRequest = { number: number; url: string; branch: string };
/** An issue as GitHub answers it; `comments` is GitHub's count of them. Logins are null for a deleted account. */
export type IssueRead = { number: number; title: string; author: string | null; state: string; labels: string[]; body: string; comments: number; bodyHtml?: string };
export type CommentRead = { author: string | null; createdAt: string; body: string; bodyHtml?: string };

export interface RepoReader {
  /** The file's text at `ref` (the default branch when absent), or null when there is no such file; at most `maxBytes` of it, and whether it was cut. */
  readFile(repo: string, path: string, ref: string | undefined, maxBytes: number): Promise<{ text: string; bytes: number; truncated: boolean } | null>;
  /** The open pull request whose head is `branch` in `repo` itself and whose author is `author`, or null. */
  openPullRequest(repo: string, branch: string, author: string): Promise<OpenPullRequest | null>;
  /** The issue (or pull request) as GitHub has it now: its body "" for none, `comments` GitHub's count of them. */
  issue(repo: string, issueNumber: number): Promise<IssueRead>;
  /** The last `wanted` of the issue's `total` comments (GitHub's count, from `issue`), oldest first. */
  latestComments(repo: string, issueNumber: number, total: number, wanted: number): Promise<CommentRead[]>;
  /** The deployment's web host (github-urls.ts `host`), the one host `fetchAttachment` may send the token to; null when the API URL names none. */
  readonly webHost: string | null;
  /** One image or upload of the issue, at most `maxBytes`, from GitHub's hosts only (attachment-fetch.ts); never throws. */
  fetchAttachment(url: string, maxBytes: number): Promise<FetchedAttachment>;
  /** The repository's default branch. (A reader without it cannot tell how commits must reach GitHub: test doubles.) */
  defaultBranch?(repo: string): Promise<string>;
  /** Whether the rulesets that apply to `branch` (which need not exist) require signed commits. */
  branchRequiresSignatures?(repo: string, branch: string): Promise<boolean>;
}

/**
 * The page of GitHub's oldest-first listing of `total` items that holds the
 * last `wanted` of them: the smallest page size from `wanted` up to GitHub's
 * 100 whose page boundaries leave them together (one exists for every total
 * below two million), or null when none does.
 */
export function latestItemsPage(total: number, wanted: number): { perPage: number; page: number } | null {
  const first = Math.max(total - wanted, 0);
  const last = Math.max(total - 1, 0);
  for (let perPage = Math.max(wanted, 1); perPage <= MAX_PER_PAGE; perPage++) {
    if (Math.floor(first / perPage) === Math.floor(last / perPage)) return { perPage, page: Math.floor(last / perPage) + 1 };
  }
  return null;
}

export function createRepoReader(
  options: Omit<GitHubClientOptions, "botLogin"> & { attachments?: { repo: string; readToken: () => Promise<string> } }
): RepoReader {
  const octokit = octokitFor(options);
  const attachments = createAttachmentReader({
    apiUrl: options.baseUrl,
    repo: options.attachments?.repo ?? "",
    readToken: options.attachments?.readToken ?? (async () => ""),
    ...(options.fetch ? { fetch: options.fetch } : {})
  });
  return {
    webHost: attachments.webHost,

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

    async issue(repo, issueNumber) {
      const { owner, name } = ownerAndName(repo);
      const { data } = await callGitHub("read the issue", () => octokit.rest.issues.get({ owner, repo: name, issue_number: issueNumber, mediaType: { format: "full" } }));
      return {
        number: data.number,
        title: data.title,
        author: data.user?.login ?? null,
        state: data.state,
        labels: data.labels.map((label) => (typeof label === "string" ? label : (label.name ?? ""))).filter((label) => label !== ""),
        body: data.body ?? "",
        comments: data.comments,
        ...(data.body_html ? { bodyHtml: data.body_html } : {})
      };
    },

    async latestComments(repo, issueNumber, total, wanted) {
      if (total <= 0 || wanted <= 0) return [];
      const { owner, name } = ownerAndName(repo);
      const read = (perPage: number, page: number) =>
        callGitHub("list comments", () => octokit.rest.issues.listComments({ owner, repo: name, issue_number: issueNumber, per_page: perPage, page, mediaType: { format: "full" } }));
      const at = latestItemsPage(total, wanted);
      // No single page holds them: the last two of GitHub's largest pages do.
      const lastPage = Math.ceil(total / MAX_PER_PAGE);
      const pages = at ? [await read(at.perPage, at.page)] : [await read(MAX_PER_PAGE, lastPage - 1), await read(MAX_PER_PAGE, lastPage)];
      return pages
        .flatMap((response) => response.data)
        .slice(-wanted)
        .map((comment) => ({
          author: comment.user?.login ?? null,
          createdAt: comment.created_at,
          body: comment.body ?? "",
          ...(comment.body_html ? { bodyHtml: comment.body_html } : {})
        }));
    },

    fetchAttachment: (url, maxBytes) => attachments.fetchAttachment(url, maxBytes),

    async defaultBranch(repo) {
      const { owner, name } = ownerAndName(repo);
      return (await callGitHub("read the repository", () => octokit.rest.repos.get({ owner, repo: name }))).data.default_branch;
    },

    async branchRequiresSignatures(repo, branch) {
      const { owner, name } = ownerAndName(repo);
      // One page of GitHub's largest: a branch with more than 100 active rules is not a case worth a second request.
      const response = await callGitHub(`read the rules of ${branch}`, () => octokit.rest.repos.getBranchRules({ owner, repo: name, branch, per_page: MAX_PER_PAGE }));
      return requiresSignatures(response.data);
    }
  };
}
