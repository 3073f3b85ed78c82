/**
 * `--target local`: the local Worker (`npm start`) through the dispatch
 * contract, as the webhook app hands it a mention: the case's issue (and its
 * `pullRequest`, as the App or the reporter) is opened on the GitHub
 * stand-in the Worker reads (`--standin`), numbered past every earlier
 * run's; `POST /dev/dispatch` carries the maintainer's words, on the issue
 * or the pull request; `GET /dev/messages/:session?submissionId=` until it
 * ends, then the run's figures; a run past its time is dispatched `stop`.
 * With `--model`, the repository's config there says it: pick-model.ts.
 */
import { randomInt } from "node:crypto";
import type { BotIdentity, PullRequestRef } from "../../../src/shared/dispatch";
import { dispatchResultSchema, errorBodySchema, isTerminalStatus, messagesPath, messagesResponseSchema, type SubmissionStatus } from "../dev-api";
import type { CaseNeed, EvalCase } from "./case";
import { pickModelOnStandin } from "./pick-model";
import { replayedIssue, withoutThreads } from "./replay";
import { NO_FIGURES, type CaseRun, type EvalTarget, type RunFigures, type RunRequest } from "./target";
import { endedRun, hasContainer, jsonOrText, runFigures, sleep } from "./thread-figures";

export type LocalTargetOptions = {
  baseUrl: string;
  /** Every case runs against this repository; without it, against the case's own. */
  repo?: string;
  /** The number the first issue opened in a repository takes at least; the stand-in numbers the next ones after it. */
  issueBase?: number;
  pollMs?: number;
  /** The GitHub stand-in the local Worker reads (its GITHUB_API_URL's origin): where each case's issue is opened, and `--model` puts each case's config. */
  standinUrl: string;
};

/** A user's token on the stand-in (a `ghp_` prefix): the issue is the reporter's, as on GitHub, not the App's. */
const REPORTER_TOKEN = "ghp_agentThinkEvalReporter000000000000000";
/** A token without a user's prefix: the stand-in takes it for the App's installation, so what it opens is the App's bot's. */
const APP_TOKEN = "ghs_agentThinkEvalApp00000000000000000000";

/** Where the maintainer's words go: the case's issue, or its pull request (with what the webhook app would send of it). */
type Mention = { number: number; title: string; pullRequest?: PullRequestRef; bot?: BotIdentity };

export class LocalTarget implements EvalTarget {
  readonly kind = "local" as const;
  readonly against: string;
  readonly #options: LocalTargetOptions;
  readonly #issueBase: number;
  /** The repositories whose issue numbering this run has moved past earlier runs' (once each). */
  readonly #numbered = new Map<string, Promise<void>>();

  constructor(options: LocalTargetOptions) {
    this.#options = options;
    this.against = options.baseUrl;
    // Seconds since 2026 keep issue numbers apart between eval runs on one Worker, whose threads outlive a restarted stand-in.
    this.#issueBase = options.issueBase ?? Math.floor((Date.now() - Date.UTC(2026, 0, 1)) / 1000);
  }

  repoFor(evalCase: EvalCase): string {
    return this.#options.repo ?? evalCase.repo;
  }

