/**
 * GitHub as MSW plays it for the reporting tests: reactions on issue
 * comments, comments on issues (posted as the App's bot, and listed as GitHub
 * lists them: ascending ids, `since`, `per_page` pages with a `Link` header),
 * each call recorded with its Authorization header and time. A comment over
 * GitHub's 65,536 characters is refused with GitHub's 422. A test can make
 * the next calls fail (with headers, such as Retry-After), make GitHub take a
 * comment and lose the answer, as a timeout or an eviction mid-call would,
 * or put other people's comments on an issue. Before any of that, GitHub's
 * REST description judges each call (github-spec.ts): one GitHub would
 * refuse (an unknown path, a reaction `content` it does not have, a comment
 * without `body`) gets GitHub's 404 or 422 and is listed in `refusals`, and
 * a valid call this fake does not model gets 501. Files (`addFile`, read
 * with the raw media type, 404 when absent) and open pull requests
 * (`addPull`, listed by `head`) and an issue (`setIssue`, `setIssueBody`;
 * the issue 404 until set, its `comments` the count of its comments here)
 * are what a run reads before its model starts.
 * The repository (its default branch is `main`), opening a pull request
 * (as the App's bot, 422 when its head has one open already) and updating
 * one are what `open_pull_request` asks; `DELETE /installation/token` is a
 * revocation (204, recorded with the token it revoked in `revoked`). A
 * comment can be edited (`PATCH …/issues/comments/:id`, the progress
 * comment; 404 for one it does not hold), and a pull request review comment
 * reacted on (`POST …/pulls/comments/:id/reactions`). Any issue's labels are
 * listed, added (created on first use, as GitHub does) and removed (404 for
 * one the issue does not have): the outcome's label (`labels`, `setLabels`).
 * A branch's rules are none unless a test gives some (`addRules`): a run
 * asks for them to learn whether its commits must be signed.
 */
import { http, HttpResponse, type RequestHandler } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { TEST_GITHUB_API_URL } from "../worker";
import { GitHubSpec, type JudgedRequest, type SpecRefusal } from "./github-spec";

export type GitHubCall = { method: string; path: string; auth: string | null; body: Record<string, unknown> | undefined };
type User = { login: string; type: "Bot" | "User" };
type Comment = {
  id: number;
  body: string;
  html_url: string;
  created_at: string;
  updated_at: string;
  user: User;
  performed_via_github_app: null;
};
type Failure = { status: number; headers?: Record<string, string> };
/** An issue (or a pull request's conversation) as a run reads it. */
type Issue = { title: string; body: string | null; state: "open" | "closed"; labels: string[]; user: User };
type Pull = { repo: string; number: number; head: string; user: User; state: "open" | "closed"; base?: string; title?: string; body?: string; draft?: boolean };

/** Who the App's comments are by: the local-dev default bot (src/run/bot-identity.ts), which a run dispatched without `bot` uses. */
export const TEST_BOT: User = { login: "agent-think[bot]", type: "Bot" };
/** GitHub's limit on a comment body. */
const MAX_COMMENT_CHARS = 65_536;
const DEFAULT_PER_PAGE = 30;
const MAX_PER_PAGE = 100;

export class FakeGitHub {
  readonly calls: GitHubCall[] = [];
  /** GitHub's REST description judges every call before it is answered (github-spec.ts). */
  readonly spec = new GitHubSpec(TEST_GITHUB_API_URL);
  /** When each call arrived (epoch ms). */
  readonly arrivedAt = new WeakMap<GitHubCall, number>();
  /** Each call's query parameters (e.g. `page`), kept beside the call so its recorded shape stays the same. */
  readonly queryOf = new WeakMap<GitHubCall, URLSearchParams>();
  readonly #comments = new Map<string, Comment[]>();
  readonly #files = new Map<string, string>();
  readonly #pulls: Pull[] = [];
  readonly #issues = new Map<string, Issue>();
  /** Rules per branch (`owner/repo branch`, the repository in lower case), as `GET …/rules/branches/{branch}` answers them. */
  readonly #rules = new Map<string, Array<Record<string, unknown>>>();
  /** Each issue's label names, by `owner/repo#n` in lower case: any issue number has them, as comments do here. */
  readonly #labels = new Map<string, string[]>();
  #nextId = 5000;
  /** Failures to answer, in order, for the matching calls: a status (with headers), or "lost" (taken, then the answer is lost). */
  readonly #failures: Array<{ match: (call: GitHubCall) => boolean; failure: Failure | "lost" }> = [];

