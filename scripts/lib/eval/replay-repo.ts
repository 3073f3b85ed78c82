/**
 * The GitHub target's replay repositories: for each case, the harness
 * creates `<owner>/agent-think-eval-<case id>` (private, GitHub Actions
 * off), pushes the case's pinned commit from its source repository as
 * `main` with the tags it holds, and deletes the repository after the case.
 * One left over from an earlier run is deleted and created again, but only
 * when its description says the harness made it. `guardReplays` refuses,
 * before it is sent, any request about another repository. docs/eval.md,
 * "--target github".
 */
import type { Octokit } from "@octokit/rest";
import type { EvalCase } from "./case";
import { pickModelOnGitHub } from "./pick-model";
import { isReplayName, REPLAY_DESCRIPTION, replayDescription, replayRepo } from "./replay";
import type { ReplayGit } from "./replay-git";

export type ReplayReposOptions = {
  octokit: Octokit;
  /** The account or organization the repositories are created under. */
  owner: string;
  /** The token git pushes with (the harness's GITHUB_TOKEN). */
  token: string;
  git: ReplayGit;
  /** Where a replay repository is pushed to: its `clone_url` unless this says otherwise (an offline run, whose GitHub stand-in has no git server). */
  pushUrl?: (repo: string, cloneUrl: string) => Promise<string> | string;
  log?: (line: string) => void;
};

/** A case's repository, set up: its name and the commit pushed. */
export type Replay = { repo: string; sha: string };

export class ReplayRepos {
  readonly #options: ReplayReposOptions;
  #login: Promise<string> | undefined;

  constructor(options: ReplayReposOptions) {
    this.#options = options;
  }

  /**
   * Creates (or resets) the case's repository at its pinned commit; with
   * `model`, its `.github/agent-think.yml` names it. Whatever fails after the
   * repository exists deletes it again before the error is thrown.
   */
  async setUp(evalCase: EvalCase, model?: string): Promise<Replay> {
    const { git, octokit } = this.#options;
    const repo = replayRepo(this.#options.owner, evalCase.id);
    // The source first: a ref that does not resolve writes nothing.
    const pinned = await git.pin(evalCase.repo, evalCase.ref);
    const created = await this.#create(evalCase.id);
    try {
      const [owner, name] = repo.split("/") as [string, string];
      // A pushed workflow would run on the operator's minutes, and a push with one needs the workflow scope only: Actions stay off.
      await octokit.rest.actions.setGithubActionsPermissionsRepository({ owner, repo: name, enabled: false });
      const remote = this.#options.pushUrl ? await this.#options.pushUrl(repo, created.cloneUrl) : created.cloneUrl;
      await git.push(evalCase.repo, pinned, remote, this.#options.token);
      if (model !== undefined) await pickModelOnGitHub(octokit, repo, model);
    } catch (error) {
      await this.tearDown(repo).catch((failure: Error) => this.#options.log?.(`! could not delete ${repo} after its set-up failed: ${failure.message}`));
      throw error;
    }
    this.#options.log?.(`  ${evalCase.id}: ${repo} at ${pinned.sha.slice(0, 12)} (${evalCase.repo}${evalCase.ref ? ` ${evalCase.ref}` : ""})`);
    return { repo, sha: pinned.sha };
  }

  /** Deletes a replay repository (the case's issue goes with it). */
  async tearDown(repo: string): Promise<void> {
    const [owner, name] = repo.split("/") as [string, string];
    await this.#options.octokit.rest.repos.delete({ owner, repo: name });
  }

  /** The repository, empty; one an earlier run left is deleted first, if its description says the harness made it. */
  async #create(caseId: string): Promise<{ cloneUrl: string }> {
    const { octokit, owner } = this.#options;
    const name = replayRepo(owner, caseId).split("/")[1]!;
    const fields = { name, description: replayDescription(caseId), private: true, has_wiki: false, has_projects: false, auto_init: false };
    const forUser = (await this.#authenticatedLogin()).toLowerCase() === owner.toLowerCase();
    const create = async () =>
      forUser ? (await octokit.rest.repos.createForAuthenticatedUser(fields)).data : (await octokit.rest.repos.createInOrg({ org: owner, ...fields })).data;
    try {
      return { cloneUrl: (await create()).clone_url };
    } catch (error) {
      if (!nameTaken(error)) throw error;
    }
    const { data: existing } = await octokit.rest.repos.get({ owner, repo: name });
    if (!existing.description?.startsWith(REPLAY_DESCRIPTION)) {
      throw new Error(`${owner}/${name} exists and its description does not say the eval harness made it: the harness will not delete it (rename or delete it yourself)`);
    }
    this.#options.log?.(`  ${caseId}: ${owner}/${name} was left by an earlier run; deleting it to start afresh`);
    await this.tearDown(`${owner}/${name}`);
    return { cloneUrl: (await create()).clone_url };
  }

  #authenticatedLogin(): Promise<string> {
    this.#login ??= this.#options.octokit.rest.users.getAuthenticated().then(({ data }) => data.login);
    return this.#login;
  }
}

/** GitHub's 422 for a name the account already has. */
function nameTaken(error: unknown): boolean {
  const failure = error as { status?: number; response?: { data?: { errors?: Array<{ field?: string; message?: string }> } } };
  return failure.status === 422 && (failure.response?.data?.errors ?? []).some((entry) => entry.field === "name" && /already exists/i.test(entry.message ?? ""));
}

/**
 * Refuses, before it is sent, any request but these: about a replay
 * repository under `owner` (`/repos/<owner>/agent-think-eval-…`, itself
 * and anything under it), creating one there (`POST /user/repos` or `POST
 * /orgs/<owner>/repos` with such a name), and `GET /user` (whether `owner`
 * is the token's own account). A page `paginate` follows is a whole URL:
 * the same rule on its normalised path, on the API's own origin.
 */
export function guardReplays(octokit: Octokit, owner: string): void {
  const who = owner.toLowerCase();
  octokit.hook.before("request", (options) => {
    const route = String(options.url);
    const method = String(options.method).toUpperCase();
    if (!allowed(route, method, options, who)) {
      const about = /^https?:/.test(route) ? route : `${String(options.owner ?? options.org ?? "")}/${String(options.repo ?? options.name ?? "")}`;
      throw new Error(`the eval harness refused ${method} ${route} (${about}): it works only on ${owner}'s ${replayRepo(owner, "…").split("/")[1]} repositories`);
    }
  });
}

function allowed(route: string, method: string, options: Record<string, unknown>, owner: string): boolean {
  const lower = (value: unknown) => String(value ?? "").toLowerCase();
  if (route === "/repos/{owner}/{repo}" || route.startsWith("/repos/{owner}/{repo}/")) return lower(options.owner) === owner && isReplayName(lower(options.repo)) && !lower(options.repo).includes("..");
  if (route === "/user") return method === "GET";
  if (route === "/user/repos") return method === "POST" && isReplayName(lower(options.name));
  if (route === "/orgs/{org}/repos") return method === "POST" && lower(options.org) === owner && isReplayName(lower(options.name));
  if (!/^https?:\/\//.test(route)) return false;
  const url = new URL(route);
  const api = new URL(String(options.baseUrl));
  const base = api.pathname.replace(/\/+$/, "");
  const match = new RegExp(`^${escape(base)}/repos/([^/]+)/([^/]+)(?:/|$)`).exec(url.pathname.toLowerCase());
  return url.origin === api.origin && match !== null && match[1] === owner && isReplayName(match[2]!);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
