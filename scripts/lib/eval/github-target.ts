/**
 * `--target github --owner you`: the real path, through a deployed bot. Per
 * case it sets up the case's own repository at its pinned commit
 * (replay-repo.ts), opens the issue there with no link to the original,
 * comments the mention as the maintainer whose token it holds, follows the
 * run by the bot's own signals (👀, 😕, 🚀, the closing comment's marker and
 * heading) and the run's figures from the dashboard API, then deletes the
 * repository. It writes to no repository but those (`guardReplays`);
 * cleanup, timeouts and `--model` are in docs/eval.md.
 */
import { Octokit } from "@octokit/rest";
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { OUTCOME_HEADINGS } from "../../../src/report/closing-text";
import { sessionName } from "../../../src/shared/session-name";
import { RESULT_OUTCOMES, type ResultOutcome } from "../../../src/shared/outcomes";
import { threadUrl } from "../../../src/shared/thread-url";
import type { CaseNeed, EvalCase } from "./case";
import type { CaseResult } from "./report";
import { replayedIssue, replayRepo } from "./replay";
import type { ReplayGit } from "./replay-git";
import { guardReplays, ReplayRepos } from "./replay-repo";
import { NO_FIGURES, type CaseRun, type EvalTarget, type RunFigures, type RunRequest } from "./target";
import { endedRun, hasContainer, runFigures, sleep } from "./thread-figures";

/** The prefix of the verdict label an issue kept open (`--keep-open`) gets. */
export const EVAL_LABEL = "agent-think-eval";

export type GitHubTargetOptions = {
  /** The account or organization each case's repository is created under: the only repositories it writes to. */
  owner: string;
  /** A token of that account, or of a member who may create and delete its repositories (never of the App). */
  token: string;
  /** Where the cases' source repositories come from (a mirror per source). */
  git: ReplayGit;
  /** Where a case's repository is pushed to, when not its clone URL (an offline run: the GitHub stand-in has no git server). */
  pushUrl?: (repo: string, cloneUrl: string) => Promise<string> | string;
  /** GitHub's REST API (https://api.github.com, or an Enterprise Server's /api/v3). */
  apiUrl: string;
  /** The deployed agent Worker's origin: its dashboard API gives the run's figures. */
  dashboardUrl: string;
  /** Headers for the dashboard API and private reproduction pages (an Access service token). */
  accessHeaders?: Record<string, string>;
  /** How the bot is mentioned, e.g. `@agent-think`. */
  mention: string;
  /** Keep each case's repository and leave its issue open, labelled with the verdict (to look at them). */
  keepOpen?: boolean;
  pollMs?: number;
  /** Space writes as GitHub asks (a second apart, comments further): off only against the stand-in in a test, which has no such limit. */
  spaceWrites?: boolean;
  log?: (line: string) => void;
};

export class GitHubTarget implements EvalTarget {
  readonly kind = "github" as const;
  readonly against: string;
  readonly #options: GitHubTargetOptions;
  readonly #octokit: Octokit;
  readonly #replays: ReplayRepos;
  /** `--model`: written into each case's repository as it is set up. */
  #model: string | undefined;

