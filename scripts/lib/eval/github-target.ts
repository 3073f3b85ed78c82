/**
 * `--target github --repo you/sandbox`: the real path, through a deployed
 * bot. Per case it opens the issue on the sandbox, comments the mention as
 * the maintainer whose token it holds, and follows the run by the bot's own
 * signals (👀, 😕, 🚀, the closing comment's marker and heading), then the
 * run's figures from the dashboard API. It writes to no repository but the
 * one it was given (`guardRepository`); cleanup, timeouts and `--model` are
 * in docs/eval.md.
 */
import { Octokit } from "@octokit/rest";
import { retry } from "@octokit/plugin-retry";
import { throttling } from "@octokit/plugin-throttling";
import { OUTCOME_HEADINGS } from "../../../src/report/closing-text";
import { sessionName } from "../../../src/shared/session-name";
import { RESULT_OUTCOMES, type ResultOutcome } from "../../../src/shared/outcomes";
import { threadUrl } from "../../../src/shared/thread-url";
import type { CaseNeed, EvalCase } from "./case";
import { pickModelOnGitHub } from "./pick-model";
import type { CaseResult } from "./report";
import { NO_FIGURES, type CaseRun, type EvalTarget, type RunFigures, type RunRequest } from "./target";
import { endedRun, hasContainer, runFigures, sleep } from "./thread-figures";

/** The label every issue the harness opens carries, and the prefix of its verdict label. */
export const EVAL_LABEL = "agent-think-eval";

export type GitHubTargetOptions = {
  /** The sandbox repository, `owner/name`: the only one it writes to. */
  repo: string;
  /** A token of a maintainer of the sandbox (never of the App). */
  token: string;
  /** GitHub's REST API (https://api.github.com, or an Enterprise Server's /api/v3). */
  apiUrl: string;
  /** The deployed agent Worker's origin: its dashboard API gives the run's figures. */
  dashboardUrl: string;
  /** Headers for the dashboard API and private reproduction pages (an Access service token). */
  accessHeaders?: Record<string, string>;
  /** How the bot is mentioned, e.g. `@agent-think`. */
  mention: string;
  /** Leave the issues open (to look at them); they are labelled all the same. */
  keepOpen?: boolean;
  pollMs?: number;
  log?: (line: string) => void;
};

export class GitHubTarget implements EvalTarget {
  readonly kind = "github" as const;
  readonly against: string;
  readonly #options: GitHubTargetOptions;
  readonly #octokit: Octokit;
  readonly #owner: string;
  readonly #name: string;

