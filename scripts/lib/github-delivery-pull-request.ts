/**
 * A pull request opened, reopened or closed as GitHub delivers it
 * (`pull_request.opened`, `.reopened`, `.closed`, merged or not): GitHub's
 * published example for the action with the repository, the pull request's
 * number, author, head, times and merge replaced; the rest as published.
 */
import { author, githubTime, nodeExamples, repositoryAs, type Definitions, type ExampleRepository, type GitHubUser } from "./github-delivery-shared";

export type PullRequestAction = "opened" | "reopened" | "closed";

export type PullRequestDeliveryOptions = {
  /** The base repository, `owner/name`. */
  repo: string;
  pullNumber: number;
  action: PullRequestAction;
  /** `closed` only: whether it was merged (default false). */
  merged?: boolean;
  /** The head branch (default `agent-think/issue-<pullNumber>`), and its repository when it is a fork's. */
  headRef?: string;
  headRepo?: string;
  /** Who opened it (default the App's bot, agent-think[bot]; a `[bot]` login is a Bot). */
  pullAuthor?: string;
  pullAuthorType?: string;
  /** When it was opened, and when it changed (merged or closed too); default now. */
  createdAt?: string;
  changedAt?: string;
  /** Who made the change: the sender (default octocat). */
  sender?: string;
  installationId?: number;
};

type PullRequestExample = {
  action?: string;
  number: number;
  pull_request: Record<string, unknown> & { user: GitHubUser; head: Record<string, unknown>; base: Record<string, unknown> };
  repository: ExampleRepository;
  sender: GitHubUser;
  installation?: Record<string, unknown>;
  [field: string]: unknown;
};

/** GitHub's github.com `pull_request.<action>` example: the first with an installation, as an App's deliveries have. */
export function pickPullRequestExample(definitions: unknown, action: PullRequestAction): PullRequestExample {
  const examples = ((definitions as Definitions).find((definition) => definition.name === "pull_request")?.examples ?? []).filter((payload) => payload.action === action);
  const example = examples.find((payload) => payload.installation !== undefined) ?? examples[0];
  if (!example) throw new Error(`@octokit/webhooks-examples no longer publishes a pull_request.${action} example`);
  return structuredClone(example) as PullRequestExample;
}

/** The `pull_request.<action>` example read from node_modules: Node only. */
export function pullRequestExample(action: PullRequestAction): PullRequestExample {
  return pickPullRequestExample(nodeExamples(), action);
}

/** GitHub's `pull_request.<action>` example as `repo`'s pull request `pullNumber`, by the App's bot from its branch unless told. */
export function pullRequestPayload(options: PullRequestDeliveryOptions, example: PullRequestExample = pullRequestExample(options.action)) {
  const repository = repositoryAs(example.repository, options.repo);
  const api = `https://api.github.com/repos/${options.repo}`;
  const headRepo = options.headRepo ?? options.repo;
  const changedAt = options.changedAt ?? githubTime();
  const closed = options.action === "closed";
  const merged = closed && options.merged === true;
  const pullAuthor = options.pullAuthor ?? "agent-think[bot]";
  const { pull_request: pull } = example;
  const headRef = options.headRef ?? `agent-think/issue-${options.pullNumber}`;
  return {
    ...example,
    action: options.action,
    number: options.pullNumber,
    pull_request: {
      ...pull,
      url: `${api}/pulls/${options.pullNumber}`,
      html_url: `https://github.com/${options.repo}/pull/${options.pullNumber}`,
      number: options.pullNumber,
      state: closed ? "closed" : "open",
      user: author(pull.user, { login: pullAuthor, ...(options.pullAuthorType ? { userType: options.pullAuthorType } : {}) }),
      created_at: options.createdAt ?? changedAt,
      updated_at: changedAt,
      closed_at: closed ? changedAt : null,
      merged_at: merged ? changedAt : null,
      merged,
      head: { ...pull.head, ref: headRef, label: `${headRepo.split("/")[0]}:${headRef}`, repo: { ...repositoryAs(example.repository, headRepo) } },
      base: { ...pull.base, repo: repository }
    },
    repository,
    sender: author(example.sender, { login: options.sender ?? "octocat" }),
    installation: { id: options.installationId ?? 1, node_id: btoa(`033:Integration::Installation${options.installationId ?? 1}`) }
  };
}

export type PullRequestPayload = ReturnType<typeof pullRequestPayload>;
