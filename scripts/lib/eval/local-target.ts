/**
 * `--target local`: the local Worker (`npm start`, with a real model in
 * `.dev.vars` or the scripted one) through the dispatch contract, as `npm
 * run dispatch` drives it: `POST /dev/dispatch`, then `GET
 * /dev/messages/:session?submissionId=` until the submission ends, then the
 * run's figures from the dashboard API; a run past its time is dispatched
 * `stop`. No GitHub issue is opened: the
 * issue's title and body go in the instruction, and every case gets an
 * issue number of its own, so each run is a new thread. With `--model`, the
 * repository's config the Worker reads says the model, on the GitHub
 * stand-in (`--standin`) the local Worker reads: pick-model.ts.
 */
import { randomInt } from "node:crypto";
import { MAX_INSTRUCTION_CHARS } from "../../../src/shared/dispatch";
import { sessionName } from "../../../src/shared/session-name";
import { dispatchResultSchema, errorBodySchema, isTerminalStatus, messagesPath, messagesResponseSchema, type SubmissionStatus } from "../dev-api";
import type { CaseNeed, EvalCase } from "./case";
import { pickModelOnStandin } from "./pick-model";
import { NO_FIGURES, type CaseRun, type EvalTarget, type RunFigures, type RunRequest } from "./target";
import { endedRun, hasContainer, jsonOrText, runFigures, sleep } from "./thread-figures";

export type LocalTargetOptions = {
  baseUrl: string;
  /** Every case runs against this repository; without it, against the case's own. */
  repo?: string;
  /** The first issue number; each case takes the next. */
  issueBase?: number;
  pollMs?: number;
  /** The GitHub stand-in the local Worker reads (its GITHUB_API_URL's origin): where `--model` puts each case's config. */
  standinUrl?: string;
};

export class LocalTarget implements EvalTarget {
  readonly kind = "local" as const;
  readonly against: string;
  readonly #options: LocalTargetOptions;
  #nextIssue: number;

  constructor(options: LocalTargetOptions) {
    this.#options = options;
    this.against = options.baseUrl;
    // Seconds since 2026 keep issue numbers apart between eval runs on one server.
    this.#nextIssue = options.issueBase ?? Math.floor((Date.now() - Date.UTC(2026, 0, 1)) / 1000);
  }

  repoFor(evalCase: EvalCase): string {
    return this.#options.repo ?? evalCase.repo;
  }

  /** `--model`: `model:` in each case repository's .github/agent-think.yml, on the stand-in the local Worker reads (pick-model.ts). */
  pickModel(model: string, repos: readonly string[]): Promise<() => Promise<void>> {
    const standin = this.#options.standinUrl;
    if (!standin) throw new Error("--model needs the GitHub stand-in the local Worker reads (--standin, its GITHUB_API_URL)");
    return pickModelOnStandin(standin, repos, model);
  }

  async run(request: RunRequest): Promise<CaseRun> {
    const { baseUrl } = this.#options;
    const repo = this.repoFor(request.case);
    const issueNumber = this.#nextIssue++;
    const response = await this.#dispatch(repo, issueNumber, withIssue(request.instruction, request.case), request.case.issue.title);
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
      await (await this.#dispatch(repo, issueNumber, "stop", request.case.issue.title)).body?.cancel();
      return { kind: "timed-out", figures: { ...NO_FIGURES, ...timing, timeToCloseMs: null, threadUrl } };
    }
    const run = await endedRun({ baseUrl }, session, submissionId);
    // The submission's own end stands where the command center has not heard of it.
    const own: RunFigures = { ...NO_FIGURES, ...timing, threadUrl, status: submissionEnd(status), error: status.error ?? null };
    if (!run) return { kind: "ended", figures: own };
    const read = runFigures(run);
    return { kind: "ended", figures: { ...own, ...read, status: read.status ?? own.status, error: read.error ?? own.error } };
  }

  #dispatch(repo: string, issueNumber: number, instruction: string, issueTitle: string): Promise<Response> {
    return fetch(`${this.#options.baseUrl}/dev/dispatch`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        repo,
        issueNumber,
        instruction,
        installationToken: "",
        commentId: randomInt(1, 2 ** 31),
        issueTitle,
        requestedBy: { login: "agent-think-eval" }
      }),
      signal: AbortSignal.timeout(15_000)
    });
  }

  /** A container, when the Worker's health report says its containers line is ok (local dev has no engine, so it is not). */
  has(need: CaseNeed): Promise<boolean> {
    return need === "container" ? hasContainer({ baseUrl: this.#options.baseUrl }) : Promise.resolve(false);
  }

  fetchPage(url: string): Promise<Response> {
    return fetch(url, { signal: AbortSignal.timeout(15_000) });
  }
}


/** The instruction with the case's issue after it: locally there is no issue to read. */
export function withIssue(instruction: string, evalCase: EvalCase): string {
  const text = `${instruction}\n\n---\nThe issue, as it was reported (${evalCase.source}):\n\n# ${evalCase.issue.title}\n\n${evalCase.issue.body}`;
  return text.length <= MAX_INSTRUCTION_CHARS ? text : `${text.slice(0, MAX_INSTRUCTION_CHARS - 1)}…`;
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
