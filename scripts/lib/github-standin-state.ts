/**
 * What the local GitHub stand-in remembers and answers, per operation of GitHub's description,
 * for the calls agent-think makes. This module wires the parts, each modelling one thing
 * (docs/github-standin.md lists them): accounts and roles, the App and its tokens, repositories,
 * their files, issues with their labels and assignees, comments, reactions, pull requests, CI
 * runs, and branches with their rules and the commits made through GraphQL. `answer()` routes
 * each REST operation to its part, `graphql()` the GraphQL endpoint, and the seeding and fault
 * methods github-standin.ts offers reach the parts here. Used by github-standin.ts, which has
 * already matched and validated the request against the description; the parts trust its
 * parameters.
 */

import { StandinAccounts, type RoleName } from "./github-standin-accounts";
import { notFound, standinBasics, type StandinAnswer, type StandinCall, type StandinCaller } from "./github-standin-answers";
import { StandinApp } from "./github-standin-app";
import { StandinBranches, type ApiCommit, type BranchSeed, type GitSeed, type RulesSeed } from "./github-standin-branches";
import { answerGraphql, type GraphqlAnswer } from "./github-standin-graphql";
import { StandinChecks, type CiRunSeed, type SeededCiRun } from "./github-standin-checks";
import type { CiDeliveryOptions, CiEventName } from "./github-delivery";
import { StandinComments } from "./github-standin-comments";
import { StandinContents, type FileSeed } from "./github-standin-contents";
import { StandinIssues } from "./github-standin-issues";
import { StandinPulls, type PullSeed } from "./github-standin-pulls";
import { StandinReactions } from "./github-standin-reactions";
import { StandinRepos, type RepoSeed } from "./github-standin-repos";

export { ROLE_NAMES, STANDIN_BOT_USER_ID, type RoleName } from "./github-standin-accounts";
export { linkHeader, MAX_COMMENT_CHARS, type CommentEvent, type IssueEvent, type StandinAnswer, type StandinCall, type StandinCaller } from "./github-standin-answers";
export { STANDIN_APP_ID } from "./github-standin-app";
export type { FileSeed } from "./github-standin-contents";
export type { PullSeed } from "./github-standin-pulls";
export type { CiRunSeed, SeededCiRun } from "./github-standin-checks";
export type { RepoSeed } from "./github-standin-repos";
export type { ApiCommit, BranchSeed, GitSeed, RulesSeed } from "./github-standin-branches";

export type StandinStateOptions = {
  /** Where the stand-in listens (known once it does), for the URLs in its answers. */
  baseUrl: () => string;
  botLogin: string;
  /** Role per login, case-insensitive; everyone else has `defaultRole`. */
  permissions: Record<string, RoleName>;
  defaultRole: RoleName;
  tokenLifetimeMs: number;
  now: () => number;
};

export class GitHubStandinState {
  readonly #accounts: StandinAccounts;
  readonly #app: StandinApp;
  readonly #repos: StandinRepos;
  readonly #contents: StandinContents;
  readonly #issues: StandinIssues;
  readonly #comments: StandinComments;
  readonly #reactions: StandinReactions;
  readonly #pulls: StandinPulls;
  readonly #checks: StandinChecks;
  readonly #branches: StandinBranches;
  readonly #botLogin: string;
  /** The number a repository's next issue or pull request takes at least (`numberFrom`), by lowercased `owner/name`. */
  readonly #numbersFrom = new Map<string, number>();

