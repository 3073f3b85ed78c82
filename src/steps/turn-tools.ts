/**
 * The run's own tools (tools/run-tools.ts) wired to the running turn: bash
 * through the turn's workspace, a published reproduction linked by the
 * closing comment, the progress comment and the thread page, the plan and
 * the result recorded for the turn's submission (the result redacted: it
 * becomes the closing comment), pull requests and attachments through their
 * steps. ThinkAgent's `getTools` returns `tools()`; pure apart from its deps.
 */
import type { ToolSet } from "ai";
import type { RunCredentials } from "../egress/run-credentials";
import type { PublishInput, PublishResult } from "../repro/publish";
import { reproIssue } from "../repro/publication-issue";
import type { ReproPublisher } from "../repro/publisher";
import type { RunProgress } from "../report/run-progress";
import type { RunReports } from "../report/run-reports";
import type { PlanStep } from "../report/progress";
import type { RunResult } from "../run/ending";
import type { RunContextStore } from "../run/run-context";
import type { RunLedger } from "../run/run-ledger";
import type { SessionTrust } from "../run/session-trust";
import { parseGitHubApiUrl } from "../shared/github-urls";
import { createRunTools } from "../tools/run-tools";
import type { RunAttachments } from "./run-attachments";
import type { RunPullRequests } from "./run-pull-requests";
import type { RunView } from "./run-view";
import type { TurnWorkspace } from "./turn-workspace";

export type TurnToolsDeps = {
  containerAvailable: () => boolean;
  view: Pick<RunView, "turn">;
  runs: Pick<RunContextStore, "get">;
  token: Pick<RunCredentials["token"], "secrets" | "redactDeep">;
  trust: Pick<SessionTrust, "reporter">;
  githubApiUrl: () => string;
  workspace: Pick<TurnWorkspace, "bash">;
  repros: Pick<ReproPublisher, "publish">;
  pullRequests: Pick<RunPullRequests, "open">;
  attachments: Pick<RunAttachments, "fetch">;
  ledger: Pick<RunLedger, "recordReproduction" | "recordResult">;
  progress: Pick<RunProgress, "published" | "plan">;
  reports: Pick<RunReports, "published">;
  now?: () => number;
};

export class TurnTools {
  readonly #deps: TurnToolsDeps;
  readonly #now: () => number;

  constructor(deps: TurnToolsDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => Date.now());
  }

  tools(): ToolSet {
    const deps = this.#deps;
    return createRunTools({
      containerAvailable: deps.containerAvailable(),
      bash: (input) => deps.workspace.bash(input),
      publish: (input) => this.publish(input),
      openPullRequest: (input) => deps.pullRequests.open(input),
      fetchAttachment: (input) => deps.attachments.fetch(input),
      recordPlan: (steps) => this.plan(steps),
      recordResult: (result) => this.result(result)
    });
  }

  /** `publish_reproduction`: the page goes out under the run's issue, refused if it holds a token. */
  async publish(input: PublishInput): Promise<PublishResult> {
    const deps = this.#deps;
    const run = await deps.runs.get();
    const github = parseGitHubApiUrl(deps.githubApiUrl());
    const result = await deps.repros.publish(input, {
      ...(run ? { issue: reproIssue(run, github.ok ? github.github.web : undefined) } : {}),
      repoVisibility: run?.repoVisibility,
      secrets: deps.token.secrets(),
      ...(deps.trust.reporter ? { tier: "reporter" as const } : {})
    });
    if (result.published) await this.#published(result.url);
    return result;
  }

  /** `update_plan`: the progress comment's checklist. */
  async plan(steps: PlanStep[]): Promise<void> {
    const turn = await this.#deps.view.turn();
    if (turn) await this.#deps.progress.plan(turn.submissionId, steps);
  }

  /** `report_result`: kept for the closing comment; false when no turn runs. */
  async result(result: RunResult): Promise<boolean> {
    const turn = await this.#deps.view.turn();
    // The result becomes the closing comment and an event: nothing in it may hold a token.
    if (turn) await this.#deps.ledger.recordResult(turn.submissionId, this.#deps.token.redactDeep(result));
    return turn !== null;
  }

  /** A page was published: the closing comment links it, and the thread page shows it. */
  async #published(url: string): Promise<void> {
    const turn = await this.#deps.view.turn();
    if (!turn) return;
    await this.#deps.ledger.recordReproduction(turn.submissionId, url);
    await this.#deps.progress.published(turn.submissionId, url);
    this.#deps.reports.published(turn.submissionId, url, this.#now());
  }
}
