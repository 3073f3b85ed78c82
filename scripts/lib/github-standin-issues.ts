/**
 * Issues created over the API (`issues/create`, numbered with the
 * repository's pull requests, by the caller) and the labels they are given,
 * created on the repository on first use, and who is assigned: get, update
 * (retitle, close, reopen, relabel), list-labels-on-issue, add-labels,
 * remove-label, add-assignees and remove-assignees. `issues/get` answers a pull request's number too, as
 * GitHub does (its conversation, with `pull_request`); any other number is
 * GitHub's 404. A user's change of labels or assignees comes back with its
 * `issues` events, one per label or assignee, for the webhook deliveries.
 */

import type { Author, StandinAccounts } from "./github-standin-accounts";
import { bodyTooLong, errorAnswer, forgetRepository, isTooLong, notFound, notModelled, numberKey, pageOf, validationFailed, type IssueEvent, type StandinAnswer, type StandinBasics, type StandinCall } from "./github-standin-answers";

const ISSUES_DOCS_URL = "https://docs.github.com/rest/issues/issues";
const LABELS_DOCS_URL = "https://docs.github.com/rest/issues/labels";
const ASSIGNEES_DOCS_URL = "https://docs.github.com/rest/issues/assignees";
/** GitHub's limit on an issue's assignees. */
const MAX_ASSIGNEES = 10;
/** Fields of issues/create and issues/update the stand-in does not model: taken when empty (null, []), else a 501. */
const UNMODELLED_ISSUE_FIELDS = ["assignee", "assignees", "milestone", "issue_field_values", "type"];

/** An issue created over the API (issues/create). */
export type Issue = {
  /** `owner/name` as first spelled. */
  repo: string;
  number: number;
  id: number;
  title: string;
  body: string | null;
  /** Label names, as the repository's labels spell them. */
  labels: string[];
  /** Assignees' logins, in the order they were assigned. */
  assignees: string[];
  state: "open" | "closed";
  stateReason: string | null;
  user: Author;
  association: string;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  closedBy: Author | null;
};

/** A repository's label, created the first time an issue is given it (as GitHub does). */
type Label = { id: number; name: string };

/** A pull request as the issues API answers for its number. */
export type PullAsIssue = Pick<Issue, "repo" | "number" | "id" | "title" | "body" | "state" | "user" | "association" | "createdAt" | "updatedAt" | "closedAt">;

/** What issues need from the other parts: the number a new one takes (shared with pull requests), how many comments one has, and the pull request a number may be. */
export type IssueLinks = {
  nextNumber: (repo: string) => number;
  commentCount: (repo: string, number: number) => number;
  pull: (repo: string, number: number) => PullAsIssue | undefined;
};

export class StandinIssues {
  readonly #basics: StandinBasics;
  readonly #accounts: Pick<StandinAccounts, "association" | "author" | "user">;
  readonly #links: IssueLinks;
  readonly #issues = new Map<string, Issue>();
  readonly #labels = new Map<string, Label>();

  constructor(basics: StandinBasics, accounts: Pick<StandinAccounts, "association" | "author" | "user">, links: IssueLinks) {
    this.#basics = basics;
    this.#accounts = accounts;
    this.#links = links;
  }

  find(repo: string, number: number): Issue | undefined {
    return this.#issues.get(numberKey(repo, number));
  }

  /** Forgets every issue and label. */
  clear(): void {
    this.#issues.clear();
    this.#labels.clear();
  }

