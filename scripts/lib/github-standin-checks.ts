/**
 * CI in the GitHub stand-in: a run of GitHub Actions on a commit, seeded by
 * a test (`seedCiRun`, `POST /_standin/ci-runs`), is both a check suite and
 * a workflow run, as GitHub Actions makes them, and each of its jobs is also
 * that suite's check run with the same id, as GitHub's are. The stand-in
 * answers a suite's check runs (`checks/list-for-suite`), a run's jobs
 * (`actions/list-jobs-for-workflow-run`) and a job's log
 * (`actions/download-job-logs-for-workflow-run`: GitHub's 302 to a download
 * address, here `/_standin/job-logs/<job id>`, which needs no token), each
 * shaped as GitHub's description has it; and it says what a
 * `check_suite.completed` or `workflow_run.completed` delivery for the run
 * carries (github-standin-webhooks.ts sends it).
 */
import type { CiDeliveryOptions, CiEventName } from "./github-delivery";
import { notFound, type StandinAnswer, type StandinBasics, type StandinCall } from "./github-standin-answers";

export type CiJobSeed = {
  name: string;
  /** GitHub's conclusion: `success`, `failure`, `timed_out`, `cancelled`, `skipped`, ... */
  conclusion: string;
  steps?: Array<{ name: string; conclusion: string }>;
  /** The job's log, as its download serves it (a line or two saying so when absent). */
  log?: string;
  /** Its check run's output. */
  title?: string;
  summary?: string;
};

export type CiRunSeed = {
  repo: string;
  headSha: string;
  headBranch: string;
  /** The repository the head is in, when not `repo` (a fork's). */
  headRepo?: string;
  /** The workflow's name (`CI`). */
  name?: string;
  jobs: CiJobSeed[];
  /** The suite's and the run's conclusion: `failure` when a job failed or timed out, else `success`, unless told. */
  conclusion?: string;
};

export type SeededCiRun = {
  repo: string;
  checkSuiteId: number;
  workflowRunId: number;
  headSha: string;
  headBranch: string;
  headRepo: string;
  name: string;
  conclusion: string;
  completedAt: string;
  jobs: Array<CiJobSeed & { id: number }>;
};

const DOCS = {
  checkRuns: "https://docs.github.com/rest/checks/runs#list-check-runs-in-a-check-suite",
  jobs: "https://docs.github.com/rest/actions/workflow-jobs#list-jobs-for-a-workflow-run",
  logs: "https://docs.github.com/rest/actions/workflow-jobs#download-job-logs-for-a-workflow-run"
};
export const JOB_LOGS_PATH = "/_standin/job-logs/";
const FAILING = new Set(["failure", "timed_out", "startup_failure"]);
const SHA = /^[0-9a-f]{40}$/;
const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

export class StandinChecks {
  readonly #basics: StandinBasics;
  readonly #repositoryId: (repo: string) => number;
  /** Open pull requests of `repo` whose head is `ref` at `sha` in `repo` itself. */
  readonly #pullsOnHead: (repo: string, ref: string, sha: string) => number[];
  readonly #runs: SeededCiRun[] = [];

  constructor(basics: StandinBasics, deps: { repositoryId(repo: string): number; pullsOnHead(repo: string, ref: string, sha: string): number[] }) {
    this.#basics = basics;
    this.#repositoryId = deps.repositoryId;
    this.#pullsOnHead = deps.pullsOnHead;
  }

