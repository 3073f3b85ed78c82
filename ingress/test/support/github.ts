/**
 * GitHub for the webhook app's tests: MSW handlers for the calls the App
 * makes (find the installation, mint a token, learn the App's identity,
 * react, comment, ask a commenter's permission: by default `admin` for
 * MAINTAINER, the built deliveries' default commenter, and for a
 * repository's owner account, as GitHub says of a personal repository's
 * owner; a 404, not a collaborator, for anyone else), each one recorded
 * with its Authorization header, and a check of the App JWT the Worker
 * signs against the public key of this run's generated key pair
 * (`GET /app` answers 401 to any other).
 *
 * Each test starts with the App's identity unknown (neither the isolate nor
 * KV holds it), so its first accepted comment asks for it: IDENTITY_CALLS;
 * and with no permission answer kept, so its first delivery from each
 * commenter asks GitHub: `permissionCall(repo, login)`.
 *
 * GitHub's REST description (api.github.com) judges every call before it
 * is answered (test/support/github-spec.ts, shared with the agent's
 * Workers tests): one GitHub would refuse is answered with GitHub's 404 or
 * 422, and `githubServer` fails the test after it.
 */
import { env } from "cloudflare:workers";
import { http, HttpResponse, type HttpResponseResolver } from "msw";
import { setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { GitHubSpec } from "../../../test/support/github-spec";
import { forgetAppIdentities, identityKey } from "../../src/github/app-identity";

export const API = "https://api.github.test";
export const INSTALLATION_ID = 77;
/** The App as these tests' GitHub knows it: its slug, its bot's login (BOT_LOGIN in test/wrangler.jsonc) and user id. */
export const APP_SLUG = "agent-think";
export const BOT_LOGIN = `${APP_SLUG}[bot]`;
export const BOT_USER_ID = 198_765_432;
/** What learning the identity asks, as recorded (Octokit percent-encodes the brackets). */
export const IDENTITY_CALLS = ["GET /app", "GET /users/agent-think%5Bbot%5D"];
/** The commenter of every built delivery unless a test names another (scripts/lib/github-delivery.ts): an admin of every repository here. */
export const MAINTAINER = "octocat";
/** Asking GitHub for `login`'s permission on `repo`, as recorded. */
export const permissionCall = (repo: string, login: string = MAINTAINER) => `GET /repos/${repo}/collaborators/${login}/permission`;

export type GitHubCall = { method: string; path: string; authorization: string; body: unknown };

export type GitHubOverrides = {
  installation?: HttpResponseResolver;
  accessToken?: HttpResponseResolver;
  reaction?: HttpResponseResolver;
  /** `POST /repos/{owner}/{repo}/pulls/comments/{comment_id}/reactions`. */
  reviewCommentReaction?: HttpResponseResolver;
  /** `POST /repos/{owner}/{repo}/issues/{issue_number}/reactions`: an issue event's 👀 and 😕. */
  issueReaction?: HttpResponseResolver;
  /** `GET /repos/{owner}/{repo}/contents/{path}`: by default 404, no such file (`contentsAnswer` serves one). */
  contents?: HttpResponseResolver;
  /** `GET /repos/{owner}/{repo}/pulls/{pull_number}`: by default `pullAnswer` (a fork's branch). */
  pull?: HttpResponseResolver;
  comment?: HttpResponseResolver;
  permission?: HttpResponseResolver;
  /** `GET /app`: the App, for a JWT that verifies (else 401). */
  app?: HttpResponseResolver;
  /** `GET /users/{username}`: a Bot for a `[bot]` login (BOT_USER_ID), a User otherwise. */
  user?: HttpResponseResolver;
  /** `GET /repos/{owner}/{repo}/check-suites/{check_suite_id}/check-runs`: by default none. */
  checkRuns?: HttpResponseResolver;
  /** `GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs`: by default none. */
  jobs?: HttpResponseResolver;
  /** `GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs`: by default a 302 to LOG_DOWNLOAD/<job_id>. */
  jobLogs?: HttpResponseResolver;
  /** `GET LOG_DOWNLOAD/<job_id>`, the address GitHub's 302 names (no token): by default `jobLog(<job_id>)`. */
  logDownload?: HttpResponseResolver;
};

/** Where the test GitHub sends a job's log download (as GitHub's 302 names a short-lived address on another host). */
export const LOG_DOWNLOAD = "https://logs.github.test/job-logs";
/** A job's log as the default download serves it: 100 timestamped lines, the last ones saying what failed. */
export const jobLog = (jobId: number) =>
  Array.from({ length: 100 }, (_, line) => `2026-12-02T05:0${line % 10}:00.1234567Z ${line < 97 ? `job ${jobId} line ${line}` : line === 97 ? "\u001b[31mFAIL\u001b[0m test/parser.test.ts > parses empty input" : line === 98 ? "Error: expected [] to equal undefined" : "##[error]Process completed with exit code 1."}`).join("\n") + "\n";

/** Handlers that record every call into `calls` and mint a fresh `ghs_` token each time (pushed to `minted`). */
export function githubHandlers(calls: GitHubCall[], minted: string[], overrides: GitHubOverrides = {}, spec = new GitHubSpec(API)) {
  const recorded =
    (fallback: HttpResponseResolver, override?: HttpResponseResolver): HttpResponseResolver =>
    async (info) => {
      const refused = await spec.judge(info.request);
      const text = await info.request.clone().text();
      calls.push({
        method: info.request.method,
        path: new URL(info.request.url).pathname,
        authorization: info.request.headers.get("authorization") ?? "",
        body: text === "" ? undefined : JSON.parse(text)
      });
      return refused ?? (override ?? fallback)(info);
    };
  return [
    http.get(`${API}/repos/:owner/:repo/installation`, recorded(() => HttpResponse.json({ id: INSTALLATION_ID, account: { login: "acme" } }), overrides.installation)),
    http.post(
      `${API}/app/installations/:id/access_tokens`,
      recorded(() => {
        const token = `ghs_${crypto.randomUUID().replaceAll("-", "")}`;
        minted.push(token);
        return HttpResponse.json({ token, expires_at: new Date(Date.now() + 3_600_000).toISOString() }, { status: 201 });
      }, overrides.accessToken)
    ),
    http.post(
      `${API}/repos/:owner/:repo/issues/comments/:id/reactions`,
      recorded(({ params }) => HttpResponse.json({ id: 1, content: "eyes", comment: params.id }, { status: 201 }), overrides.reaction)
    ),
    http.post(
      `${API}/repos/:owner/:repo/pulls/comments/:id/reactions`,
      recorded(({ params }) => HttpResponse.json({ id: 2, content: "eyes", comment: params.id }, { status: 201 }), overrides.reviewCommentReaction)
    ),
    http.post(
      `${API}/repos/:owner/:repo/issues/:number/reactions`,
      recorded(({ params }) => HttpResponse.json({ id: 3, content: "eyes", issue: params.number }, { status: 201 }), overrides.issueReaction)
    ),
    http.get(
      `${API}/repos/:owner/:repo/contents/*`,
      recorded(() => HttpResponse.json({ message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" }, { status: 404 }), overrides.contents)
    ),
    http.get(
      `${API}/repos/:owner/:repo/pulls/:number`,
      recorded(({ params }) => pullAnswer(`${String(params.owner)}/${String(params.repo)}`, Number(params.number))(), overrides.pull)
    ),
    http.post(
      `${API}/repos/:owner/:repo/issues/:number/comments`,
      recorded(() => HttpResponse.json({ id: 9001, html_url: "https://github.test/c/9001" }, { status: 201 }), overrides.comment)
    ),
    http.get(
      `${API}/app`,
      recorded(async ({ request }) => {
        try {
          await verifyAppJwt(request.headers.get("authorization") ?? "");
        } catch {
          return HttpResponse.json({ message: "A JSON web token could not be decoded" }, { status: 401 });
        }
        return appAnswer(APP_SLUG)();
      }, overrides.app)
    ),
    http.get(
      `${API}/users/:username`,
      recorded(({ params }) => userAnswer(decodeURIComponent(String(params.username)))(), overrides.user)
    ),
    http.get(
      `${API}/repos/:owner/:repo/collaborators/:username/permission`,
      recorded((info) => {
        const login = String(info.params.username).toLowerCase();
        if (login === MAINTAINER || login === String(info.params.owner).toLowerCase()) return permissionAnswer("admin", "admin")(info);
        return HttpResponse.json({ message: "Not Found", documentation_url: "https://docs.github.com/rest", status: "404" }, { status: 404 });
      }, overrides.permission)
    ),
    http.get(
      `${API}/repos/:owner/:repo/check-suites/:id/check-runs`,
      recorded(() => HttpResponse.json({ total_count: 0, check_runs: [] }), overrides.checkRuns)
    ),
    http.get(`${API}/repos/:owner/:repo/actions/runs/:id/jobs`, recorded(() => HttpResponse.json({ total_count: 0, jobs: [] }), overrides.jobs)),
    http.get(
      `${API}/repos/:owner/:repo/actions/jobs/:id/logs`,
      recorded(({ params }) => new HttpResponse(null, { status: 302, headers: { location: `${LOG_DOWNLOAD}/${String(params.id)}` } }), overrides.jobLogs)
    ),
    // The download: another host, no GitHub API call, not judged by the description; recorded like the rest.
    http.get(`${LOG_DOWNLOAD}/:id`, async (info) => {
      calls.push({ method: "GET", path: new URL(info.request.url).pathname, authorization: info.request.headers.get("authorization") ?? "", body: undefined });
      return (overrides.logDownload ?? (({ params }) => new HttpResponse(jobLog(Number(params.id)), { headers: { "content-type": "text/plain" } })))(info);
    }),
    // Anything else: GitHub's answer to a path or method it does not have, or 501 for one it has and these handlers do not model.
    http.all(
      `${API}/*`,
      recorded(() => HttpResponse.json({ message: "the webhook app's test GitHub does not model this call" }, { status: 501 }))
    )
  ];
}

/**
 * MSW for one test file, as a tripwire (any unhandled request fails the
 * test): `use()` installs the GitHub handlers for the current test; `calls`
 * and `minted` are emptied before each test.
 */
export function githubServer() {
  const server = setupServer();
  const calls: GitHubCall[] = [];
  const minted: string[] = [];
  const spec = new GitHubSpec(API);
  beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
  beforeEach(async () => {
    calls.length = 0;
    minted.length = 0;
    forgetAppIdentities();
    await env.EVENT_STATE.delete(identityKey(env.GITHUB_APP_ID));
    await forgetPermissions();
  });
  afterEach(() => {
    server.resetHandlers();
    // No test passes on a request GitHub's description would refuse.
    const refusals = spec.refusals.splice(0);
    expect(refusals).toEqual([]);
  });
  afterAll(() => server.close());
  return {
    calls,
    minted,
    spec,
    use: (overrides: GitHubOverrides = {}) => server.use(...githubHandlers(calls, minted, overrides, spec)),
    reset: () => server.resetHandlers()
  };
}

/** Drops every kept permission answer (permission.ts), so a test's first delivery from a commenter asks GitHub. */
export async function forgetPermissions(): Promise<void> {
  const { keys } = await env.EVENT_STATE.list({ prefix: "permission:" });
  await Promise.all(keys.map((key) => env.EVENT_STATE.delete(key.name)));
}

export const status = (code: number, message = "refused") => () => HttpResponse.json({ message }, { status: code });

/** GitHub's "Get the authenticated app" for an App with this slug (the `integration` schema's required fields). */
export const appAnswer = (slug: string) => () =>
  HttpResponse.json({
    id: Number(env.GITHUB_APP_ID),
    slug,
    node_id: "A_test",
    client_id: "Iv1.test",
    owner: { login: "acme", id: 1, type: "Organization" },
    name: slug,
    description: null,
    external_url: "https://agent-think.test",
    html_url: `https://github.test/apps/${slug}`,
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
    permissions: { issues: "write", contents: "write", pull_requests: "write", metadata: "read" },
    events: ["issue_comment"]
  });

/** GitHub's "Get repository content" for a file holding `text` (the content-file schema's fields). */
export const contentsAnswer = (path: string, text: string) => () => {
  const bytes = new TextEncoder().encode(text);
  // GitHub wraps the base64 at 60 characters.
  const content = (btoa(String.fromCharCode(...bytes)).match(/.{1,60}/g) ?? []).join("\n");
  return HttpResponse.json({
    type: "file",
    encoding: "base64",
    size: bytes.length,
    name: path.split("/").pop(),
    path,
    content,
    sha: "3d21ec53a331a6f037a91c368710b99387d012c1",
    url: `${API}/repos/o/r/contents/${path}`,
    git_url: null,
    html_url: null,
    download_url: null,
    _links: { self: `${API}/repos/o/r/contents/${path}`, git: null, html: null }
  });
};

/** The head SHA `pullAnswer` names. */
export const PULL_HEAD_SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e";

/** GitHub's "Get a pull request" (the fields the webhook app reads, and a few more): a branch of a fork of `repo`. */
export const pullAnswer = (repo: string, number: number) => () =>
  HttpResponse.json({
    id: 1_000 + number,
    number,
    state: "open",
    title: `Pull request ${number}`,
    html_url: `https://github.test/${repo}/pull/${number}`,
    head: { label: "forker:fix-parser", ref: "fix-parser", sha: PULL_HEAD_SHA, repo: { full_name: `forker/${repo.split("/")[1]}` } },
    base: { label: `${repo.split("/")[0]}:main`, ref: "main", sha: "0".repeat(40), repo: { full_name: repo } }
  });

/** GitHub's "Get a user": a Bot with BOT_USER_ID for any `[bot]` login, else a User. */
export const userAnswer = (login: string, fields: Record<string, unknown> = {}) => () =>
  HttpResponse.json({
    login,
    id: login.endsWith("[bot]") ? BOT_USER_ID : 9_999,
    type: login.endsWith("[bot]") ? "Bot" : "User",
    user_view_type: "public",
    site_admin: false,
    ...fields
  });

/** GitHub's answer to "Get repository permissions for a user": the legacy base role, and the role's own name. */
export const permissionAnswer =
  (permission: string, roleName: string): HttpResponseResolver =>
  ({ params }) =>
    HttpResponse.json({ permission, role_name: roleName, user: { login: params.username, id: 9_999, type: "User" } });

export type AppJwt = { header: { alg: string; typ: string }; payload: { iss: unknown; iat: number; exp: number } };

/** Decodes `Bearer <jwt>` and verifies its RS256 signature with this run's App public key; throws if it does not verify. */
export async function verifyAppJwt(authorization: string): Promise<AppJwt> {
  const match = /^bearer (\S+)$/i.exec(authorization);
  if (!match) throw new Error(`not a bearer token: ${authorization.slice(0, 12)}...`);
  const [header, payload, signature] = match[1]!.split(".");
  if (!header || !payload || !signature) throw new Error("not a JWT");
  const key = await crypto.subtle.importKey(
    "spki",
    base64Bytes(env.TEST_APP_PUBLIC_KEY),
    { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" },
    false,
    ["verify"]
  );
  const signed = new TextEncoder().encode(`${header}.${payload}`);
  if (!(await crypto.subtle.verify("RSASSA-PKCS1-v1_5", key, base64Bytes(signature), signed))) {
    throw new Error("the JWT's signature does not verify with the App's public key");
  }
  const decode = (part: string) => JSON.parse(new TextDecoder().decode(base64Bytes(part)));
  return { header: decode(header), payload: decode(payload) };
}

/** Standard or URL-safe base64, padded or not. */
export function base64Bytes(text: string): Uint8Array<ArrayBuffer> {
  const standard = text.replace(/-/g, "+").replace(/_/g, "/");
  const padded = standard + "=".repeat((4 - (standard.length % 4)) % 4);
  return Uint8Array.from(atob(padded), (char) => char.charCodeAt(0));
}
