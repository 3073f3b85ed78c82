/**
 * What `open_pull_request` takes and answers, and where its pull request
 * goes: the run's push branch, on the run's repository, never the model's
 * choice (src/steps/open-pull-request.ts does the opening).
 */
import type { ProofRecord } from "./fix-proof";
import type { WritePolicy } from "./write-policy";

export const MAX_PULL_REQUEST_TITLE_CHARS = 256;

export type OpenPullRequestInput = { title: string; body: string; draft?: boolean; check?: string };

export type OpenPullRequestResult =
  | { ok: true; action: "opened" | "updated"; number: number; url: string; head: string; base: string; proof?: ProofRecord }
  | { ok: false; error: string };

export type PullRequestTarget = {
  repo: string;
  policy: WritePolicy;
  /** The App's open pull request for the push branch, as the run's preparation found it. */
  openPullRequest?: { number: number };
  /** The run is on this pull request, which is the App's own (its policy pushes to its head). */
  ownPullRequest?: { number: number };
  /** The App's bot login, whose pull requests count as the App's. */
  botLogin?: string;
};
