/**
 * What every webhook delivery builder shares (github-delivery.ts and the
 * github-delivery-*.ts beside it): GitHub's time format, the published
 * examples' index read from node_modules (Node only), a user or repository
 * renamed over the example's, and a payload moved to another GitHub's hosts.
 */

export type GitHubUser = { login: string; id: number; type: string; [field: string]: unknown };
export type Definitions = { name: string; examples: { action?: string; installation?: unknown }[] }[];
/** The fields of an example's repository the builders replace; the rest is sent as published. */
export type ExampleRepository = { full_name: string; name: string; owner: GitHubUser; html_url: string; private: boolean; visibility?: string; [field: string]: unknown };

/** GitHub's time format (whole seconds, `Z`) for `at`, by default now. */
export const githubTime = (at: number = Date.now()) => new Date(at).toISOString().replace(/\.\d{3}Z$/, "Z");

/** octocat's account id on github.com. */
export const OCTOCAT_ID = 583231;

let nodeDefinitions: unknown;
/** The examples' index read from node_modules: Node only. */
export function nodeExamples(): unknown {
  if (!nodeDefinitions) {
    const { createRequire } = process.getBuiltinModule("node:module");
    nodeDefinitions = createRequire(import.meta.url)("@octokit/webhooks-examples");
  }
  return nodeDefinitions;
}

/** `payload` as another GitHub writes it: its web and API origins in every URL. */
export function rehosted<T>(payload: T, github: { web: string; api: string }): T {
  const web = github.web.replace(/\/+$/, "");
  const api = github.api.replace(/\/+$/, "");
  const text = JSON.stringify(payload)
    .replaceAll("https://api.github.com", api)
    .replaceAll("https://github.com", web);
  return JSON.parse(text) as T;
}

/** Who wrote a comment, a review or a change, as in CommentDeliveryOptions. */
export type Author = {
  login?: string;
  userId?: number;
  association?: string;
  userType?: string;
  /** When it was made (a review: submitted; default: now). */
  createdAt?: string;
};

/** `login` as GitHub describes a user, over the example's user. */
export function author(exampleUser: GitHubUser, options: Author) {
  const login = options.login ?? "octocat";
  const id = options.userId ?? OCTOCAT_ID;
  return {
    ...renamed(exampleUser, login),
    id,
    node_id: btoa(`04:User${id}`),
    avatar_url: `https://avatars.githubusercontent.com/u/${id}?v=4`,
    type: options.userType ?? (login.endsWith("[bot]") ? "Bot" : "User")
  };
}

/** The example's `user` as `login`: its login and every URL naming it. */
export function renamed<User extends { login: string }>(user: User, login: string): User {
  const from = encodeURIComponent(user.login);
  const to = encodeURIComponent(login);
  const text = JSON.stringify(user).replaceAll(`/users/${from}/`, `/users/${to}/`).replaceAll(`/users/${from}"`, `/users/${to}"`).replaceAll(`https://github.com/${from}"`, `https://github.com/${to}"`);
  return { ...(JSON.parse(text) as User), login };
}

/** GitHub's example repository, renamed to `repo` (`owner/name`) on github.com. */
export function repositoryAs<Repository extends { owner: object }>(example: Repository, repo: string) {
  const [owner = "", name = ""] = repo.split("/");
  return { ...example, name, full_name: repo, html_url: `https://github.com/${repo}`, owner: { ...example.owner, login: owner, ...userUrls(owner) } };
}

export function userUrls(login: string) {
  return { html_url: `https://github.com/${encodeURIComponent(login)}`, url: `https://api.github.com/users/${encodeURIComponent(login)}` };
}