  failNext(match: (call: GitHubCall) => boolean, status: number | "lost", headers?: Record<string, string>): void {
    this.#failures.push({ match, failure: status === "lost" ? "lost" : { status, ...(headers ? { headers } : {}) } });
  }

  /** Comments by `user` on an issue, as if posted there now. */
  addComments(repo: string, issueNumber: number, bodies: string[], user: User = { login: "octocat", type: "User" }): void {
    const [owner, name] = repo.split("/") as [string, string];
    for (const body of bodies) this.#store(owner, name, issueNumber, body, user);
  }

  #store(owner: string, repo: string, issueNumber: number | string, body: string, user: User): Comment {
    const key = `${owner}/${repo}#${issueNumber}`.toLowerCase();
    const id = this.#nextId++;
    const now = new Date().toISOString();
    const comment: Comment = {
      id,
      body,
      html_url: `https://github.test/${owner}/${repo}/issues/${issueNumber}#issuecomment-${id}`,
      created_at: now,
      updated_at: now,
      user,
      performed_via_github_app: null
    };
    this.#comments.set(key, [...(this.#comments.get(key) ?? []), comment]);
    return comment;
  }

  /** A file of `repo` at `ref` (any ref when none is given), as GitHub's contents API serves it. */
  addFile(repo: string, path: string, text: string, ref = ""): void {
    this.#files.set(`${repo.toLowerCase()}@${ref}:${path}`, text);
  }

  /** The issue GitHub answers for `repo#issueNumber` from now on (an open issue by octocat titled "an issue", unless given). */
  setIssue(repo: string, issueNumber: number, issue: Partial<Issue> = {}): void {
    const set: Issue = { title: "an issue", body: null, state: "open", labels: [], user: { login: "octocat", type: "User" }, ...issue };
    this.#issues.set(`${repo.toLowerCase()}#${issueNumber}`, set);
    this.setLabels(repo, issueNumber, set.labels);
  }

  /** The rules that apply to `branch` of `repo` from now on, as a ruleset's (`{ type: "required_signatures" }`). */
  addRules(repo: string, branch: string, rules: Array<{ type: string }>): void {
    this.#rules.set(`${repo.toLowerCase()} ${branch}`, rules.map((rule, index) => ({ ...rule, ruleset_source_type: "Repository", ruleset_source: repo, ruleset_id: index + 1 })));
  }

  /** The labels `repo#issueNumber` has from now on (an earlier run's outcome label, say). */
  setLabels(repo: string, issueNumber: number, labels: string[]): void {
    this.#labels.set(`${repo}#${issueNumber}`.toLowerCase(), [...labels]);
  }

  /** The labels `repo#issueNumber` has, in the order they were added. */
  labels(repo: string, issueNumber: number): string[] {
    return [...(this.#labels.get(`${repo}#${issueNumber}`.toLowerCase()) ?? [])];
  }

  /** The body GitHub answers for `repo#issueNumber` from now on. */
  setIssueBody(repo: string, issueNumber: number, body: string | null): void {
    this.setIssue(repo, issueNumber, { body });
  }

  /** Tokens revoked with `DELETE /installation/token`, in order. */
  readonly revoked: string[] = [];

  /** The pull requests of `repo`, as this fake holds them (opened or updated by the App too). */
  pulls(repo: string): Pull[] {
    return this.#pulls.filter((pull) => pull.repo === repo.toLowerCase());
  }

  /** A pull request of `repo` whose head is `head` (a branch of `repo`), by `user`. */
  addPull(repo: string, number: number, head: string, user: User = TEST_BOT, state: Pull["state"] = "open"): void {
    this.#pulls.push({ repo: repo.toLowerCase(), number, head, user, state });
  }

  #file(repo: string, path: string, ref: string): string | undefined {
    return this.#files.get(`${repo.toLowerCase()}@${ref}:${path}`) ?? this.#files.get(`${repo.toLowerCase()}@:${path}`);
  }

  /**
   * The run's closing comment on `repo#issueNumber` (its marker ends `:closing`), once posted; `nth` (from 1) for a
   * later run's. Throws after 20 s without one: a hang, however loaded the machine (test/helpers.ts's HANG_MS).
   */
  async closingComment(repo: string, issueNumber: number, nth = 1): Promise<string> {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const comment = this.comments(repo, issueNumber).filter((candidate) => candidate.body.includes(":closing"))[nth - 1];
      if (comment) return comment.body;
      if (Date.now() > deadline) throw new Error(`no closing comment on ${repo}#${issueNumber}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  comments(repo: string, issueNumber: number): Comment[] {
    return this.#comments.get(`${repo}#${issueNumber}`.toLowerCase()) ?? [];
  }

  /** The calls GitHub's description refused (each was answered as GitHub would): empty when everything sent was valid. */
  get refusals(): SpecRefusal[] {
    return this.spec.refusals;
  }

  /** Calls for one repository, so tests sharing the runtime keep apart. */
  callsFor(repo: string): GitHubCall[] {
    return this.calls.filter((call) => call.path.toLowerCase().startsWith(`/repos/${repo.toLowerCase()}/`));
  }

  handlers() {
    const base = TEST_GITHUB_API_URL;
    type AnyRequest = JudgedRequest & { text(): Promise<string> };
    const record = async (request: AnyRequest, path: string): Promise<{ call: GitHubCall; failure?: Failure | "lost"; refused?: Response }> => {
      const refused = (await this.spec.judge(request)) ?? undefined;
      const text = await request.text();
      const call: GitHubCall = {
        method: request.method,
        path,
        auth: request.headers.get("authorization"),
        body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined
      };
      this.calls.push(call);
      this.arrivedAt.set(call, Date.now());
      this.queryOf.set(call, new URL(request.url).searchParams);
      if (refused) return { call, refused };
      const index = this.#failures.findIndex((failure) => failure.match(call));
      const failure = index < 0 ? undefined : this.#failures.splice(index, 1)[0]!.failure;
      return { call, failure };
    };
    const failed = (failure: Failure) =>
      HttpResponse.json({ message: "failed by the test" }, { status: failure.status, ...(failure.headers ? { headers: failure.headers } : {}) });
    const pathOf = (request: AnyRequest) => new URL(request.url).pathname.replace("/api/v3", "");
    return [
      http.post(`${base}/repos/:owner/:repo/issues/comments/:id/reactions`, async ({ request }) => {
        const { call, failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        return HttpResponse.json({ id: this.#nextId++, content: call.body?.content }, { status: 201 });
      }),
      // 🚀 on a pull request review comment (a line comment of the diff): GitHub's reaction, 201.
      http.post(`${base}/repos/:owner/:repo/pulls/comments/:id/reactions`, async ({ request }) => {
        const { call, failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        const id = this.#nextId++;
        return HttpResponse.json(
          { id, node_id: `REA_test${id}`, user: { ...TEST_BOT, id: 9001 }, content: call.body?.content, created_at: new Date().toISOString() },
          { status: 201 }
        );
      }),
      // An edit of a comment (the progress comment): GitHub's issue comment, 200; 404 for one it does not have.
      http.patch(`${base}/repos/:owner/:repo/issues/comments/:id`, async ({ request, params }) => {
        const { call, failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        const prefix = `${params.owner}/${params.repo}#`.toLowerCase();
        const comment = [...this.#comments.entries()]
          .filter(([key]) => key.startsWith(prefix))
          .flatMap(([, comments]) => comments)
          .find((candidate) => candidate.id === Number(params.id));
        if (!comment) return HttpResponse.json({ message: "Not Found", status: "404" }, { status: 404 });
        comment.body = String(call.body?.body);
        comment.updated_at = new Date().toISOString();
        if (failure === "lost") return HttpResponse.error();
        // GitHub's issue-comment: the stored fields and the ones its schema requires besides.
        const api = `${base}/repos/${params.owner}/${params.repo}/issues`;
        const issueNumber = comment.html_url.replace(/^.*\/issues\/(\d+)#.*$/, "$1");
        return HttpResponse.json({
          ...comment,
          node_id: `IC_test${comment.id}`,
          url: `${api}/comments/${comment.id}`,
          issue_url: `${api}/${issueNumber}`,
          author_association: "NONE"
        });
      }),
      http.post(`${base}/repos/:owner/:repo/issues/:number/comments`, async ({ request, params }) => {
        const { call, failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        const body = String(call.body?.body);
        if ([...body].length > MAX_COMMENT_CHARS) {
          return HttpResponse.json(
            {
              message: "Validation Failed",
              errors: [{ resource: "IssueComment", code: "custom", field: "body", message: `body is too long (maximum is ${MAX_COMMENT_CHARS} characters)` }]
            },
            { status: 422 }
          );
        }
        const comment = this.#store(String(params.owner), String(params.repo), String(params.number), body, TEST_BOT);
        if (failure === "lost") return HttpResponse.error();
        return HttpResponse.json(comment, { status: 201 });
      }),
      http.get(`${base}/repos/:owner/:repo/issues/:number/comments`, async ({ request, params }) => {
        const { failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        const url = new URL(request.url);
        const since = url.searchParams.get("since");
        const all = (this.#comments.get(`${params.owner}/${params.repo}#${params.number}`.toLowerCase()) ?? []).filter(
          (comment) => since === null || Date.parse(comment.updated_at) >= Date.parse(since)
        );
        const perPage = Math.min(Math.max(Number(url.searchParams.get("per_page") ?? DEFAULT_PER_PAGE), 1), MAX_PER_PAGE);
        const page = Math.max(Number(url.searchParams.get("page") ?? 1), 1);
        const last = Math.max(Math.ceil(all.length / perPage), 1);
        const pageUrl = (n: number) => {
          const next = new URL(url);
          next.searchParams.set("page", String(n));
          return next.href;
        };
        const links = [...(page < last ? [`<${pageUrl(page + 1)}>; rel="next"`, `<${pageUrl(last)}>; rel="last"`] : [])];
        return HttpResponse.json(all.slice((page - 1) * perPage, page * perPage), links.length ? { headers: { link: links.join(", ") } } : {});
      }),
      http.get(`${base}/repos/:owner/:repo/issues/:number`, async ({ request, params }) => {
        const { failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        const repo = `${params.owner}/${params.repo}`;
        const issue = this.#issues.get(`${repo.toLowerCase()}#${params.number}`);
        if (!issue) return HttpResponse.json({ message: "Not Found", status: "404" }, { status: 404 });
        const number = Number(params.number);
        const api = `${base}/repos/${repo}/issues/${number}`;
        return HttpResponse.json({
          id: number,
          node_id: `I_test${number}`,
          url: api,
          repository_url: `${base}/repos/${repo}`,
          labels_url: `${api}/labels{/name}`,
          comments_url: `${api}/comments`,
          events_url: `${api}/events`,
          html_url: `https://github.test/${repo}/issues/${number}`,
          number,
          title: issue.title,
          state: issue.state,
          body: issue.body,
          user: issue.user,
          labels: this.labels(repo, number).map((name, index) => labelJson(repo, name, index)),
          assignee: null,
          assignees: [],
          milestone: null,
          locked: false,
          active_lock_reason: null,
          comments: this.comments(repo, number).length,
          closed_at: null,
          created_at: "2026-01-01T00:00:00Z",
          updated_at: "2026-01-01T00:00:00Z",
          author_association: "OWNER"
        });
      }),
      // An issue's labels: listed, added (GitHub creates a label on first use) and removed (404 "Label does not exist" when it has not got it).
      http.get(`${base}/repos/:owner/:repo/issues/:number/labels`, async ({ request, params }) => {
        const { failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        const repo = `${params.owner}/${params.repo}`;
        return HttpResponse.json(this.labels(repo, Number(params.number)).map((name, index) => labelJson(repo, name, index)));
      }),
      http.post(`${base}/repos/:owner/:repo/issues/:number/labels`, async ({ request, params }) => {
        const { call, failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        const repo = `${params.owner}/${params.repo}`;
        const held = this.labels(repo, Number(params.number));
        for (const name of (call.body?.labels as string[] | undefined) ?? []) if (!held.some((label) => label.toLowerCase() === name.toLowerCase())) held.push(name);
        this.setLabels(repo, Number(params.number), held);
        if (failure === "lost") return HttpResponse.error();
        return HttpResponse.json(held.map((name, index) => labelJson(repo, name, index)));
      }),
      http.delete(`${base}/repos/:owner/:repo/issues/:number/labels/:name`, async ({ request, params }) => {
        const { failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        const repo = `${params.owner}/${params.repo}`;
        const name = decodeURIComponent(String(params.name)).toLowerCase();
        const held = this.labels(repo, Number(params.number));
        if (!held.some((label) => label.toLowerCase() === name)) return HttpResponse.json({ message: "Label does not exist", status: "404" }, { status: 404 });
        const left = held.filter((label) => label.toLowerCase() !== name);
        this.setLabels(repo, Number(params.number), left);
        return HttpResponse.json(left.map((label, index) => labelJson(repo, label, index)));
      }),
      http.get(`${base}/repos/:owner/:repo/contents/*`, async ({ request, params }) => {
        const { failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        const url = new URL(request.url);
        const path = decodeURIComponent(url.pathname.replace(/^.*?\/contents\//, ""));
        const text = this.#file(`${params.owner}/${params.repo}`, path, url.searchParams.get("ref") ?? "");
        if (text === undefined) return HttpResponse.json({ message: "Not Found", status: "404" }, { status: 404 });
        return new HttpResponse(text, { status: 200, headers: { "content-type": "application/vnd.github.raw; charset=utf-8" } });
      }),
      http.get(`${base}/repos/:owner/:repo/pulls`, async ({ request, params }) => {
        const { failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        const url = new URL(request.url);
        const repo = `${params.owner}/${params.repo}`.toLowerCase();
        const state = url.searchParams.get("state") ?? "open";
        const head = url.searchParams.get("head");
        const found = this.#pulls.filter(
          (pull) => pull.repo === repo && (state === "all" || pull.state === state) && (head === null || `${String(params.owner)}:${pull.head}`.toLowerCase() === head.toLowerCase())
        );
        return HttpResponse.json(
          found.map((pull) => ({
            number: pull.number,
            state: pull.state,
            html_url: `https://github.test/${repo}/pull/${pull.number}`,
            user: pull.user,
            head: { ref: pull.head, repo: { full_name: repo } }
          }))
        );
      }),
      http.get(`${base}/repos/:owner/:repo`, async ({ request, params }) => {
        const { failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        const fullName = `${params.owner}/${params.repo}`;
        return HttpResponse.json({ id: 1, name: params.repo, full_name: fullName, default_branch: "main", private: false, html_url: `https://github.test/${fullName}` });
      }),
      http.post(`${base}/repos/:owner/:repo/pulls`, async ({ request, params }) => {
        const { call, failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        const repo = `${params.owner}/${params.repo}`.toLowerCase();
        const head = String(call.body?.head);
        if (this.#pulls.some((pull) => pull.repo === repo && pull.head === head && pull.state === "open")) {
          return HttpResponse.json({ message: "Validation Failed", errors: [{ resource: "PullRequest", code: "custom", message: `A pull request already exists for ${params.owner}:${head}.` }] }, { status: 422 });
        }
        const number = 1000 + this.#pulls.length;
        const pull: Pull = { repo, number, head, user: TEST_BOT, state: "open", base: String(call.body?.base), title: String(call.body?.title), body: String(call.body?.body ?? ""), draft: call.body?.draft === true };
        this.#pulls.push(pull);
        return HttpResponse.json({ number, html_url: `https://github.test/${repo}/pull/${number}`, state: "open", user: TEST_BOT }, { status: 201 });
      }),
      http.patch(`${base}/repos/:owner/:repo/pulls/:number`, async ({ request, params }) => {
        const { call, failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        const repo = `${params.owner}/${params.repo}`.toLowerCase();
        const pull = this.#pulls.find((candidate) => candidate.repo === repo && candidate.number === Number(params.number));
        if (!pull) return HttpResponse.json({ message: "Not Found" }, { status: 404 });
        if (typeof call.body?.title === "string") pull.title = call.body.title;
        if (typeof call.body?.body === "string") pull.body = call.body.body;
        return HttpResponse.json({ number: pull.number, html_url: `https://github.test/${repo}/pull/${pull.number}`, state: pull.state, user: pull.user });
      }),
      http.get(`${base}/repos/:owner/:repo/rules/branches/:branch`, async ({ request, params }) => {
        const { failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        return HttpResponse.json(this.#rules.get(`${`${params.owner}/${params.repo}`.toLowerCase()} ${decodeURIComponent(String(params.branch))}`) ?? []);
      }),
      http.delete(`${base}/installation/token`, async ({ request }) => {
        const { failure, refused } = await record(request, pathOf(request));
        if (refused) return refused;
        if (failure && failure !== "lost") return failed(failure);
        this.revoked.push((request.headers.get("authorization") ?? "").replace(/^(token|bearer) /i, ""));
        return new HttpResponse(null, { status: 204 });
      }),
      // Anything else under the API: GitHub's answer to a path or method it does not have, or 501 for one it has and this fake does not model.
      http.all(`${base}/*`, async ({ request }) => {
        const { refused } = await record(request, pathOf(request));
        return refused ?? HttpResponse.json({ message: "the test's FakeGitHub does not model this call" }, { status: 501 });
      })
    ];
  }
}

/** GitHub's label, as the issues API answers it (a label created on first use gets GitHub's default grey). */
function labelJson(repo: string, name: string, index: number): Record<string, unknown> {
  return { id: index + 1, node_id: `LA_test${index + 1}`, url: `${TEST_GITHUB_API_URL}/repos/${repo}/labels/${encodeURIComponent(name)}`, name, description: null, color: "ededed", default: false };
}

/**
 * MSW for one test file with `github`'s handlers (after `extra`, which win):
 * no call leaves the test, and after each test none GitHub's description
 * would refuse was made.
 */
export function serveGitHub(github: FakeGitHub, extra: RequestHandler[] = [], options: { onUnhandledRequest?: "error" | "bypass" } = {}) {
  const server = setupServer(...extra, ...github.handlers());
  beforeAll(() => server.listen({ onUnhandledRequest: options.onUnhandledRequest ?? "error" }));
  afterAll(() => server.close());
  afterEach(() => {
    server.resetHandlers(...extra, ...github.handlers());
    expect(github.refusals).toEqual([]);
  });
  return server;
}
