/**
 * Repositories as the stand-in answers them: any `owner/name` is one, public
 * with default branch `main` unless a test seeded other settings
 * (`seedRepo`), in GitHub's repository and full-repository shapes. One can
 * also be created (`repos/create-for-authenticated-user`,
 * `repos/create-in-org`), have GitHub Actions turned off, and be deleted,
 * after which every call about it is GitHub's 404 until it is created again.
 */

import type { StandinAccounts } from "./github-standin-accounts";
import { errorAnswer, notFound, notModelled, type StandinAnswer, type StandinBasics, type StandinCall } from "./github-standin-answers";

const REPOS_DOCS_URL = "https://docs.github.com/rest/repos/repos";
/** Fields of a repository's creation the stand-in does not model: taken when empty (absent, null, false), else a 501. */
const UNMODELLED_CREATE_FIELDS = ["auto_init", "gitignore_template", "license_template", "team_id", "is_template", "custom_properties"];
/** A name GitHub takes as it is; GitHub rewrites other characters to `-`, which is not modelled. */
const REPO_NAME = /^[A-Za-z0-9._-]{1,100}$/;

/** A repository's settings as a test seeds them (`POST /_standin/repos`, `seedRepo`); an unseeded repository is public with default branch `main`. */
export type RepoSeed = { repo: string; defaultBranch?: string; private?: boolean };

export class StandinRepos {
  readonly #basics: StandinBasics;
  readonly #accounts: Pick<StandinAccounts, "user" | "userId">;
  /** Repository settings a test seeded or a creation set, by lowercased `owner/name`. */
  readonly #repos = new Map<string, { defaultBranch: string; private: boolean; description?: string | null }>();
  /** Repositories whose GitHub Actions were turned on or off (lowercased). */
  readonly #actions = new Map<string, boolean>();
  /** Deleted repositories (lowercased): every call about one is a 404 until it is created again. */
  readonly #deleted = new Set<string>();

  constructor(basics: StandinBasics, accounts: Pick<StandinAccounts, "user" | "userId">) {
    this.#basics = basics;
    this.#accounts = accounts;
  }

  /** Sets `repo`'s default branch (`main`) and visibility (public); answers it as `GET /repos/{owner}/{repo}` would. */
  seed(seed: RepoSeed): Record<string, unknown> {
    this.#repos.set(seed.repo.toLowerCase(), { defaultBranch: seed.defaultBranch ?? "main", private: seed.private ?? false });
    this.#deleted.delete(seed.repo.toLowerCase());
    return this.fullRepository(seed.repo);
  }

  /** True for a repository deleted over the API and not created (or seeded) since. */
  isDeleted(fullName: string): boolean {
    return this.#deleted.has(fullName.toLowerCase());
  }

  /**
   * `repos/create-for-authenticated-user` (`owner` the user, null for a
   * caller that is not one) or `repos/create-in-org` (`owner` the org): 201
   * and the new repository, empty, private or public as asked, default
   * branch `main`. A name that was created or seeded and not deleted since
   * is GitHub's 422 "name already exists on this account", an answer and
   * not a refusal (a harness resets a repository that way).
   */
  create(call: StandinCall, owner: string | null): StandinAnswer {
    const body = call.body as { name: string; private?: boolean; visibility?: string; description?: string | null } & Record<string, unknown>;
    const docs = `${REPOS_DOCS_URL}#${owner === null || call.operationId === "repos/create-for-authenticated-user" ? "create-a-repository-for-the-authenticated-user" : "create-an-organization-repository"}`;
    if (owner === null) return errorAnswer(403, "Resource not accessible by integration", docs, "repos/create-for-authenticated-user: only a user's token creates a repository for the authenticated user");
    const unmodelled = UNMODELLED_CREATE_FIELDS.find((field) => body[field] !== undefined && body[field] !== null && body[field] !== false && body[field] !== "");
    if (unmodelled) return notModelled(`The GitHub stand-in does not model ${unmodelled} on a new repository`, docs);
    if (body.visibility === "internal") return notModelled("The GitHub stand-in does not model internal repositories", docs);
    if (!REPO_NAME.test(body.name)) return notModelled(`The GitHub stand-in does not model the name ${JSON.stringify(body.name)}: GitHub rewrites it`, docs);
    const fullName = `${owner}/${body.name}`;
    const key = fullName.toLowerCase();
    if (this.#repos.has(key) && !this.#deleted.has(key)) {
      return {
        status: 422,
        body: {
          message: "Repository creation failed.",
          errors: [{ resource: "Repository", code: "custom", field: "name", message: "name already exists on this account" }],
          documentation_url: docs,
          status: "422"
        }
      };
    }
    const isPrivate = body.visibility === undefined ? (body.private ?? false) : body.visibility === "private";
    this.#repos.set(key, { defaultBranch: "main", private: isPrivate, description: body.description ?? null });
    this.#actions.delete(key);
    this.#deleted.delete(key);
    return { status: 201, body: this.fullRepository(fullName), headers: { location: `${this.#basics.baseUrl()}/repos/${fullName}` } };
  }

