/**
 * The run's `open_pull_request` call, wired: the turn and the run, where
 * its policy lets a pull request go (turn-workspace.ts), a GitHub client as
 * the App with the run's fresh token, and the links a body may keep. The
 * decision itself is open-pull-request.ts's. Pure apart from its
 * dependencies.
 */
import { createPullRequestClient, type PullRequestClient } from "../github/pull-requests";
import type { Logger } from "./log";
import { openPullRequest, type OpenPullRequestInput, type OpenPullRequestResult, type PullRequestTarget } from "./open-pull-request";
import type { RunContext } from "./run-context";

export type RunPullRequestsDeps = {
  turn: () => Promise<{ submissionId: string } | null>;
  run: () => Promise<RunContext | undefined>;
  target: (submissionId: string, run: RunContext) => PullRequestTarget | null;
  /** GITHUB_API_URL: empty posts nothing. */
  apiUrl: () => string;
  token: () => Promise<string>;
  /** Our own pages and GitHub's web origin: what a body may link to (with the run's repository). */
  links: () => { publicBaseUrl: string; githubWebUrl: string };
  redact: (text: string) => string;
  log: Logger;
  /** Seam: the client for a base URL and token (tests record it). */
  client?: (baseUrl: string, token: string) => PullRequestClient;
};

export class RunPullRequests {
  readonly #deps: RunPullRequestsDeps;

  constructor(deps: RunPullRequestsDeps) {
    this.#deps = deps;
  }

  async open(input: OpenPullRequestInput): Promise<OpenPullRequestResult> {
    const [turn, run] = [await this.#deps.turn(), await this.#deps.run()];
    const target = turn && run ? this.#deps.target(turn.submissionId, run) : null;
    if (!run || !target) return { ok: false, error: "no prepared run is in progress" };
    const apiUrl = this.#deps.apiUrl();
    if (!apiUrl) return { ok: false, error: "this deploy has no GitHub to open a pull request on (GITHUB_API_URL is empty)" };
    const token = await this.#deps.token();
    const client = this.#deps.client?.(apiUrl, token) ?? createPullRequestClient({ baseUrl: apiUrl, token });
    const result = await openPullRequest(input, target, { client, links: { ...this.#deps.links(), repo: run.repo }, redact: this.#deps.redact });
    this.#deps.log("pull-request", result.ok ? { action: result.action, number: result.number } : { error: result.error });
    return result;
  }
}