  /** `--model`: `model:` in each case repository's .github/agent-think.yml, on the stand-in the local Worker reads (pick-model.ts). */
  pickModel(model: string, repos: readonly string[]): Promise<() => Promise<void>> {
    return pickModelOnStandin(this.#options.standinUrl, repos, model);
  }

  async run(request: RunRequest): Promise<CaseRun> {
    const { baseUrl } = this.#options;
    const repo = this.repoFor(request.case);
    const mention = await this.#open(repo, request.case);
    const response = await this.#dispatch(repo, mention, request.instruction);
    const body = await response.text();
    if (response.status === 400) {
      const error = errorBodySchema.safeParse(jsonOrText(body));
      return { kind: "refused", reason: `the dispatch was refused: ${error.success ? error.data.error : body.slice(0, 200)}`, figures: NO_FIGURES };
    }
    const dispatched = dispatchResultSchema.safeParse(jsonOrText(body));
    if (response.status !== 202 || !dispatched.success) throw new Error(`POST ${baseUrl}/dev/dispatch answered ${response.status}: ${body.slice(0, 200)} (is \`npm start\` running there?)`);
    const { session, submissionId, threadUrl } = dispatched.data;
    const deadline = Date.now() + request.timeLimitMs;

    let status: SubmissionStatus | null = null;
    while (Date.now() < deadline) {
      status = await submissionStatus(baseUrl, session, submissionId);
      if (status && isTerminalStatus(status.status)) break;
      await sleep(Math.min(this.#options.pollMs ?? 500, Math.max(0, deadline - Date.now())));
    }
    const timing = times(status);
    if (!status || !isTerminalStatus(status.status)) {
      // Told to stop (the stop grammar, docs/contracts.md), so a run past its time spends nothing more.
      await (await this.#dispatch(repo, mention, "stop")).body?.cancel();
      return { kind: "timed-out", figures: { ...NO_FIGURES, ...timing, timeToCloseMs: null, threadUrl } };
    }
    const run = await endedRun({ baseUrl }, session, submissionId);
    // The submission's own end stands where the command center has not heard of it.
    const own: RunFigures = { ...NO_FIGURES, ...timing, threadUrl, status: submissionEnd(status), error: status.error ?? null };
    if (!run) return { kind: "ended", figures: own };
    const read = runFigures(run);
    return { kind: "ended", figures: { ...own, ...read, status: read.status ?? own.status, error: read.error ?? own.error } };
  }

  /** The case's issue, and its pull request when it has one (`pullRequest`), where `mention` says the words go. */
  async #open(repo: string, evalCase: EvalCase): Promise<Mention> {
    const issue = await this.#openIssue(repo, evalCase);
    const wanted = evalCase.pullRequest;
    if (!wanted) return issue;
    const app = wanted.by === "app";
    // The App names its branch after the issue (open-pr); a person's is any branch of the repository.
    const asked = { title: withoutThreads(wanted.title), body: `${withoutThreads(wanted.body)}\n\nRefs #${issue.number}`, head: `${app ? "agent-think" : "fix"}/issue-${issue.number}`, base: "main" };
    const pull = (await this.#standin(`/repos/${repo}/pulls`, asked, 201, app ? APP_TOKEN : REPORTER_TOKEN)) as {
      number: number;
      title: string;
      user: { login: string; id: number };
      head: { ref: string; sha: string };
      base: { ref: string };
    };
    // The run acts as the App the stand-in answers as, so it knows the App's pull request for its own.
    const bot = app ? { bot: { login: pull.user.login, id: pull.user.id } } : {};
    if (wanted.mention === "issue") return { ...issue, ...bot };
    const pullRequest = { number: pull.number, headRepo: repo, headRef: pull.head.ref, headSha: pull.head.sha, baseRef: pull.base.ref, fork: false, author: pull.user.login };
    return { number: pull.number, title: pull.title, pullRequest, ...bot };
  }

  /** The case's issue on the stand-in, opened by a user (the reporter), with no link back to the original. */
  async #openIssue(repo: string, evalCase: EvalCase): Promise<{ number: number; title: string }> {
    const standin = this.#options.standinUrl;
    const unreachable = (error: unknown) =>
      new Error(`could not open the case's issue on the GitHub stand-in at ${standin} (npm start runs one; --standin names another): ${(error as Error).message}`);
    let numbered = this.#numbered.get(repo.toLowerCase());
    if (!numbered) {
      numbered = this.#standin("/_standin/issue-numbers", { repo, from: this.#issueBase }, 204).then(
        () => undefined,
        (error: unknown) => {
          this.#numbered.delete(repo.toLowerCase());
          throw unreachable(error);
        }
      );
      this.#numbered.set(repo.toLowerCase(), numbered);
    }
    await numbered;
    const issue = replayedIssue(evalCase);
    const created = (await this.#standin(`/repos/${repo}/issues`, issue, 201).catch((error: unknown) => {
      throw unreachable(error);
    })) as { number: number };
    return { number: created.number, title: issue.title };
  }

  async #standin(path: string, body: unknown, expected: number, token = REPORTER_TOKEN): Promise<unknown> {
    const response = await fetch(new URL(path, this.#options.standinUrl), {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `token ${token}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000)
    });
    const text = await response.text();
    if (response.status !== expected) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 200)}`);
    return text === "" ? null : jsonOrText(text);
  }

  #dispatch(repo: string, mention: Mention, instruction: string): Promise<Response> {
    return fetch(`${this.#options.baseUrl}/dev/dispatch`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        repo,
        issueNumber: mention.number,
        instruction,
        installationToken: "",
        commentId: randomInt(1, 2 ** 31),
        issueTitle: mention.title,
        requestedBy: { login: "agent-think-eval" },
        ...(mention.pullRequest ? { pullRequest: mention.pullRequest } : {}),
        ...(mention.bot ? { bot: mention.bot } : {})
      }),
      signal: AbortSignal.timeout(15_000)
    });
  }

  /** A container, when the Worker's health report says its containers line is ok (local dev has no engine, so it is not); a pull request, opened on the stand-in. */
  has(need: CaseNeed): Promise<boolean> {
    return need === "container" ? hasContainer({ baseUrl: this.#options.baseUrl }) : Promise.resolve(need === "pull-request");
  }

  fetchPage(url: string): Promise<Response> {
    return fetch(url, { signal: AbortSignal.timeout(15_000) });
  }
}

async function submissionStatus(baseUrl: string, session: string, submissionId: string): Promise<SubmissionStatus | null> {
  const response = await fetch(`${baseUrl}${messagesPath(session, submissionId)}`, { signal: AbortSignal.timeout(10_000) });
  const parsed = messagesResponseSchema.safeParse(jsonOrText(await response.text()));
  if (response.status !== 200 || !parsed.success) throw new Error(`GET ${baseUrl}/dev/messages answered ${response.status}`);
  return parsed.data.submission ?? null;
}

function times(status: SubmissionStatus | null): Pick<RunFigures, "timeToStartMs" | "timeToCloseMs"> {
  if (!status) return { timeToStartMs: null, timeToCloseMs: null };
  return {
    timeToStartMs: status.startedAt === undefined ? null : Math.max(0, status.startedAt - status.createdAt),
    timeToCloseMs: status.completedAt === undefined ? null : Math.max(0, status.completedAt - status.createdAt)
  };
}

function submissionEnd(status: SubmissionStatus): RunFigures["status"] {
  return status.status === "completed" ? "done" : status.status === "error" ? "error" : "cancelled";
}
