/**
 * A completed CI run on a pull request's head as GitHub delivers it
 * (`check_suite.completed`, `workflow_run.completed`): GitHub's published
 * example naming a pull request, with the repository, the run, its head
 * (or a fork's), the pull request it lists and the installation replaced.
 */
import { githubTime, nodeExamples, renamed, repositoryAs, userUrls, type Definitions, type GitHubUser } from "./github-delivery-shared";

export type CiEventName = "check_suite" | "workflow_run";

export type CiDeliveryOptions = {
  event: CiEventName;
  /** `owner/name`, and its id (GitHub names a check suite's repositories by id). */
  repo: string;
  repositoryId?: number;
  /** The pull request GitHub lists for the head; none when absent. */
  pullNumber?: number;
  headRef: string;
  headSha: string;
  baseRef?: string;
  /** GitHub's conclusion (`failure`, `timed_out`, `success`, ...); `failure` unless told. */
  conclusion?: string | null;
  /** The check suite's or the workflow run's id. */
  id?: number;
  /** The workflow's name (a workflow run), or the checks' App's slug (a check suite: `github-actions` unless told). */
  name?: string;
  appSlug?: string;
  /** When it completed; now unless told (the webhook app takes a delivery within 24 hours of it). */
  updatedAt?: string;
  installationId?: number;
  /** The head is in another repository (a fork): GitHub then lists no pull request for it, and a check suite names no branch. */
  fork?: { repo: string; id: number };
  sender?: string;
};

type CiExample = {
  action?: string;
  repository: Record<string, unknown> & { id: number; owner: object };
  sender: GitHubUser;
  installation?: Record<string, unknown>;
  check_suite?: Record<string, unknown> & { pull_requests: Record<string, unknown>[]; app: Record<string, unknown> };
  workflow_run?: Record<string, unknown> & { pull_requests: Record<string, unknown>[]; head_repository: Record<string, unknown> & { owner: object } };
  [field: string]: unknown;
};

/** GitHub's github.com `<event>.completed` example that names a pull request (the check suite's and workflow run's first such). */
export function pickCiExample(definitions: unknown, event: CiEventName): CiExample {
  const examples = ((definitions as Definitions).find((definition) => definition.name === event)?.examples ?? []) as CiExample[];
  const example = examples.find((payload) => payload.action === "completed" && (payload[event] as { pull_requests?: unknown[] } | undefined)?.pull_requests?.length);
  if (!example) throw new Error(`@octokit/webhooks-examples no longer publishes a ${event}.completed example naming a pull request`);
  return structuredClone(example);
}

/** The `<event>.completed` example read from node_modules: Node only. */
export function ciExample(event: CiEventName): CiExample {
  return pickCiExample(nodeExamples(), event);
}

/**
 * GitHub's `check_suite.completed` or `workflow_run.completed` example as a
 * run of `repo`'s CI on pull request `pullNumber`'s head: the repository
 * renamed (its id kept unless told), the suite's or run's id, head branch
 * and commit, conclusion and time, the pull request it lists (its head and
 * base by repository id, as GitHub lists them), a workflow run's head
 * repository, the sender and the installation; the rest as published.
 */
export function ciPayload(options: CiDeliveryOptions, example: CiExample = ciExample(options.event)) {
  const repository = { ...repositoryAs(example.repository, options.repo), id: options.repositoryId ?? example.repository.id };
  const api = `https://api.github.com/repos/${options.repo}`;
  const headRepo = options.fork?.repo ?? options.repo;
  const headRepoId = options.fork?.id ?? repository.id;
  const published = (options.event === "check_suite" ? example.check_suite : example.workflow_run)!;
  const listed = published.pull_requests[0] as Record<string, unknown> & { head: Record<string, unknown>; base: Record<string, unknown> };
  const pull = {
    ...listed,
    url: `${api}/pulls/${options.pullNumber ?? 0}`,
    number: options.pullNumber,
    head: { ...listed.head, ref: options.headRef, sha: options.headSha, repo: { id: headRepoId, url: `https://api.github.com/repos/${headRepo}`, name: headRepo.split("/")[1] } },
    base: { ...listed.base, ref: options.baseRef ?? "main", repo: { id: repository.id, url: api, name: repository.name } }
  };
  const pulls = options.fork || options.pullNumber === undefined ? [] : [pull];
  const id = options.id ?? Number(published.id);
  const conclusion = options.conclusion === undefined ? "failure" : options.conclusion;
  const updatedAt = options.updatedAt ?? githubTime();
  const sender = renamed(example.sender, options.sender ?? "octocat");
  const installation = { id: options.installationId ?? 1, node_id: btoa(`033:Integration::Installation${options.installationId ?? 1}`) };
  const { organization: _organization, ...rest } = example;
  if (options.event === "check_suite") {
    const suite = example.check_suite!;
    const slug = options.appSlug ?? "github-actions";
    return {
      ...rest,
      action: "completed",
      check_suite: {
        ...suite,
        id,
        node_id: btoa(`014:CheckSuite${id}`),
        head_branch: options.fork ? null : options.headRef,
        head_sha: options.headSha,
        after: options.headSha,
        status: "completed",
        conclusion,
        url: `${api}/check-suites/${id}`,
        check_runs_url: `${api}/check-suites/${id}/check-runs`,
        pull_requests: pulls,
        app: { ...suite.app, slug, name: slug === "github-actions" ? "GitHub Actions" : slug },
        updated_at: updatedAt
      },
      repository,
      sender,
      installation
    };
  }
  const run = example.workflow_run!;
  const [headOwner = "", headName = ""] = headRepo.split("/");
  return {
    ...rest,
    action: "completed",
    workflow_run: {
      ...run,
      id,
      name: options.name ?? run.name,
      head_branch: options.headRef,
      head_sha: options.headSha,
      status: "completed",
      conclusion,
      html_url: `https://github.com/${options.repo}/actions/runs/${id}`,
      url: `${api}/actions/runs/${id}`,
      jobs_url: `${api}/actions/runs/${id}/jobs`,
      logs_url: `${api}/actions/runs/${id}/logs`,
      check_suite_url: `${api}/check-suites/${String(run.check_suite_id)}`,
      cancel_url: `${api}/actions/runs/${id}/cancel`,
      rerun_url: `${api}/actions/runs/${id}/rerun`,
      artifacts_url: `${api}/actions/runs/${id}/artifacts`,
      pull_requests: pulls,
      head_repository: { ...run.head_repository, id: headRepoId, name: headName, full_name: headRepo, html_url: `https://github.com/${headRepo}`, owner: { ...run.head_repository.owner, login: headOwner, ...userUrls(headOwner) } },
      repository,
      updated_at: updatedAt
    },
    repository,
    sender,
    installation
  };
}

export type CiPayload = ReturnType<typeof ciPayload>;