  constructor(options: StandinStateOptions) {
    const basics = standinBasics(options.baseUrl, options.now);
    const nextNumber = (repo: string) => this.#nextNumber(repo);
    this.#accounts = new StandinAccounts(options);
    this.#app = new StandinApp(basics, this.#accounts, options);
    this.#repos = new StandinRepos(basics, this.#accounts);
    this.#contents = new StandinContents(basics);
    this.#issues = new StandinIssues(basics, this.#accounts, {
      nextNumber,
      commentCount: (repo, number) => this.#comments.count(repo, number),
      pull: (repo, number) => this.#pulls.asIssue(repo, number)
    });
    this.#pulls = new StandinPulls(basics, this.#accounts, this.#repos, nextNumber);
    this.#comments = new StandinComments(basics, this.#accounts, this.#issues, this.#pulls);
    this.#reactions = new StandinReactions(basics, this.#accounts);
    this.#botLogin = options.botLogin;
    this.#branches = new StandinBranches(basics, {
      defaultBranch: (repo) => this.#repos.defaultBranch(repo),
      author: (login) => ({ name: login, email: `${this.#accounts.userId(login)}+${login}@users.noreply.github.com` })
    });
    this.#checks = new StandinChecks(basics, {
      repositoryId: (repo) => Number(this.#repos.fullRepository(repo).id),
      pullsOnHead: (repo, ref, sha) => this.#pulls.onHead(repo, ref, sha)
    });
  }

  /** The answer to a valid request; null when the stand-in does not implement the operation. */
  answer(call: StandinCall): StandinAnswer | null {
    // A deleted repository is gone: whatever is asked about it, GitHub answers 404.
    const { owner, repo } = call.params;
    if (owner !== undefined && repo !== undefined && this.#repos.isDeleted(`${owner}/${repo}`)) return notFound("https://docs.github.com/rest/repos/repos#get-a-repository");
    switch (call.operationId) {
      case "reactions/create-for-issue-comment":
        return this.#reactions.react(call, "issue-comment");
      case "reactions/create-for-pull-request-review-comment":
        return this.#reactions.react(call, "review-comment");
      case "reactions/create-for-issue":
        return this.#reactions.react(call, "issue");
      case "reactions/list-for-issue-comment":
        return this.#reactions.list(call);
      case "pulls/get":
        return this.#pulls.get(call);
      case "pulls/list":
        return this.#pulls.list(call);
      case "pulls/create":
        return this.#pulls.create(call);
      case "pulls/update":
        return this.#pulls.update(call);
      case "repos/get":
        return { status: 200, body: this.#repos.fullRepository(`${call.params.owner}/${call.params.repo}`) };
      case "repos/create-for-authenticated-user":
        return this.#createRepository(call, call.caller?.kind === "user" ? call.caller.login : null);
      case "repos/create-in-org":
        return this.#createRepository(call, call.params.org!);
      case "repos/delete":
        return this.#repos.delete(call);
      case "actions/set-github-actions-permissions-repository":
        return this.#repos.setActions(call);
      case "repos/get-content":
        return this.#contents.get(call);
      case "issues/create":
        return this.#issues.create(call);
      case "issues/get":
        return this.#issues.get(call);
      case "issues/update":
        return this.#issues.update(call);
      case "issues/list-labels-on-issue":
        return this.#issues.listLabels(call);
      case "issues/add-labels":
        return this.#issues.addLabels(call);
      case "issues/remove-label":
        return this.#issues.removeLabel(call);
      case "issues/add-assignees":
        return this.#issues.addAssignees(call);
      case "issues/remove-assignees":
        return this.#issues.removeAssignees(call);
      case "issues/create-comment":
        return this.#comments.post(call);
      case "issues/list-comments":
        return this.#comments.list(call);
      case "issues/update-comment":
        return this.#comments.update(call);
      case "users/get-authenticated":
        return this.#accounts.authenticatedUser(call.caller ?? { kind: "anonymous" });
      case "users/get-by-username":
        return { status: 200, body: this.#accounts.publicUser(call.params.username!) };
      case "repos/get-collaborator-permission-level":
        return this.#accounts.permission(call.params.username!);
      case "apps/get-authenticated":
        return { status: 200, body: this.#app.app() };
      case "apps/get-repo-installation":
        return { status: 200, body: this.#app.installation(call.params.owner!) };
      case "apps/create-installation-access-token":
        return this.#app.mint(call);
      case "apps/revoke-installation-access-token":
        return this.#app.revoke(call);
      case "checks/list-for-suite":
        return this.#checks.checkRuns(call);
      case "actions/list-jobs-for-workflow-run":
        return this.#checks.jobs(call);
      case "actions/download-job-logs-for-workflow-run":
        return this.#checks.logs(call);
      case "repos/get-branch-rules":
        return this.#branches.rules(call);
      case "git/create-ref":
        return this.#branches.createRef(call);
      default:
        return null;
    }
  }

  setRole(login: string, role: RoleName): void {
    this.#accounts.setRole(login, role);
  }

  /** True for a token minted here whose lifetime is over, or one marked expired. */
  isExpired(token: string): boolean {
    return this.#app.isExpired(token);
  }

  /** True for a token revoked over the API (`DELETE /installation/token`). */
  isRevoked(token: string): boolean {
    return this.#app.isRevoked(token);
  }

  /** The tokens revoked so far, in the order they were revoked. */
  revoked(): string[] {
    return this.#app.revoked();
  }

  /** Marks `token` expired, or every token minted so far. */
  expire(token?: string): void {
    this.#app.expire(token);
  }

  /** A GraphQL request (`POST /graphql`) by `caller`: judged against GitHub's schema, then answered (github-standin-graphql.ts). */
  graphql(body: unknown, caller: StandinCaller | undefined): GraphqlAnswer {
    const login = caller?.kind === "user" ? caller.login : this.#botLogin;
    return answerGraphql(body, { branches: this.#branches, login });
  }

  /** Sets a branch's head (in a repository with no git directory). */
  seedBranch(seed: BranchSeed): void {
    this.#branches.seedBranch(seed);
  }

  /** Adds rules that apply to some (or every) branch of a repository, as a ruleset's. */
  seedRules(seed: RulesSeed): void {
    this.#branches.seedRules(seed);
  }

  /** Puts a bare git repository behind a repository's branches: its refs are the heads, and API commits are made in it. */
  seedGit(seed: GitSeed): void {
    this.#branches.seedGit(seed);
  }

  /** The commits made through `createCommitOnBranch`, oldest first. */
  apiCommits(): ApiCommit[] {
    return this.#branches.apiCommits();
  }

  /** Forgets issues, created pull requests, labels, comments, reactions and API commits: what was posted (roles, tokens, revocations and seeded repositories, pull requests, files, branches and rules stay). */
  clear(): void {
    this.#branches.clear();
    this.#pulls.clear();
    this.#comments.clear();
    this.#reactions.clear();
    this.#issues.clear();
  }

  /** Adds or replaces pull request `number` of `repo`; answers it as `GET .../pulls/{number}` would. */
  seedPull(seed: PullSeed): Record<string, unknown> {
    return this.#pulls.seed(seed);
  }

  /** Sets `repo`'s default branch (`main`) and visibility (public); answers it as `GET /repos/{owner}/{repo}` would. */
  seedRepo(seed: RepoSeed): Record<string, unknown> {
    return this.#repos.seed(seed);
  }

  /** Adds a run of GitHub Actions on a commit: a check suite and a workflow run, its jobs their check runs (github-standin-checks.ts). */
  seedCiRun(seed: CiRunSeed): SeededCiRun {
    return this.#checks.seed(seed);
  }

  /** What a `<event>.completed` delivery for a seeded run carries; undefined for an unknown id. */
  ciDelivery(event: CiEventName, id: number): Omit<CiDeliveryOptions, "event"> | undefined {
    return this.#checks.delivery(event, id);
  }

  /** A seeded job's log, as its download address serves it; undefined for an unknown job. */
  jobLog(jobId: number): string | undefined {
    return this.#checks.logText(jobId);
  }

  /** Adds or replaces a file of `repo` at `path` (on `ref`, or on every ref). */
  seedFile(seed: FileSeed): void {
    this.#contents.seed(seed);
  }

  /** Whether GitHub Actions runs on `repo`: on unless turned off over the API. */
  actionsEnabled(repo: string): boolean {
    return this.#repos.actionsEnabled(repo);
  }

  /** `repo`'s next issue or pull request is numbered `from` at least (a harness keeps its issues apart from earlier runs'). */
  numberFrom(repo: string, from: number): void {
    this.#numbersFrom.set(repo.toLowerCase(), from);
  }

  /** A new repository is empty: what an earlier one of the same name had (issues, comments, labels, pull requests) is forgotten. */
  #createRepository(call: StandinCall, owner: string | null): StandinAnswer {
    const answer = this.#repos.create(call, owner);
    if (answer.status === 201) {
      const fullName = String((answer.body as { full_name: string }).full_name);
      this.#issues.forget(fullName);
      this.#comments.forget(fullName);
      this.#pulls.forget(fullName);
    }
    return answer;
  }

  /** The next number of `repo`'s issues and pull requests, which share them: past every one created or seeded, and `numberFrom`'s at least. */
  #nextNumber(repo: string): number {
    let number = this.#numbersFrom.get(repo.toLowerCase()) ?? 1;
    while (this.#issues.find(repo, number) !== undefined || this.#pulls.find(repo, number) !== undefined) number++;
    return number;
  }
}
