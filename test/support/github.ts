/**
 * GitHub as MSW plays it for the reporting tests: reactions on issue
 * comments, comments on issues (posted and listed), each call recorded with
 * its Authorization header. A test can make the next calls fail, or make
 * GitHub take a comment and lose the answer, as a timeout or an eviction
 * mid-call would.
 */
import { http, HttpResponse } from "msw";
import { TEST_GITHUB_API_URL } from "../worker";

export type GitHubCall = { method: string; path: string; auth: string | null; body: Record<string, unknown> | undefined };
type Comment = { id: number; body: string; html_url: string; created_at: string };

export class FakeGitHub {
  readonly calls: GitHubCall[] = [];
  readonly #comments = new Map<string, Comment[]>();
  #nextId = 5000;
  /** Failures to answer, in order, for the matching calls: a status, or "lost" (taken, then the answer is lost). */
  readonly #failures: Array<{ match: (call: GitHubCall) => boolean; status: number | "lost" }> = [];

  failNext(match: (call: GitHubCall) => boolean, status: number | "lost"): void {
    this.#failures.push({ match, status });
  }

  comments(repo: string, issueNumber: number): Comment[] {
    return this.#comments.get(`${repo}#${issueNumber}`.toLowerCase()) ?? [];
  }

  /** Calls for one repository, so tests sharing the runtime keep apart. */
  callsFor(repo: string): GitHubCall[] {
    return this.calls.filter((call) => call.path.toLowerCase().startsWith(`/repos/${repo.toLowerCase()}/`));
  }

  handlers() {
    const base = TEST_GITHUB_API_URL;
    type AnyRequest = { method: string; url: string; headers: Headers; text(): Promise<string> };
    const record = async (request: AnyRequest, path: string): Promise<{ call: GitHubCall; failure?: number | "lost" }> => {
      const text = await request.text();
      const call: GitHubCall = {
        method: request.method,
        path,
        auth: request.headers.get("authorization"),
        body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined
      };
      this.calls.push(call);
      const index = this.#failures.findIndex((failure) => failure.match(call));
      const failure = index < 0 ? undefined : this.#failures.splice(index, 1)[0]!.status;
      return { call, failure };
    };
    const pathOf = (request: AnyRequest) => new URL(request.url).pathname.replace("/api/v3", "");
    return [
      http.post(`${base}/repos/:owner/:repo/issues/comments/:id/reactions`, async ({ request }) => {
        const { call, failure } = await record(request, pathOf(request));
        if (typeof failure === "number") return HttpResponse.json({ message: "failed by the test" }, { status: failure });
        return HttpResponse.json({ id: this.#nextId++, content: call.body?.content }, { status: 201 });
      }),
      http.post(`${base}/repos/:owner/:repo/issues/:number/comments`, async ({ request, params }) => {
        const { call, failure } = await record(request, pathOf(request));
        if (typeof failure === "number") return HttpResponse.json({ message: "failed by the test" }, { status: failure });
        const key = `${params.owner}/${params.repo}#${params.number}`.toLowerCase();
        const id = this.#nextId++;
        const comment: Comment = {
          id,
          body: String(call.body?.body),
          html_url: `https://github.test/${params.owner}/${params.repo}/issues/${params.number}#issuecomment-${id}`,
          created_at: new Date().toISOString()
        };
        this.#comments.set(key, [...(this.#comments.get(key) ?? []), comment]);
        if (failure === "lost") return HttpResponse.error();
        return HttpResponse.json(comment, { status: 201 });
      }),
      http.get(`${base}/repos/:owner/:repo/issues/:number/comments`, async ({ request, params }) => {
        const { failure } = await record(request, pathOf(request));
        if (typeof failure === "number") return HttpResponse.json({ message: "failed by the test" }, { status: failure });
        return HttpResponse.json(this.#comments.get(`${params.owner}/${params.repo}#${params.number}`.toLowerCase()) ?? []);
      })
    ];
  }
}
