/**
 * What `open_pull_request` takes and answers, and where its pull request
 * goes: the run's push branch, on the run's repository, never the model's
 * choice (src/steps/open-pull-request.ts does the opening). Where the run's
 * commits must be signed, it first makes them through GitHub's API
 * (docs/verified-commits.md) and says which it made.
 */
import type { ProofRecord } from "./fix-proof";
import type { WritePolicy } from "./write-policy";

/** What `open_pull_request` made through GitHub's API: each local commit and GitHub's, the branch's head, and whether the clone stands on it. */
export type ApiCommitsSummary = {
  made: Array<{ local: string; oid: string; headline: string }>;
  head: string;
  createdBranch?: boolean;
  /** True when the clone was moved onto `head`; otherwise why not. */
  clone: "moved onto the commits GitHub made" | string;
};

export const MAX_PULL_REQUEST_TITLE_CHARS = 256;

export type OpenPullRequestInput = { title: string; body: string; draft?: boolean; check?: string };

export type OpenPullRequestResult =
  | { ok: true; action: "opened" | "updated"; number: number; url: string; head: string; base: string; proof?: ProofRecord; commits?: ApiCommitsSummary }
  | { ok: false; error: string; commits?: ApiCommitsSummary };

export type PullRequestTarget = {
  repo: string;
  policy: WritePolicy;
  /** The App's open pull request for the push branch, as the run's preparation found it. */
  openPullRequest?: { number: number };
  /** The run is on this pull request, which is the App's own (its policy pushes to its head). */
  ownPullRequest?: { number: number };
  /** The App's bot login, whose pull requests count as the App's. */
  botLogin?: string;
  /** "api": the run's commits are made through GitHub's API before the pull request is opened or updated (they must be signed). */
  commits?: "api";
};
