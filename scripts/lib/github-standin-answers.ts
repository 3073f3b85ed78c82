/**
 * What every part of the GitHub stand-in's state shares: the call it is
 * handed and the answer it gives, GitHub's error answers (404, 422
 * "Validation Failed", a 501 for what the stand-in does not model), pages
 * with GitHub's `Link` header, and the one id sequence and clock it stamps.
 */

/**
 * Who a request is from. No token (or an empty one), the App's JWT and an
 * installation token act as the App's bot; a user's token (`ghp_`,
 * `github_pat_`, `gho_`, `ghu_`) as the user `login`.
 */
export type StandinCaller = { kind: "anonymous" } | { kind: "app" } | { kind: "installation" } | { kind: "user"; login: string };

export type StandinCall = {
  operationId: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
  /** The path asked, without the query (for `Link` headers). */
  path: string;
  /** The request's `Accept` header (the contents API answers raw text for GitHub's raw media type). */
  accept?: string;
  /** Who is calling, from the Authorization header (github-standin.ts); the App's bot when absent. */
  caller?: StandinCaller;
  /** The bearer token itself, for the one operation that acts on it: revoking it (`DELETE /installation/token`). */
  token?: string;
};

/** A comment a user posted: what GitHub's `issue_comment.created` delivery names (github-standin.ts sends it). */
export type CommentEvent = {
  repo: string;
  issueNumber: number;
  /** The issue's title when the stand-in has it (a created issue, a seeded pull request). */
  issueTitle?: string;
  /** The number is a seeded pull request's: a comment on its conversation. */
  pullRequest: boolean;
  commentId: number;
  body: string;
  login: string;
  userId: number;
  userType: "User" | "Bot";
  association: string;
  createdAt: string;
};

/** A user's change to an issue that GitHub delivers as an `issues` webhook: the App's bot or anyone assigned or unassigned, a label added or removed. */
export type IssueEvent = {
  action: "assigned" | "unassigned" | "labeled" | "unlabeled";
  repo: string;
  issueNumber: number;
  /** The issue after the change, as `issues/get` answers it (the payload's `issue`). */
  issue: Record<string, unknown>;
  /** The assignee added or removed (assigned, unassigned), as GitHub's simple-user. */
  assignee?: Record<string, unknown>;
  /** The label added or removed (labeled, unlabeled), as GitHub's label. */
  label?: Record<string, unknown>;
  /** Who made the change, as GitHub's simple-user. */
  sender: Record<string, unknown>;
};

/** `body` is sent as JSON; `raw`, when set, as the text it is (with `headers`' content-type). */
export type StandinAnswer = {
  status: number;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  refusal?: string;
  /** A user's new comment, for the webhook delivery sent after the answer. */
  comment?: CommentEvent;
  /** A user's changes to an issue, one `issues` delivery each, sent after the answer. */
  issueEvents?: IssueEvent[];
};

/** Where the stand-in listens, its one id sequence and its clock: what every part stamps its answers with. */
export type StandinBasics = {
  /** Where the stand-in listens (known once it does), for the URLs in its answers. */
  baseUrl: () => string;
  /** The next id of anything created: comments, reactions, issues, labels, pull requests and tokens draw from one sequence. */
  nextId: () => number;
  /** Now, as GitHub's timestamps spell it. */
  iso: () => string;
};

export function standinBasics(baseUrl: () => string, now: () => number): StandinBasics {
  let next = 1000;
  return { baseUrl, nextId: () => next++, iso: () => new Date(now()).toISOString() };
}

/** GitHub's limit on an issue comment's body, in characters (an issue's and a pull request's body too). */
export const MAX_COMMENT_CHARS = 65_536;
const DEFAULT_PER_PAGE = 30;
const MAX_PER_PAGE = 100;

/** True for a body over GitHub's limit, counted in characters, not UTF-16 units. */
export function isTooLong(text: string): boolean {
  return [...text].length > MAX_COMMENT_CHARS;
}

/** The key of issue or pull request `number` of `repo`: the two share a repository's numbers, and its name is case-insensitive. */
export function numberKey(repo: string, number: number): string {
  return `${repo}#${number}`.toLowerCase();
}

