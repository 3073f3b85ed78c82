/**
 * A change to an issue as GitHub delivers it (`issues.assigned`,
 * `.unassigned`, `.labeled`, `.unlabeled`): GitHub's published example with
 * the issue, its labels and assignees after the change, the assignee or
 * label of the change and the sender replaced.
 */
import { author, githubTime, nodeExamples, rehosted, repositoryAs, type Definitions, type ExampleRepository, type GitHubUser } from "./github-delivery-shared";

export type IssuesAction = "assigned" | "unassigned" | "labeled" | "unlabeled";

/** An account as a payload names it: a `[bot]` login is a Bot unless `type` says otherwise. */
export type AccountOptions = { login: string; id?: number; type?: string };
export type LabelOptions = { name: string; id?: number };

export type IssuesDeliveryOptions = {
  repo: string;
  issueNumber: number;
  action: IssuesAction;
  issueTitle?: string;
  issueBody?: string | null;
  /** Who opened the issue (default: the example's), and their association (OWNER). */
  opener?: AccountOptions & { association?: string };
  /** The issue's labels and assignees after the change (default: the label or assignee of the change, when it was added; else none). */
  labels?: LabelOptions[];
  assignees?: AccountOptions[];
  /** The assignee added or removed (assigned, unassigned; default: the App's bot agent-think[bot]). */
  assignee?: AccountOptions;
  /** The label added or removed (labeled, unlabeled; default agent-think). */
  label?: LabelOptions;
  /** Who made the change: the sender (default octocat). */
  login?: string;
  userId?: number;
  userType?: string;
  /** When the issue was opened and changed (default: now: the webhook app ignores a delivery over a day older). */
  createdAt?: string;
  updatedAt?: string;
  /** The stand-in's installation (default 1) when the example names none. */
  installationId?: number;
  github?: { web: string; api: string };
};

type IssuesExample = {
  action: string;
  issue: Record<string, unknown> & { user: GitHubUser; labels?: Record<string, unknown>[] };
  repository: ExampleRepository;
  sender: GitHubUser;
  assignee?: GitHubUser | null;
  label?: Record<string, unknown>;
  [field: string]: unknown;
};

/** GitHub's github.com `issues.<action>` example: the first with an installation, as an App's deliveries have, else the first (the ingress tests pick it the same way). */
export function pickIssuesExample(definitions: unknown, action: IssuesAction): IssuesExample {
  const examples = ((definitions as Definitions).find((definition) => definition.name === "issues")?.examples ?? []).filter((payload) => payload.action === action);
  const example = examples.find((payload) => payload.installation !== undefined) ?? examples[0];
  if (!example) throw new Error(`@octokit/webhooks-examples no longer publishes an issues.${action} example`);
  return structuredClone(example) as IssuesExample;
}

/** The `issues.<action>` example read from node_modules: Node only. */
export function issuesExample(action: IssuesAction): IssuesExample {
  return pickIssuesExample(nodeExamples(), action);
}

/**
 * GitHub's `issues.<action>` example as a change to `repo`'s issue
 * `issueNumber`: the issue's URLs, number, title, body, opener, labels and
 * assignees, the assignee or label of the change, the sender, and dates
 * made now; the example's milestone and the rest are sent as published.
 */
export function issuesPayload(options: IssuesDeliveryOptions, example: IssuesExample = issuesExample(options.action)) {
  const payload = githubComIssuesPayload(options, example);
  return options.github ? rehosted(payload, options.github) : payload;
}

function githubComIssuesPayload(options: IssuesDeliveryOptions, example: IssuesExample) {
  const account = (given: AccountOptions) => author(example.issue.user, { login: given.login, ...(given.id === undefined ? {} : { userId: given.id }), ...(given.type === undefined ? {} : { userType: given.type }) });
  const repoUrl = `https://github.com/${options.repo}`;
  const api = `https://api.github.com/repos/${options.repo}`;
  const self = `${api}/issues/${options.issueNumber}`;
  const publishedLabel = example.label ?? example.issue.labels?.[0] ?? {};
  const label = (given: LabelOptions) => ({
    ...publishedLabel,
    id: given.id ?? Number(publishedLabel.id ?? 1),
    node_id: btoa(`010:Label${given.id ?? publishedLabel.id ?? 1}`),
    url: `${api}/labels/${encodeURIComponent(given.name)}`,
    name: given.name,
    default: false
  });
  const isAssignment = options.action === "assigned" || options.action === "unassigned";
  const changedAssignee = isAssignment ? (options.assignee ?? { login: "agent-think[bot]" }) : undefined;
  const changedLabel = isAssignment ? undefined : (options.label ?? { name: "agent-think" });
  const assignees = (options.assignees ?? (options.action === "assigned" && changedAssignee ? [changedAssignee] : [])).map(account);
  const labels = (options.labels ?? (options.action === "labeled" && changedLabel ? [changedLabel] : [])).map(label);
  const createdAt = options.createdAt ?? githubTime();
  const updatedAt = options.updatedAt ?? githubTime();
  const opener = options.opener ? account(options.opener) : example.issue.user;
  const sender = author(example.sender, options);
  const installation = (example as { installation?: Record<string, unknown> }).installation;
  const { assignee: _assignee, label: _label, ...rest } = example;
  return {
    ...rest,
    action: options.action,
    issue: {
      ...example.issue,
      url: self,
      repository_url: api,
      labels_url: `${self}/labels{/name}`,
      comments_url: `${self}/comments`,
      events_url: `${self}/events`,
      html_url: `${repoUrl}/issues/${options.issueNumber}`,
      number: options.issueNumber,
      title: options.issueTitle ?? `Issue ${options.issueNumber}`,
      body: options.issueBody === undefined ? example.issue.body : options.issueBody,
      user: opener,
      labels,
      assignee: assignees[0] ?? null,
      assignees,
      author_association: options.opener?.association ?? "OWNER",
      created_at: createdAt,
      updated_at: updatedAt
    },
    ...(changedAssignee ? { assignee: account(changedAssignee) } : {}),
    ...(changedLabel ? { label: label(changedLabel) } : {}),
    repository: repositoryAs(example.repository, options.repo),
    sender,
    installation: installation ? { ...installation, id: options.installationId ?? installation.id } : { id: options.installationId ?? 1, node_id: btoa(`033:Integration::Installation${options.installationId ?? 1}`) }
  };
}

export type IssuesPayload = ReturnType<typeof issuesPayload>;