  /** Forgets `repo`'s issues and labels (it was deleted and created again). */
  forget(repo: string): void {
    forgetRepository(this.#issues, repo);
    const labels = `${repo} `.toLowerCase();
    for (const key of [...this.#labels.keys()]) if (key.startsWith(labels)) this.#labels.delete(key);
  }

  create(call: StandinCall): StandinAnswer {
    const { owner, repo } = call.params;
    const fullName = `${owner}/${repo}`;
    const body = call.body as { title: string | number; body?: string; labels?: unknown[] } & Record<string, unknown>;
    const unmodelled = unmodelledIssueFields(body);
    if (unmodelled) return unmodelled;
    const title = String(body.title);
    if (title.trim() === "") return validationFailed("Issue", "missing_field", "title", "title cannot be blank", `${ISSUES_DOCS_URL}#create-an-issue`);
    if (body.body !== undefined && isTooLong(body.body)) return bodyTooLong("Issue", `${ISSUES_DOCS_URL}#create-an-issue`);
    const number = this.#links.nextNumber(fullName);
    const author = this.#accounts.author(call);
    const now = this.#basics.iso();
    const issue: Issue = {
      repo: fullName,
      number,
      id: this.#basics.nextId(),
      title,
      body: body.body ?? null,
      labels: this.#labelNames(fullName, body.labels ?? []),
      assignees: [],
      state: "open",
      stateReason: null,
      user: author,
      association: this.#accounts.association(author, fullName),
      createdAt: now,
      updatedAt: now,
      closedAt: null,
      closedBy: null
    };
    this.#issues.set(numberKey(fullName, number), issue);
    return { status: 201, body: this.#issue(issue) };
  }

  get(call: StandinCall): StandinAnswer {
    const issue = this.#issueOf(call);
    if (issue) return { status: 200, body: this.#issue(issue) };
    const pull = this.#links.pull(`${call.params.owner}/${call.params.repo}`, Number(call.params.issue_number));
    if (!pull) return notFound(`${ISSUES_DOCS_URL}#get-an-issue`);
    const body = this.#issue({ ...pull, labels: [], assignees: [], stateReason: null, closedBy: null });
    const web = `${this.#basics.baseUrl()}/${pull.repo}/pull/${pull.number}`;
    const pullRequest = { url: `${this.#basics.baseUrl()}/repos/${pull.repo}/pulls/${pull.number}`, html_url: web, diff_url: `${web}.diff`, patch_url: `${web}.patch`, merged_at: null };
    return { status: 200, body: { ...body, html_url: web, pull_request: pullRequest } };
  }

  /** title, body, state (with state_reason: closing defaults to completed, reopening is reopened), labels (replaced). */
  update(call: StandinCall): StandinAnswer {
    const issue = this.#issueOf(call);
    if (!issue) return notFound(`${ISSUES_DOCS_URL}#update-an-issue`);
    const change = call.body as { title?: string | number | null; body?: string | null; state?: "open" | "closed"; state_reason?: string | null; labels?: unknown[] } & Record<string, unknown>;
    const unmodelled = unmodelledIssueFields(change);
    if (unmodelled) return unmodelled;
    if (change.title !== undefined && (change.title === null || String(change.title).trim() === "")) {
      return validationFailed("Issue", "missing_field", "title", "title cannot be blank", `${ISSUES_DOCS_URL}#update-an-issue`);
    }
    if (typeof change.body === "string" && isTooLong(change.body)) return bodyTooLong("Issue", `${ISSUES_DOCS_URL}#update-an-issue`);
    const now = this.#basics.iso();
    const labelsBefore = [...issue.labels];
    if (change.title !== undefined) issue.title = String(change.title);
    if (change.body !== undefined) issue.body = change.body;
    if (change.labels !== undefined) issue.labels = this.#labelNames(issue.repo, change.labels);
    if (change.state === "closed") {
      if (issue.state !== "closed") {
        issue.closedAt = now;
        issue.closedBy = this.#accounts.author(call);
      }
      issue.state = "closed";
      issue.stateReason = change.state_reason ?? (issue.stateReason === null || issue.stateReason === "reopened" ? "completed" : issue.stateReason);
    } else if (change.state === "open" && issue.state === "closed") {
      issue.state = "open";
      issue.stateReason = "reopened";
      issue.closedAt = null;
      issue.closedBy = null;
    }
    issue.updatedAt = now;
    const events = [
      ...issue.labels.filter((name) => !includes(labelsBefore, name)).map((name) => this.#event(call, issue, "labeled", { label: name })),
      ...labelsBefore.filter((name) => !includes(issue.labels, name)).map((name) => this.#event(call, issue, "unlabeled", { label: name }))
    ];
    return { status: 200, body: this.#issue(issue), ...this.#delivered(call, events) };
  }

  /** The issue's labels, a page at a time (GitHub's `label`); GitHub's 404 for an issue it does not have. */
  listLabels(call: StandinCall): StandinAnswer {
    const issue = this.#issueOf(call);
    if (!issue) return notFound(`${LABELS_DOCS_URL}#list-labels-for-an-issue`);
    return pageOf(call, issue.labels, this.#basics.baseUrl(), (name) => this.#label(issue.repo, name));
  }

  /** Adds labels (creating any the repository does not have yet); answers all the issue's labels. */
  addLabels(call: StandinCall): StandinAnswer {
    const issue = this.#issueOf(call);
    if (!issue) return notFound(`${LABELS_DOCS_URL}#add-labels-to-an-issue`);
    const added = this.#labelNames(issue.repo, (call.body as { labels?: unknown[] } | undefined)?.labels ?? []).filter((name) => !includes(issue.labels, name));
    issue.labels.push(...added);
    issue.updatedAt = this.#basics.iso();
    const events = added.map((name) => this.#event(call, issue, "labeled", { label: name }));
    return { status: 200, body: issue.labels.map((name) => this.#label(issue.repo, name)), ...this.#delivered(call, events) };
  }

  /** Removes label `name` (GitHub's 404 "Label does not exist" when the issue does not have it); answers the labels left. */
  removeLabel(call: StandinCall): StandinAnswer {
    const issue = this.#issueOf(call);
    const documentationUrl = `${LABELS_DOCS_URL}#remove-a-label-from-an-issue`;
    if (!issue) return notFound(documentationUrl);
    const name = issue.labels.find((label) => label.toLowerCase() === call.params.name!.toLowerCase());
    if (name === undefined) return errorAnswer(404, "Label does not exist", documentationUrl);
    issue.labels = issue.labels.filter((label) => label !== name);
    issue.updatedAt = this.#basics.iso();
    const event = this.#event(call, issue, "unlabeled", { label: name });
    return { status: 200, body: issue.labels.map((label) => this.#label(issue.repo, label)), ...this.#delivered(call, [event]) };
  }

  /**
   * Assigns the logins given (strings or `{ login }`), any login being a
   * user here and the App's bot assignable; one already assigned is left as
   * is. 201 with the issue; over 10 assignees GitHub's 422.
   */
  addAssignees(call: StandinCall): StandinAnswer {
    const issue = this.#issueOf(call);
    const documentationUrl = `${ASSIGNEES_DOCS_URL}#add-assignees-to-an-issue`;
    if (!issue) return notFound(documentationUrl);
    const given = ((call.body as { assignees?: unknown[] } | undefined)?.assignees ?? []).map((item) =>
      typeof item === "string" ? item : typeof item === "object" && item !== null ? String((item as { login?: unknown }).login ?? "") : ""
    );
    const added: string[] = [];
    for (const login of given) if (login.trim() !== "" && !includes(issue.assignees, login) && !includes(added, login)) added.push(login);
    if (issue.assignees.length + added.length > MAX_ASSIGNEES) {
      return validationFailed("Issue", "invalid", "assignees", `an issue may have at most ${MAX_ASSIGNEES} assignees`, documentationUrl);
    }
    issue.assignees.push(...added);
    if (added.length > 0) issue.updatedAt = this.#basics.iso();
    const events = added.map((login) => this.#event(call, issue, "assigned", { assignee: login }));
    return { status: 201, body: this.#issue(issue), ...this.#delivered(call, events) };
  }

  /** Unassigns the logins given; one not assigned is ignored, as GitHub ignores it. 200 with the issue. */
  removeAssignees(call: StandinCall): StandinAnswer {
    const issue = this.#issueOf(call);
    if (!issue) return notFound(`${ASSIGNEES_DOCS_URL}#remove-assignees-from-an-issue`);
    const given = (call.body as { assignees?: unknown[] } | undefined)?.assignees ?? [];
    const removed = issue.assignees.filter((login) => given.some((item) => typeof item === "string" && item.toLowerCase() === login.toLowerCase()));
    issue.assignees = issue.assignees.filter((login) => !removed.includes(login));
    if (removed.length > 0) issue.updatedAt = this.#basics.iso();
    const events = removed.map((login) => this.#event(call, issue, "unassigned", { assignee: login }));
    return { status: 200, body: this.#issue(issue), ...this.#delivered(call, events) };
  }

  /** The `issues` event of one change (the issue as it is after all of the call's changes). */
  #event(call: StandinCall, issue: Issue, action: IssueEvent["action"], change: { label?: string; assignee?: string }): IssueEvent {
    const sender = this.#accounts.author(call);
    return {
      action,
      repo: issue.repo,
      issueNumber: issue.number,
      issue: this.#issue(issue),
      ...(change.label === undefined ? {} : { label: this.#label(issue.repo, change.label) }),
      ...(change.assignee === undefined ? {} : { assignee: this.#assignee(change.assignee) }),
      sender: this.#accounts.user(sender.login, sender.type)
    };
  }

  /** The events to deliver: a user's changes only (the App's own are not delivered back to it, as its comments are not). */
  #delivered(call: StandinCall, events: IssueEvent[]): { issueEvents?: IssueEvent[] } {
    return call.caller?.kind === "user" && events.length > 0 ? { issueEvents: events } : {};
  }

  #assignee(login: string): Record<string, unknown> {
    return this.#accounts.user(login, login.toLowerCase().endsWith("[bot]") ? "Bot" : "User");
  }

  #issueOf(call: StandinCall): Issue | undefined {
    return this.find(`${call.params.owner}/${call.params.repo}`, Number(call.params.issue_number));
  }

  /** The names of labels given as strings or `{ name }`, each created on the repository when new; duplicates once. */
  #labelNames(repo: string, given: unknown[]): string[] {
    const names: string[] = [];
    for (const item of given) {
      const name = typeof item === "string" ? item : typeof item === "object" && item !== null && typeof (item as { name?: unknown }).name === "string" ? (item as { name: string }).name : "";
      if (name.trim() === "") continue;
      const key = `${repo} ${name}`.toLowerCase();
      const label = this.#labels.get(key) ?? { id: this.#basics.nextId(), name };
      this.#labels.set(key, label);
      if (!names.some((known) => known.toLowerCase() === label.name.toLowerCase())) names.push(label.name);
    }
    return names;
  }

  /** GitHub's label (a label created on first use gets GitHub's default grey). */
  #label(repo: string, name: string): Record<string, unknown> {
    const label = this.#labels.get(`${repo} ${name}`.toLowerCase())!;
    return {
      id: label.id,
      node_id: `LA_standin${label.id}`,
      url: `${this.#basics.baseUrl()}/repos/${repo}/labels/${encodeURIComponent(label.name)}`,
      name: label.name,
      description: null,
      color: "ededed",
      default: false
    };
  }

  /** GitHub's issue, with every required field. */
  #issue(issue: Issue): Record<string, unknown> {
    const base = this.#basics.baseUrl();
    const api = `${base}/repos/${issue.repo}`;
    const self = `${api}/issues/${issue.number}`;
    return {
      id: issue.id,
      node_id: `I_standin${issue.id}`,
      url: self,
      repository_url: api,
      labels_url: `${self}/labels{/name}`,
      comments_url: `${self}/comments`,
      events_url: `${self}/events`,
      html_url: `${base}/${issue.repo}/issues/${issue.number}`,
      timeline_url: `${self}/timeline`,
      number: issue.number,
      state: issue.state,
      // GitHub sends null for an open issue never closed; its description's enum has no null, so the field is left out then.
      ...(issue.stateReason === null ? {} : { state_reason: issue.stateReason }),
      title: issue.title,
      body: issue.body,
      user: this.#accounts.user(issue.user.login, issue.user.type),
      labels: issue.labels.map((name) => this.#label(issue.repo, name)),
      assignee: issue.assignees.length > 0 ? this.#assignee(issue.assignees[0]!) : null,
      assignees: issue.assignees.map((login) => this.#assignee(login)),
      milestone: null,
      locked: false,
      active_lock_reason: null,
      comments: this.#links.commentCount(issue.repo, issue.number),
      closed_at: issue.closedAt,
      closed_by: issue.closedBy ? this.#accounts.user(issue.closedBy.login, issue.closedBy.type) : null,
      created_at: issue.createdAt,
      updated_at: issue.updatedAt,
      author_association: issue.association
    };
  }
}

/** `names` has `name`, without case, as GitHub compares labels and logins. */
function includes(names: string[], name: string): boolean {
  return names.some((known) => known.toLowerCase() === name.toLowerCase());
}

/** A 501 refusal naming the fields of an issue's create or update the stand-in does not model (an empty value, null or [], is taken). */
function unmodelledIssueFields(body: Record<string, unknown>): StandinAnswer | null {
  const fields = UNMODELLED_ISSUE_FIELDS.filter((field) => body[field] !== undefined && body[field] !== null && !(Array.isArray(body[field]) && (body[field] as unknown[]).length === 0));
  if (fields.length === 0) return null;
  return notModelled(`The GitHub stand-in does not model an issue's ${fields.join(", ")}`, ISSUES_DOCS_URL);
}