  /** `repos/delete`: 204, and the repository is gone (its settings too); deleting it again is a 404. */
  delete(call: StandinCall): StandinAnswer {
    const key = `${call.params.owner}/${call.params.repo}`.toLowerCase();
    if (this.#deleted.has(key)) return notFound(`${REPOS_DOCS_URL}#delete-a-repository`);
    this.#repos.delete(key);
    this.#actions.delete(key);
    this.#deleted.add(key);
    return { status: 204 };
  }

  /** `actions/set-github-actions-permissions-repository`: 204, the repository's Actions on or off as asked (`actionsEnabled`). */
  setActions(call: StandinCall): StandinAnswer {
    const body = call.body as { enabled: boolean; allowed_actions?: string };
    if (body.allowed_actions !== undefined) return notModelled("The GitHub stand-in does not model allowed_actions", "https://docs.github.com/rest/actions/permissions");
    this.#actions.set(`${call.params.owner}/${call.params.repo}`.toLowerCase(), body.enabled);
    return { status: 204 };
  }

  /** Whether GitHub Actions runs on the repository: on unless turned off (`setActions`). */
  actionsEnabled(fullName: string): boolean {
    return this.#actions.get(fullName.toLowerCase()) ?? true;
  }

  defaultBranch(repo: string): string {
    return this.#repos.get(repo.toLowerCase())?.defaultBranch ?? "main";
  }

  /** GitHub's repository, with every required field: public with default branch main unless seeded otherwise (`seedRepo`). */
  repository(fullName: string, fork: boolean): Record<string, unknown> {
    const base = this.#basics.baseUrl();
    const settings = this.#repos.get(fullName.toLowerCase());
    const [owner = "", name = ""] = fullName.split("/");
    const api = `${base}/repos/${fullName}`;
    const web = `${base}/${fullName}`;
    return {
      id: this.#accounts.userId(`repo:${fullName}`),
      node_id: `R_standin${this.#accounts.userId(`repo:${fullName}`)}`,
      name,
      full_name: fullName,
      owner: this.#accounts.user(owner, "User"),
      private: settings?.private ?? false,
      html_url: web,
      description: settings?.description ?? null,
      fork,
      url: api,
      archive_url: `${api}/{archive_format}{/ref}`,
      assignees_url: `${api}/assignees{/user}`,
      blobs_url: `${api}/git/blobs{/sha}`,
      branches_url: `${api}/branches{/branch}`,
      collaborators_url: `${api}/collaborators{/collaborator}`,
      comments_url: `${api}/comments{/number}`,
      commits_url: `${api}/commits{/sha}`,
      compare_url: `${api}/compare/{base}...{head}`,
      contents_url: `${api}/contents/{+path}`,
      contributors_url: `${api}/contributors`,
      deployments_url: `${api}/deployments`,
      downloads_url: `${api}/downloads`,
      events_url: `${api}/events`,
      forks_url: `${api}/forks`,
      git_commits_url: `${api}/git/commits{/sha}`,
      git_refs_url: `${api}/git/refs{/sha}`,
      git_tags_url: `${api}/git/tags{/sha}`,
      git_url: `${web.replace(/^https?:/, "git:")}.git`,
      hooks_url: `${api}/hooks`,
      issue_comment_url: `${api}/issues/comments{/number}`,
      issue_events_url: `${api}/issues/events{/number}`,
      issues_url: `${api}/issues{/number}`,
      keys_url: `${api}/keys{/key_id}`,
      labels_url: `${api}/labels{/name}`,
      languages_url: `${api}/languages`,
      merges_url: `${api}/merges`,
      milestones_url: `${api}/milestones{/number}`,
      notifications_url: `${api}/notifications{?since,all,participating}`,
      pulls_url: `${api}/pulls{/number}`,
      releases_url: `${api}/releases{/id}`,
      ssh_url: `git@standin:${fullName}.git`,
      stargazers_url: `${api}/stargazers`,
      statuses_url: `${api}/statuses/{sha}`,
      subscribers_url: `${api}/subscribers`,
      subscription_url: `${api}/subscription`,
      tags_url: `${api}/tags`,
      teams_url: `${api}/teams`,
      trees_url: `${api}/git/trees{/sha}`,
      clone_url: `${web}.git`,
      mirror_url: null,
      svn_url: web,
      homepage: null,
      language: null,
      forks: 0,
      forks_count: 0,
      stargazers_count: 0,
      watchers: 0,
      watchers_count: 0,
      size: 0,
      default_branch: settings?.defaultBranch ?? "main",
      open_issues: 0,
      open_issues_count: 0,
      has_issues: true,
      has_projects: false,
      has_wiki: false,
      has_pages: false,
      has_downloads: false,
      archived: false,
      disabled: false,
      visibility: settings?.private ? "private" : "public",
      license: null,
      pushed_at: "2026-01-01T00:00:00Z",
      created_at: "2026-01-01T00:00:00Z",
      updated_at: "2026-01-01T00:00:00Z"
    };
  }

  /** GitHub's full-repository (`GET /repos/{owner}/{repo}`): the repository and the fields only that answer has. Any repository is answered. */
  fullRepository(fullName: string): Record<string, unknown> {
    return {
      ...this.repository(fullName, false),
      is_template: false,
      topics: [],
      has_discussions: false,
      allow_forking: true,
      web_commit_signoff_required: false,
      network_count: 0,
      subscribers_count: 0
    };
  }
}
