/**
 * Repositories as the stand-in answers them: any `owner/name` is one, public
 * with default branch `main` unless a test seeded other settings
 * (`seedRepo`), in GitHub's repository and full-repository shapes.
 */

import type { StandinAccounts } from "./github-standin-accounts";
import type { StandinBasics } from "./github-standin-answers";

/** A repository's settings as a test seeds them (`POST /_standin/repos`, `seedRepo`); an unseeded repository is public with default branch `main`. */
export type RepoSeed = { repo: string; defaultBranch?: string; private?: boolean };

export class StandinRepos {
  readonly #basics: StandinBasics;
  readonly #accounts: Pick<StandinAccounts, "user" | "userId">;
  /** Repository settings a test seeded, by lowercased `owner/name`. */
  readonly #repos = new Map<string, { defaultBranch: string; private: boolean }>();

  constructor(basics: StandinBasics, accounts: Pick<StandinAccounts, "user" | "userId">) {
    this.#basics = basics;
    this.#accounts = accounts;
  }

  /** Sets `repo`'s default branch (`main`) and visibility (public); answers it as `GET /repos/{owner}/{repo}` would. */
  seed(seed: RepoSeed): Record<string, unknown> {
    this.#repos.set(seed.repo.toLowerCase(), { defaultBranch: seed.defaultBranch ?? "main", private: seed.private ?? false });
    return this.fullRepository(seed.repo);
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
      description: null,
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