  seed(seed: CiRunSeed): SeededCiRun {
    const jobs = seed.jobs.map((job) => ({ ...job, id: this.#basics.nextId() }));
    const failed = jobs.some((job) => FAILING.has(job.conclusion));
    const run: SeededCiRun = {
      repo: seed.repo,
      checkSuiteId: this.#basics.nextId(),
      workflowRunId: this.#basics.nextId(),
      headSha: seed.headSha,
      headBranch: seed.headBranch,
      headRepo: seed.headRepo ?? seed.repo,
      name: seed.name ?? "CI",
      conclusion: seed.conclusion ?? (failed ? "failure" : "success"),
      completedAt: this.#basics.iso(),
      jobs
    };
    this.#runs.push(run);
    return structuredClone(run);
  }

  /** `checks/list-for-suite`: the suite's check runs (its jobs), one page. */
  checkRuns(call: StandinCall): StandinAnswer {
    const run = this.#find(call, (candidate) => candidate.checkSuiteId === Number(call.params.check_suite_id));
    if (!run) return notFound(DOCS.checkRuns);
    const runs = run.jobs.map((job) => this.#checkRun(run, job));
    return { status: 200, body: { total_count: runs.length, check_runs: runs } };
  }

  /** `actions/list-jobs-for-workflow-run`: the run's jobs, one page. */
  jobs(call: StandinCall): StandinAnswer {
    const run = this.#find(call, (candidate) => candidate.workflowRunId === Number(call.params.run_id));
    if (!run) return notFound(DOCS.jobs);
    const jobs = run.jobs.map((job) => this.#job(run, job));
    return { status: 200, body: { total_count: jobs.length, jobs } };
  }

  /** `actions/download-job-logs-for-workflow-run`: GitHub's 302 to where the log can be downloaded without a token. */
  logs(call: StandinCall): StandinAnswer {
    const jobId = Number(call.params.job_id);
    const run = this.#find(call, (candidate) => candidate.jobs.some((job) => job.id === jobId));
    if (!run) return notFound(DOCS.logs);
    return { status: 302, headers: { location: `${this.#basics.baseUrl()}${JOB_LOGS_PATH}${jobId}` } };
  }

  /** A job's log as its download serves it, with GitHub Actions' timestamps; undefined for an unknown job. */
  logText(jobId: number): string | undefined {
    for (const run of this.#runs) {
      const job = run.jobs.find((candidate) => candidate.id === jobId);
      if (!job) continue;
      const lines = (job.log ?? `Run ${job.name}\nThe job ended: ${job.conclusion}`).split("\n");
      return `${lines.map((line) => `${run.completedAt.replace("Z", "0000Z")} ${line}`).join("\n")}\n`;
    }
    return undefined;
  }

  /** What a `<event>.completed` delivery for run `id` (its check suite's or its workflow run's) says; undefined for an unknown one. */
  delivery(event: CiEventName, id: number): Omit<CiDeliveryOptions, "event"> | undefined {
    const run = this.#runs.find((candidate) => (event === "check_suite" ? candidate.checkSuiteId : candidate.workflowRunId) === id);
    if (!run) return undefined;
    const fork = run.headRepo.toLowerCase() !== run.repo.toLowerCase();
    // GitHub lists only pull requests on the same head in the repository itself.
    const pulls = fork ? [] : this.#pullsOnHead(run.repo, run.headBranch, run.headSha);
    return {
      repo: run.repo,
      repositoryId: this.#repositoryId(run.repo),
      ...(pulls[0] === undefined ? {} : { pullNumber: pulls[0] }),
      headRef: run.headBranch,
      headSha: run.headSha,
      conclusion: run.conclusion,
      id,
      name: run.name,
      appSlug: "github-actions",
      updatedAt: run.completedAt.replace(/\.\d{3}Z$/, "Z"),
      installationId: 1,
      ...(fork ? { fork: { repo: run.headRepo, id: this.#repositoryId(run.headRepo) } } : {})
    };
  }

  /** The runs seeded so far. */
  runs(): SeededCiRun[] {
    return structuredClone(this.#runs);
  }

  #find(call: StandinCall, match: (run: SeededCiRun) => boolean): SeededCiRun | undefined {
    const repo = `${call.params.owner}/${call.params.repo}`.toLowerCase();
    return this.#runs.find((run) => run.repo.toLowerCase() === repo && match(run));
  }

  #jobUrls(run: SeededCiRun, job: { id: number }) {
    const api = `${this.#basics.baseUrl()}/repos/${run.repo}`;
    return {
      api,
      html: `https://github.com/${run.repo}/actions/runs/${run.workflowRunId}/job/${job.id}`
    };
  }

  #checkRun(run: SeededCiRun, job: CiJobSeed & { id: number }) {
    const { api, html } = this.#jobUrls(run, job);
    return {
      id: job.id,
      head_sha: run.headSha,
      node_id: `CR_standin${job.id}`,
      external_id: String(job.id),
      url: `${api}/check-runs/${job.id}`,
      html_url: html,
      details_url: html,
      status: "completed",
      conclusion: job.conclusion,
      started_at: run.completedAt,
      completed_at: run.completedAt,
      output: { title: job.title ?? null, summary: job.summary ?? null, text: null, annotations_count: 0, annotations_url: `${api}/check-runs/${job.id}/annotations` },
      name: job.name,
      check_suite: { id: run.checkSuiteId },
      app: null,
      pull_requests: []
    };
  }

  #job(run: SeededCiRun, job: CiJobSeed & { id: number }) {
    const { api, html } = this.#jobUrls(run, job);
    return {
      id: job.id,
      run_id: run.workflowRunId,
      run_url: `${api}/actions/runs/${run.workflowRunId}`,
      run_attempt: 1,
      node_id: `J_standin${job.id}`,
      head_sha: run.headSha,
      url: `${api}/actions/jobs/${job.id}`,
      html_url: html,
      status: "completed",
      conclusion: job.conclusion,
      created_at: run.completedAt,
      started_at: run.completedAt,
      completed_at: run.completedAt,
      name: job.name,
      steps: (job.steps ?? []).map((step, index) => ({
        status: "completed",
        conclusion: step.conclusion,
        name: step.name,
        number: index + 1,
        started_at: run.completedAt,
        completed_at: run.completedAt
      })),
      check_run_url: `${api}/check-runs/${job.id}`,
      labels: ["ubuntu-latest"],
      runner_id: 1,
      runner_name: "GitHub Actions 1",
      runner_group_id: 1,
      runner_group_name: "GitHub Actions",
      workflow_name: run.name,
      head_branch: run.headBranch
    };
  }
}

/** A seed as the stand-in takes it, or what is wrong with it (naming the field). */
export function ciRunSeed(value: unknown): CiRunSeed | string {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return "the body must be a JSON object";
  const seed = value as Record<string, unknown>;
  if (typeof seed.repo !== "string" || !REPO.test(seed.repo)) return "repo must be owner/name";
  if (typeof seed.headSha !== "string" || !SHA.test(seed.headSha)) return "headSha must be a full commit SHA";
  if (typeof seed.headBranch !== "string" || seed.headBranch === "") return "headBranch must be a branch name";
  if (seed.headRepo !== undefined && (typeof seed.headRepo !== "string" || !REPO.test(seed.headRepo))) return "headRepo must be owner/name";
  if (seed.name !== undefined && typeof seed.name !== "string") return "name must be a string";
  if (seed.conclusion !== undefined && typeof seed.conclusion !== "string") return "conclusion must be a string";
  if (!Array.isArray(seed.jobs) || seed.jobs.length === 0) return "jobs must be a list of at least one job";
  for (const [index, job] of seed.jobs.entries()) {
    const entry = job as Record<string, unknown> | null;
    if (typeof entry !== "object" || entry === null || typeof entry.name !== "string" || typeof entry.conclusion !== "string") return `jobs[${index}] must have a name and a conclusion`;
    for (const field of ["log", "title", "summary"] as const) if (entry[field] !== undefined && typeof entry[field] !== "string") return `jobs[${index}].${field} must be a string`;
    if (entry.steps !== undefined && (!Array.isArray(entry.steps) || entry.steps.some((step) => typeof (step as { name?: unknown })?.name !== "string" || typeof (step as { conclusion?: unknown })?.conclusion !== "string"))) {
      return `jobs[${index}].steps must be a list of { name, conclusion }`;
    }
  }
  return value as CiRunSeed;
}
