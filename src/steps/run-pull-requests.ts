/**
 * The run's `open_pull_request` call, wired: the turn and the run, where its policy lets a pull
 * request go (turn-workspace.ts), a GitHub client as the App with the run's fresh token, the links
 * a body may keep, and the fix's proof: the check given, else the thread's reproduction's when a
 * run of the same or a higher tier recorded it, re-run by fix-proof.ts, said whose it was, and kept
 * for the closing comment; a thread with a reproduction and no check to re-run gets a proof that
 * says why. Where the run's commits must be signed, they are made through GitHub's API first, from
 * the clone (api-commits.ts). The decision itself is open-pull-request.ts's. Pure apart from its
 * deps.
 */
import { createCommitClient, type CommitClient } from "../github/commits";
import { createPullRequestClient, type PullRequestClient } from "../github/pull-requests";
import { tierRun } from "../report/proof-text";
import type { RecordingTier, RunTier } from "../shared/dispatch";
import { proveFix, type ProofExec, type ProofRecord, type ProofSource, type ProofTarget } from "../run/fix-proof";
import type { RunLedger } from "../run/run-ledger";
import { mayRerun, recordingTier, type ThreadReproduction, type ThreadReproductions } from "../run/thread-reproduction";
import type { Logger } from "../run/log";
import { makeApiCommits, type CommitFiles } from "./api-commits";
import { openPullRequest } from "./open-pull-request";
import type { OpenPullRequestInput, OpenPullRequestResult, PullRequestTarget } from "../run/pull-request-input";
import type { RunContext } from "../run/run-context";

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
  /** Runs a command of the Worker's own in the run's sandbox (the proof's checkouts and checks). */
  exec: ProofExec;
  /** The thread's last reproduced result, with its check when it named one and the tier of the run that recorded it. */
  reproductions: Pick<ThreadReproductions, "latest">;
  /**
   * The running turn's tier (its submission's, run-context.ts): undefined
   * for a maintainer's run. Not given, the run counts as a maintainer's,
   * which re-runs the fewest recorded checks.
   */
  tier?: () => Promise<RunTier | undefined>;
  /** This run's published page (a reproduction too), and where its proof is kept for the closing comment. */
  ledger: Pick<RunLedger, "facts" | "recordProof" | "touch">;
  log: Logger;
  /** The workspace's files, where the Worker's git leaves the commits to make through GitHub's API. Not given: none can be made. */
  files?: () => CommitFiles;
  /** Seam: the client for a base URL and token (tests record it). */
  client?: (baseUrl: string, token: string) => PullRequestClient;
  /** Seam: the client that makes commits through GitHub's API. */
  commitClient?: (baseUrl: string, token: string) => CommitClient;
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
    const submissionId = turn!.submissionId;
    const github = { web: this.#deps.links().githubWebUrl };
    const prove = (base: string, branch: string) => this.#prove(submissionId, input.check, { base, branch, repo: run.repo, github });
    const files = this.#deps.files;
    const commit = files
      ? (branch: string) => {
          const commits = this.#deps.commitClient?.(apiUrl, token) ?? createCommitClient({ baseUrl: apiUrl, token });
          return makeApiCommits({ repo: run.repo, branch, github }, { exec: this.#touching(submissionId), files: files(), client: commits });
        }
      : undefined;
    const result = await openPullRequest(input, target, { client, links: { ...this.#deps.links(), repo: run.repo }, redact: this.#deps.redact, prove, ...(commit ? { commit } : {}) });
    const made = result.commits ? { commitsMade: result.commits.made.length } : {};
    this.#deps.log("pull-request", result.ok ? { action: result.action, number: result.number, ...made, ...(result.proof ? { proven: result.proof.ran && result.proof.held } : {}) } : { error: result.error, ...made });
    return result;
  }

  /** The Worker's commands for this submission: each is the run's activity, so slow ones are not a stuck run (the watchdog). */
  #touching(submissionId: string): ProofExec {
    return async (script, timeoutMs) => {
      const result = await this.#deps.exec(script, timeoutMs);
      await this.#deps.ledger.touch(submissionId, Date.now());
      return result;
    };
  }

  /** The proof of the change: `check`, else the reproduction's when this run may trust it, on both sides; none when the thread has nothing to prove it with. */
  async #prove(submissionId: string, check: string | undefined, target: ProofTarget): Promise<ProofRecord | undefined> {
    const recorded = await this.#deps.reproductions.latest();
    const hasReproduction = recorded !== undefined || (await this.#deps.ledger.facts(submissionId)).reproductionUrl !== undefined;
    const runTier = recordingTier(await this.#deps.tier?.());
    let proof: ProofRecord;
    // Each of the proof's commands is the run's activity: two slow checks are not a stuck run (the watchdog).
    const exec = this.#touching(submissionId);
    if (check !== undefined) proof = { ...(await proveFix(check, target, exec)), source: { kind: "given" } };
    else if (recorded?.check && mayRerun(recorded.tier, runTier)) proof = { ...(await proveFix(recorded.check, target, exec)), source: recordedSource(recorded) };
    else if (recorded?.check) proof = { ran: false, why: untrustedCheck(recorded, runTier), source: recordedSource(recorded) };
    else if (hasReproduction) proof = { ran: false, why: "the thread has a reproduction, but no check was given to re-run (pass `check`)" };
    else return undefined;
    // The proof goes into the closing comment: nothing in it may hold a token.
    const kept = JSON.parse(JSON.stringify(proof), (_key, value: unknown) => (typeof value === "string" ? this.#deps.redact(value) : value)) as ProofRecord;
    await this.#deps.ledger.recordProof(submissionId, kept);
    return kept;
  }
}

function recordedSource(recorded: ThreadReproduction): ProofSource {
  return { kind: "recorded", ...(recorded.tier ? { tier: recorded.tier } : {}), submissionId: recorded.submissionId, at: recorded.at };
}

/** Why the thread's recorded check is not re-run: whose it was, and what to do instead. */
function untrustedCheck(recorded: ThreadReproduction, runTier: RecordingTier): string {
  return (
    `the thread's check was recorded by ${tierRun(recorded.tier)} (${recorded.submissionId}), and ${tierRun(runTier)} re-runs only a check recorded by a run of ` +
    "the same or a higher tier: pass `check` (the command to re-run) to prove the fix"
  );
}
