/**
 * GitHub's REST description as the judge of the Workers tests' MSW
 * handlers: before a handler answers, `judge` asks the stand-in the global
 * setup started (github-spec-setup.ts) whether GitHub would take the
 * request (its path, method, parameters and body against the description's
 * operation). A request GitHub would refuse is answered as GitHub answers
 * it (404 for an unknown path, 422 naming the bad field) and kept in
 * `refusals`, so the code under test sees the refusal and the test can
 * assert there was none. The ask itself bypasses MSW.
 *
 * An API base with the Enterprise Server prefix (`/api/v3`, as the tests'
 * GITHUB_API_URL has) is judged by GHES 3.19's description, under that
 * prefix; any other by api.github.com's.
 */
import { bypass, HttpResponse } from "msw";
import { inject } from "vitest";

export type SpecRefusal = { method: string; url: string; status: number; reason: string };

export type GitHubSpecUrls = { "api.github.com": string; "ghes-3.19": string };

declare module "vitest" {
  export interface ProvidedContext {
    /** The judging stand-ins' URLs, by description (github-spec-setup.ts). */
    githubSpec: GitHubSpecUrls;
    /** A stand-in that answers as GitHub Enterprise Server 3.19 (`/api/v3`, `/api/graphql`), for a test's forwarded GitHub calls. */
    githubStandin: string;
  }
}

/** What judging reads of a request (MSW's and the runtime's Request types differ; both have these). */
export type JudgedRequest = { method: string; url: string; headers: { get(name: string): string | null }; clone(): { text(): Promise<string> } };

type Verdict = { ok: true; operation: { operationId: string } } | { ok: false; status: number; message: string; reason: string };

const ENTERPRISE_PREFIX = "/api/v3";

export class GitHubSpec {
  /** Every request the description refused, in order. */
  readonly refusals: SpecRefusal[] = [];
  readonly #base: URL;

  /** `apiBase`: the GITHUB_API_URL the handlers serve (`https://github.test/api/v3`). */
  constructor(apiBase: string) {
    this.#base = new URL(apiBase);
  }

  /** null when GitHub would take `request`; otherwise GitHub's answer to it. Reads a clone: the handler can still read the body. */
  async judge(request: JudgedRequest): Promise<Response | null> {
    const url = new URL(request.url);
    const basePath = this.#base.pathname.replace(/\/+$/, "");
    const enterprise = basePath === ENTERPRISE_PREFIX;
    const path = url.pathname.startsWith(basePath) ? url.pathname.slice(basePath.length) : url.pathname;
    const text = await request.clone().text();
    const asked = {
      method: request.method,
      url: `${enterprise ? ENTERPRISE_PREFIX : ""}${path}${url.search}`,
      ...(text ? { body: parseBody(text) } : {}),
      headers: { "content-type": request.headers.get("content-type") ?? "" }
    };
    const judge = inject("githubSpec")[enterprise ? "ghes-3.19" : "api.github.com"];
    const answer = await fetch(
      bypass(`${judge}/_standin/validate`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(asked) })
    );
    if (!answer.ok) throw new Error(`the GitHub description judge answered ${answer.status}`);
    const verdict = (await answer.json()) as Verdict;
    if (verdict.ok) return null;
    this.refusals.push({ method: request.method, url: asked.url, status: verdict.status, reason: verdict.reason });
    return HttpResponse.json(
      { message: verdict.message, documentation_url: "https://docs.github.com/rest", status: String(verdict.status) },
      { status: verdict.status }
    );
  }
}

function parseBody(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