/** Deletes the entries of `map` whose `numberKey` is under `repo`: a repository created again starts with none. */
export function forgetRepository(map: Map<string, unknown>, repo: string): void {
  const prefix = `${repo}#`.toLowerCase();
  for (const key of [...map.keys()]) if (key.startsWith(prefix)) map.delete(key);
}

/** GitHub's error answer `{ message, documentation_url, status }`; recorded as a refusal when `refusal` is given. */
export function errorAnswer(status: number, message: string, documentationUrl: string, refusal?: string): StandinAnswer {
  return { status, ...(refusal === undefined ? {} : { refusal }), body: { message, documentation_url: documentationUrl, status: String(status) } };
}

/** GitHub's 404 for a resource it does not have (or will not show). */
export function notFound(documentationUrl: string): StandinAnswer {
  return errorAnswer(404, "Not Found", documentationUrl);
}

/** A 501 refusal: a valid call, or part of one, the stand-in does not model. */
export function notModelled(message: string, documentationUrl: string): StandinAnswer {
  return errorAnswer(501, message, documentationUrl, message);
}

/** GitHub's 401 for `operation` asked with no token, recorded as a refusal. */
export function requiresAuthentication(operation: string, documentationUrl: string): StandinAnswer {
  const message = "Requires authentication";
  return errorAnswer(401, message, documentationUrl, `${operation}: ${message} (no token)`);
}

/** One error of GitHub's "Validation Failed": GitHub leaves out `field` or `message` where it has none ("A pull request already exists" names no field). */
type ValidationError = { resource: string; code: string; field?: string; message?: string };

/** GitHub's 422 "Validation Failed" with `error` as GitHub words it; the refusal recorded says why in `refusal`, else the error's message. */
export function validationError(error: ValidationError, documentationUrl: string, refusal?: string): StandinAnswer {
  return {
    status: 422,
    refusal: refusal ?? error.message ?? "Validation Failed",
    body: { message: "Validation Failed", errors: [error], documentation_url: documentationUrl, status: "422" }
  };
}

/** GitHub's 422 "Validation Failed" for a request its description allows and GitHub does not. */
export function validationFailed(resource: string, code: string, field: string, message: string, documentationUrl: string): StandinAnswer {
  return validationError({ resource, code, field, message }, documentationUrl);
}

/** GitHub's 422 for a `resource`'s body over MAX_COMMENT_CHARS. */
export function bodyTooLong(resource: string, documentationUrl: string): StandinAnswer {
  return validationFailed(resource, "custom", "body", `body is too long (maximum is ${MAX_COMMENT_CHARS} characters)`, documentationUrl);
}

/** `all`, paged by `per_page` (30, at most 100) and `page`, each item of the page in `shape`, with GitHub's `Link` header. */
export function pageOf<T>(call: StandinCall, all: T[], baseUrl: string, shape: (item: T) => unknown = (item) => item): StandinAnswer {
  const perPage = Math.min(Math.max(Number(call.query.get("per_page") ?? DEFAULT_PER_PAGE), 1), MAX_PER_PAGE);
  const page = Math.max(Number(call.query.get("page") ?? 1), 1);
  const lastPage = Math.max(Math.ceil(all.length / perPage), 1);
  const body = all.slice((page - 1) * perPage, page * perPage).map(shape);
  const link = linkHeader(`${baseUrl}${call.path}`, call.query, page, lastPage);
  return { status: 200, body, ...(link ? { headers: { link } } : {}) };
}

/** GitHub's pagination header: first/prev when past page 1, next/last when before the last page. */
export function linkHeader(url: string, query: URLSearchParams, page: number, lastPage: number): string | null {
  const to = (target: number, rel: string) => {
    const params = new URLSearchParams(query);
    params.set("page", String(target));
    return `<${url}?${params.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(to(page - 1, "prev"));
  if (page < lastPage) links.push(to(page + 1, "next"), to(lastPage, "last"));
  if (page > 1) links.push(to(1, "first"));
  return links.length > 0 ? links.join(", ") : null;
}