  constructor(options: GitHubTargetOptions) {
    this.#options = options;
    this.against = replayRepo(options.owner, "*");
    this.#octokit = evalOctokit(options.token, options.apiUrl, options.log, options.spaceWrites ?? true);
    guardReplays(this.#octokit, options.owner);
    this.#replays = new ReplayRepos({
      octokit: this.#octokit,
      owner: options.owner,
      token: options.token,
      git: options.git,
      ...(options.pushUrl ? { pushUrl: options.pushUrl } : {}),
      ...(options.log ? { log: options.log } : {})
    });
  }

  repoFor(evalCase: EvalCase): string {
    return replayRepo(this.#options.owner, evalCase.id);
  }

  /** `--model`: `model:` in each case repository's .github/agent-think.yml, one commit after its pinned one (pick-model.ts); the repository goes, so nothing is put back. */
  async pickModel(model: string): Promise<() => Promise<void>> {
    this.#model = model;
    return async () => {};
  }

  async run(request: RunRequest): Promise<CaseRun> {
    const { case: evalCase } = request;
    const { repo } = await this.#replays.setUp(evalCase, this.#model);
    const [owner, name] = repo.split("/") as [string, string];
    let issue: { number: number; html_url: string };
    try {
      issue = (await this.#octokit.rest.issues.create({ owner, repo: name, ...replayedIssue(evalCase) })).data;
    } catch (error) {
      await this.#replays.tearDown(repo).catch((failure: Error) => this.#options.log?.(`! could not delete ${repo}: ${failure.message}`));
      throw error;
    }
    const base = { ...NO_FIGURES, issueUrl: issue.html_url, threadUrl: threadUrl(this.#options.dashboardUrl, sessionName(repo, issue.number)) };
    const cleanup = (result: CaseResult) => this.#cleanup(repo, issue.number, result);
    try {
      return await this.#follow(request, repo, issue.number, base, cleanup);
    } catch (error) {
      // The repository is there: it is still deleted (or its issue labelled and closed), with why the harness could not go on.
      return { kind: "refused", reason: `the harness could not follow it: ${(error as Error).message}`, figures: base, cleanup };
    }
  }

  async #follow(request: RunRequest, fullName: string, issueNumber: number, base: RunFigures, cleanup: (result: CaseResult) => Promise<void>): Promise<CaseRun> {
    const [owner, repo] = fullName.split("/") as [string, string];
    const issue = { number: issueNumber };
    const mention = (
      await this.#octokit.rest.issues.createComment({ owner, repo, issue_number: issue.number, body: `${this.#options.mention} ${request.instruction}` })
    ).data;
    const mentionedAt = Date.parse(mention.created_at);
    // The case's time counts from the mention: throttled writes before it are the harness's, not the bot's.
    const deadline = Date.now() + request.timeLimitMs;

    let figures: RunFigures = base;
    const started = async () => {
      const reactions = await this.#botReactions(fullName, mention.id);
      const rocket = reactions.find((reaction) => reaction.content === "rocket");
      if (rocket) figures = { ...figures, timeToStartMs: Math.max(0, Date.parse(rocket.created_at) - mentionedAt) };
      return reactions;
    };
    while (Date.now() < deadline) {
      const reactions = await started();
      if (reactions.some((reaction) => reaction.content === "confused")) {
        return { kind: "refused", reason: "the webhook app reacted 😕: it could not start the run (its comment on the issue says why)", figures, cleanup };
      }
      const closing = await this.#closingComment(fullName, issue.number, mention.created_at);
      if (closing) {
        figures = { ...figures, timeToCloseMs: Math.max(0, Date.parse(closing.createdAt) - mentionedAt), outcome: closing.outcome };
        return { kind: "ended", figures: await this.#withRunFigures(figures, fullName, issue.number, closing.submissionId), cleanup };
      }
      await sleep(Math.min(this.#options.pollMs ?? 3_000, Math.max(0, deadline - Date.now())));
    }
    // Whether it started at all, seen once more at the end; then told to stop, so a run past its time spends nothing more.
    await started();
    await this.#octokit.rest.issues.createComment({ owner, repo, issue_number: issue.number, body: `${this.#options.mention} stop` });
    return { kind: "timed-out", figures, cleanup };
  }

  /** A container, when the deployed Worker's health report says its containers line is ok (read with the Access headers). */
  has(need: CaseNeed): Promise<boolean> {
    return need === "container" ? hasContainer({ baseUrl: this.#options.dashboardUrl, headers: this.#options.accessHeaders ?? {} }) : Promise.resolve(false);
  }

  fetchPage(url: string): Promise<Response> {
    const dashboard = new URL(this.#options.dashboardUrl);
    // The Access pair goes only to the bot's own Worker, never to another host.
    const headers = new URL(url).origin === dashboard.origin ? (this.#options.accessHeaders ?? {}) : {};
    return fetch(url, { headers, signal: AbortSignal.timeout(15_000) });
  }

  async #botReactions(fullName: string, commentId: number) {
    const [owner, repo] = fullName.split("/") as [string, string];
    const { data } = await this.#octokit.rest.reactions.listForIssueComment({ owner, repo, comment_id: commentId, per_page: 100 });
    return data.filter((reaction) => reaction.user?.type === "Bot");
  }

  /** The bot's closing comment since the mention: its submission (from the marker), outcome (from the heading) and time. */
  async #closingComment(fullName: string, issueNumber: number, since: string) {
    const [owner, repo] = fullName.split("/") as [string, string];
    const comments = await this.#octokit.paginate(this.#octokit.rest.issues.listComments, { owner, repo, issue_number: issueNumber, since, per_page: 100 });
    for (const comment of comments) {
      if (comment.user?.type !== "Bot" || !comment.body) continue;
      const closing = parseClosing(comment.body);
      if (closing) return { ...closing, createdAt: comment.created_at };
    }
    return null;
  }

  async #withRunFigures(figures: RunFigures, fullName: string, issueNumber: number, submissionId: string): Promise<RunFigures> {
    const run = await endedRun({ baseUrl: this.#options.dashboardUrl, headers: this.#options.accessHeaders ?? {} }, sessionName(fullName, issueNumber), submissionId);
    if (!run) return figures;
    // The issue's heading is what the maintainer saw; the dashboard's is the same run's.
    return { ...figures, ...runFigures(run), outcome: figures.outcome ?? run.outcome ?? null };
  }

  /**
   * After the verdict: the repository is deleted, and its issue with it; with
   * `--keep-open`, or when the deletion fails, the issue is labelled with the
   * verdict instead (and, when the deletion failed, closed).
   */
  async #cleanup(fullName: string, issueNumber: number, result: CaseResult): Promise<void> {
    const [owner, repo] = fullName.split("/") as [string, string];
    let failure: Error | undefined;
    if (!this.#options.keepOpen) {
      try {
        await this.#replays.tearDown(fullName);
        return;
      } catch (error) {
        failure = error as Error;
      }
    }
    await this.#octokit.rest.issues.addLabels({ owner, repo, issue_number: issueNumber, labels: [EVAL_LABEL, `${EVAL_LABEL}:${result.verdict}`] });
    if (failure === undefined) return;
    await this.#octokit.rest.issues.update({ owner, repo, issue_number: issueNumber, state: "closed", state_reason: result.verdict === "pass" ? "completed" : "not_planned" });
    throw new Error(`could not delete ${fullName} (its issue is closed and labelled): ${failure.message}`);
  }
}

const CLOSING_MARKER = /<!-- agent-think:([A-Za-z0-9_-]{1,128}):closing -->/;

/** A closing comment's submission and outcome (null for a closing comment without a result), or null for any other comment. */
export function parseClosing(body: string): { submissionId: string; outcome: ResultOutcome | null } | null {
  const marker = CLOSING_MARKER.exec(body);
  if (!marker) return null;
  const outcome = RESULT_OUTCOMES.find((candidate) => body.includes(`### ${OUTCOME_HEADINGS[candidate]}\n`)) ?? null;
  return { submissionId: marker[1]!, outcome };
}

function evalOctokit(token: string, baseUrl: string, log: (line: string) => void = () => {}, spaceWrites = true): Octokit {
  const Client = Octokit.plugin(retry, throttling);
  return new Client({
    auth: token,
    baseUrl,
    userAgent: "agent-think-eval",
    throttle: {
      enabled: spaceWrites,
      onRateLimit: (retryAfter, options, _octokit, retryCount) => {
        log(`GitHub rate limit on ${options.method} ${options.url}; retrying in ${retryAfter} s`);
        return retryCount < 3;
      },
      onSecondaryRateLimit: (retryAfter, options, _octokit, retryCount) => {
        log(`GitHub secondary rate limit on ${options.method} ${options.url}; retrying in ${retryAfter} s`);
        return retryCount < 3;
      }
    }
  });
}