  constructor(options: GitHubTargetOptions) {
    this.#options = options;
    this.against = options.repo;
    [this.#owner, this.#name] = options.repo.split("/") as [string, string];
    this.#octokit = evalOctokit(options.token, options.apiUrl, options.log);
    guardRepository(this.#octokit, options.repo);
  }

  repoFor(_evalCase: EvalCase): string {
    return this.#options.repo;
  }

  /** `--model`: `model:` in the sandbox's .github/agent-think.yml, one commit on its default branch (pick-model.ts). */
  pickModel(model: string): Promise<() => Promise<void>> {
    return pickModelOnGitHub(this.#octokit, this.#options.repo, model);
  }

  async run(request: RunRequest): Promise<CaseRun> {
    const { case: evalCase } = request;
    const owner = this.#owner;
    const repo = this.#name;
    const issue = (
      await this.#octokit.rest.issues.create({
        owner,
        repo,
        title: evalCase.issue.title,
        body: `${evalCase.issue.body}\n\n---\n<sub>agent-think eval case \`${evalCase.id}\`, replayed from ${evalCase.source}</sub>`,
        labels: [EVAL_LABEL]
      })
    ).data;
    const base = { ...NO_FIGURES, issueUrl: issue.html_url, threadUrl: threadUrl(this.#options.dashboardUrl, sessionName(this.#options.repo, issue.number)) };
    const cleanup = (result: CaseResult) => this.#cleanup(issue.number, result);
    try {
      return await this.#follow(request, issue.number, base, cleanup);
    } catch (error) {
      // The issue is open: it is still labelled and closed, with why the harness could not go on.
      return { kind: "refused", reason: `the harness could not follow it: ${(error as Error).message}`, figures: base, cleanup };
    }
  }

  async #follow(request: RunRequest, issueNumber: number, base: RunFigures, cleanup: (result: CaseResult) => Promise<void>): Promise<CaseRun> {
    const owner = this.#owner;
    const repo = this.#name;
    const issue = { number: issueNumber };
    const mention = (
      await this.#octokit.rest.issues.createComment({ owner, repo, issue_number: issue.number, body: `${this.#options.mention} ${request.instruction}` })
    ).data;
    const mentionedAt = Date.parse(mention.created_at);
    // The case's time counts from the mention: throttled writes before it are the harness's, not the bot's.
    const deadline = Date.now() + request.timeLimitMs;

    let figures: RunFigures = base;
    const started = async () => {
      const reactions = await this.#botReactions(mention.id);
      const rocket = reactions.find((reaction) => reaction.content === "rocket");
      if (rocket) figures = { ...figures, timeToStartMs: Math.max(0, Date.parse(rocket.created_at) - mentionedAt) };
      return reactions;
    };
    while (Date.now() < deadline) {
      const reactions = await started();
      if (reactions.some((reaction) => reaction.content === "confused")) {
        return { kind: "refused", reason: "the webhook app reacted 😕: it could not start the run (its comment on the issue says why)", figures, cleanup };
      }
      const closing = await this.#closingComment(issue.number, mention.created_at);
      if (closing) {
        figures = { ...figures, timeToCloseMs: Math.max(0, Date.parse(closing.createdAt) - mentionedAt), outcome: closing.outcome };
        return { kind: "ended", figures: await this.#withRunFigures(figures, issue.number, closing.submissionId), cleanup };
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

  async #botReactions(commentId: number) {
    const { data } = await this.#octokit.rest.reactions.listForIssueComment({ owner: this.#owner, repo: this.#name, comment_id: commentId, per_page: 100 });
    return data.filter((reaction) => reaction.user?.type === "Bot");
  }

  /** The bot's closing comment since the mention: its submission (from the marker), outcome (from the heading) and time. */
  async #closingComment(issueNumber: number, since: string) {
    const comments = await this.#octokit.paginate(this.#octokit.rest.issues.listComments, { owner: this.#owner, repo: this.#name, issue_number: issueNumber, since, per_page: 100 });
    for (const comment of comments) {
      if (comment.user?.type !== "Bot" || !comment.body) continue;
      const closing = parseClosing(comment.body);
      if (closing) return { ...closing, createdAt: comment.created_at };
    }
    return null;
  }

  async #withRunFigures(figures: RunFigures, issueNumber: number, submissionId: string): Promise<RunFigures> {
    const run = await endedRun(
      { baseUrl: this.#options.dashboardUrl, headers: this.#options.accessHeaders ?? {} },
      sessionName(this.#options.repo, issueNumber),
      submissionId
    );
    if (!run) return figures;
    // The issue's heading is what the maintainer saw; the dashboard's is the same run's.
    return { ...figures, ...runFigures(run), outcome: figures.outcome ?? run.outcome ?? null };
  }

  async #cleanup(issueNumber: number, result: CaseResult): Promise<void> {
    const owner = this.#owner;
    const repo = this.#name;
    await this.#octokit.rest.issues.addLabels({ owner, repo, issue_number: issueNumber, labels: [EVAL_LABEL, `${EVAL_LABEL}:${result.verdict}`] });
    if (!this.#options.keepOpen) {
      await this.#octokit.rest.issues.update({ owner, repo, issue_number: issueNumber, state: "closed", state_reason: result.verdict === "pass" ? "completed" : "not_planned" });
    }
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

/**
 * Refuses, before it is sent, any request about a repository other than
 * `repo`, and any path that is not about a repository: the harness opens
 * issues, comments and reads reactions there, and nothing else.
 */
export function guardRepository(octokit: Octokit, repo: string): void {
  const [owner, name] = repo.toLowerCase().split("/");
  octokit.hook.before("request", (options) => {
    const route = String(options.url);
    if (!aboutRepository(route, options, `${owner}/${name}`)) {
      const about = /^https?:/.test(route) ? route : `${String(options.owner ?? "")}/${String(options.repo ?? "")}`;
      throw new Error(`the eval harness refused ${options.method} ${route} (${about}): it works only on ${repo}`);
    }
  });
}

/**
 * Whether a request is about `repo` (lowercase `owner/name`): a route
 * template with that owner and repo, or (a page `paginate` follows) a whole
 * URL on the API whose normalised path is under `/repos/owner/name/`.
 */
function aboutRepository(route: string, options: Record<string, unknown>, repo: string): boolean {
  if (route.startsWith("/repos/{owner}/{repo}/")) return `${String(options.owner ?? "")}/${String(options.repo ?? "")}`.toLowerCase() === repo;
  if (!/^https?:\/\//.test(route)) return false;
  const url = new URL(route);
  const api = new URL(String(options.baseUrl));
  const base = api.pathname.replace(/\/+$/, "");
  return url.origin === api.origin && url.pathname.toLowerCase().startsWith(`${base}/repos/${repo}/`);
}

function evalOctokit(token: string, baseUrl: string, log: (line: string) => void = () => {}): Octokit {
  const Client = Octokit.plugin(retry, throttling);
  return new Client({
    auth: token,
    baseUrl,
    userAgent: "agent-think-eval",
    throttle: {
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
