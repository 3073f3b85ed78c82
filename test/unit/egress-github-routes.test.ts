/**
 * How the gateway reads a request to the deploy's GitHub: the endpoints of
 * each kind of GitHub (github.com, a GHE.com tenant, an Enterprise Server),
 * forwarded to the configured API or a stand-in, and the route of a URL.
 * Anything not read exactly is `web`, and another host is not GitHub at all.
 */
import { describe, expect, it } from "vitest";
import { endpointsFor, githubRoute, type GitHubEndpoints } from "../../src/egress/github-routes";
import { GITHUB_COM, githubHost, type GitHubHost } from "../../src/shared/github-urls";

const GITHUB: GitHubHost = { kind: "github.com", host: "github.com", web: "https://github.com", noreplyDomain: "users.noreply.github.com" };
const TENANT = githubHost("https://api.octocorp.ghe.com");
const GHES = githubHost("https://ghe.example.com/api/v3");
const STANDIN = "http://127.0.0.1:8790";

describe("endpointsFor", () => {
  it("names github.com's origins and forwards to them when no API is configured", () => {
    expect(GITHUB).toEqual(GITHUB_COM);
    expect(endpointsFor(GITHUB, "")).toEqual({
      web: "https://github.com",
      api: "https://api.github.com",
      graphql: "https://api.github.com/graphql",
      uploads: "https://uploads.github.com",
      upstream: { web: "https://github.com", api: "https://api.github.com", graphql: "https://api.github.com/graphql" }
    });
  });

  it("forwards github.com's API and GraphQL to a configured stand-in, and git to github.com", () => {
    expect(endpointsFor(GITHUB, `${STANDIN}/`)).toEqual({
      web: "https://github.com",
      api: "https://api.github.com",
      graphql: "https://api.github.com/graphql",
      uploads: "https://uploads.github.com",
      upstream: { web: "https://github.com", api: STANDIN, graphql: `${STANDIN}/graphql` }
    });
  });

  it("forwards git to the git URL it is given", () => {
    expect(endpointsFor(GITHUB, STANDIN, "http://127.0.0.1:9418").upstream).toEqual({
      web: "http://127.0.0.1:9418",
      api: STANDIN,
      graphql: `${STANDIN}/graphql`
    });
  });

  it("names a GHE.com tenant's origins", () => {
    expect(endpointsFor(TENANT, "")).toEqual({
      web: "https://octocorp.ghe.com",
      api: "https://api.octocorp.ghe.com",
      graphql: "https://api.octocorp.ghe.com/graphql",
      uploads: "https://uploads.octocorp.ghe.com",
      upstream: { web: "https://octocorp.ghe.com", api: "https://api.octocorp.ghe.com", graphql: "https://api.octocorp.ghe.com/graphql" }
    });
    expect(endpointsFor(TENANT, "https://api.octocorp.ghe.com").upstream.api).toBe("https://api.octocorp.ghe.com");
  });

  it("names an Enterprise Server's API under /api/v3 and GraphQL under /api/graphql", () => {
    const expected = {
      web: "https://ghe.example.com",
      api: "https://ghe.example.com/api/v3",
      graphql: "https://ghe.example.com/api/graphql",
      uploads: "https://ghe.example.com/api/uploads",
      upstream: { web: "https://ghe.example.com", api: "https://ghe.example.com/api/v3", graphql: "https://ghe.example.com/api/graphql" }
    };
    expect(endpointsFor(GHES, "")).toEqual(expected);
    expect(endpointsFor(GHES, "https://ghe.example.com/api/v3")).toEqual(expected);
    expect(endpointsFor(GHES, " https://ghe.example.com/api/v3// ")).toEqual(expected);
  });

  it("forwards an Enterprise Server's API to a stand-in playing it", () => {
    expect(endpointsFor(GHES, `${STANDIN}/api/v3`).upstream).toEqual({
      web: "https://ghe.example.com",
      api: `${STANDIN}/api/v3`,
      graphql: `${STANDIN}/api/graphql`
    });
  });
});

describe("githubRoute on github.com", () => {
  const endpoints = endpointsFor(GITHUB, "");
  const route = (url: string, at: GitHubEndpoints = endpoints) => githubRoute(new URL(url), at);

  it.each([
    ["git-upload-pack", "upload-pack"],
    ["git-receive-pack", "receive-pack"]
  ] as const)("reads info/refs?service=%s as that service's advertisement", (service, kind) => {
    const url = `https://github.com/Octo/Repo.git/info/refs?service=${service}`;
    expect(route(url)).toEqual({ kind: "git", repo: "octo/repo", service: kind, step: "advertise", target: url });
  });

  it("reads info/refs without .git", () => {
    expect(route("https://github.com/octo/repo/info/refs?service=git-upload-pack")).toMatchObject({ kind: "git", repo: "octo/repo", step: "advertise" });
  });

  it.each(["", "?service=git-upload-archive", "?service=", "?other=git-receive-pack"])("reads info/refs%s as a web page", (query) => {
    const url = `https://github.com/octo/repo.git/info/refs${query}`;
    expect(route(url)).toEqual({ kind: "web", target: url });
  });

  it.each([
    ["/octo/repo.git/git-upload-pack", "upload-pack"],
    ["/octo/repo/git-upload-pack", "upload-pack"],
    ["/octo/repo.git/git-receive-pack", "receive-pack"],
    ["/octo/repo/git-receive-pack", "receive-pack"]
  ] as const)("reads %s as the service's RPC", (path, service) => {
    expect(route(`https://github.com${path}`)).toEqual({ kind: "git", repo: "octo/repo", service, step: "rpc", target: `https://github.com${path}` });
  });

  it("names the repository in lowercase whatever case the URL uses", () => {
    expect(route("https://github.com/OCTO/Repo/git-receive-pack")).toMatchObject({ repo: "octo/repo", target: "https://github.com/OCTO/Repo/git-receive-pack" });
  });

  it("keeps dots, hyphens and underscores in a repository's name", () => {
    expect(route("https://github.com/my-org/my_repo.js.git/git-upload-pack")).toMatchObject({ kind: "git", repo: "my-org/my_repo.js" });
  });

  it("reads a Git LFS batch", () => {
    const url = "https://github.com/Octo/Repo.git/info/lfs/objects/batch";
    expect(route(url)).toEqual({ kind: "lfs-batch", repo: "octo/repo", target: url });
  });

  it.each([
    "https://github.com/",
    "https://github.com/octo",
    "https://github.com/octo/repo",
    "https://github.com/octo/repo/issues/1",
    "https://github.com/octo/repo/info/refs/",
    "https://github.com/octo/repo/x/git-receive-pack",
    "https://github.com/octo/repo.git/info/lfs/locks",
    "https://github.com/login/oauth/access_token",
    "https://github.com/-octo/repo/git-receive-pack",
    `https://github.com/${"o".repeat(40)}/repo/git-receive-pack`
  ])("reads %s as a web page", (url) => {
    expect(route(url)).toEqual({ kind: "web", target: new URL(url).toString() });
  });

  it.each([
    "https://github.com/octo/repo/info%2Frefs?service=git-receive-pack",
    "https://github.com/octo/repo%2Egit/git-receive-pack",
    "https://github.com/%6Fcto/repo/git-receive-pack",
    "https://github.com/octo/re%70o/git-upload-pack",
    "https://github.com/octo/repo/git-receive-pac%6B"
  ])("reads a percent-encoded path as a web page: %s", (url) => {
    expect(route(url)).toEqual({ kind: "web", target: url });
  });

  it("reads the REST API and keeps path and query", () => {
    expect(route("https://api.github.com/repos/octo/repo/issues?state=open&per_page=5")).toEqual({
      kind: "rest",
      target: "https://api.github.com/repos/octo/repo/issues?state=open&per_page=5"
    });
  });

  it("reads the API root as REST", () => {
    expect(route("https://api.github.com")).toEqual({ kind: "rest", target: "https://api.github.com/" });
  });

  it.each(["https://api.github.com/graphql", "https://api.github.com/graphql/"])("reads %s as GraphQL", (url) => {
    expect(route(url)).toEqual({ kind: "graphql", target: "https://api.github.com/graphql" });
  });

  it("drops GraphQL's query string: GitHub reads the request from the body, which the gateway reads", () => {
    expect(route("https://api.github.com/graphql?query=mutation")).toEqual({ kind: "graphql", target: "https://api.github.com/graphql" });
  });

  it("reads paths that only start with graphql as REST", () => {
    expect(route("https://api.github.com/graphqlx")).toMatchObject({ kind: "rest" });
    expect(route("https://api.github.com/graphql/x")).toMatchObject({ kind: "rest" });
  });

  it.each(["https://uploads.github.com/repos/octo/repo/releases/1/assets?name=a.zip", "https://uploads.github.com/"])("reads %s as an upload", (url) => {
    expect(route(url)).toEqual({ kind: "uploads" });
  });

  it.each([
    "https://gitlab.com/octo/repo.git/info/refs?service=git-upload-pack",
    "https://github.com.evil.example/octo/repo/git-receive-pack",
    "https://api.github.com.evil.example/repos",
    "https://gist.github.com/octo/abc",
    "https://codeload.github.com/octo/repo/tar.gz/main",
    "https://octocorp.ghe.com/octo/repo/git-upload-pack"
  ])("is null for another origin: %s", (url) => {
    expect(route(url)).toBeNull();
  });

  it.each([
    "http://github.com/octo/repo/git-receive-pack",
    "https://github.com:8443/octo/repo/git-receive-pack",
    "https://github.com./octo/repo/git-receive-pack",
    "http://api.github.com/user",
    "https://API.GITHUB.COM.:443/user",
    "http://uploads.github.com/repos/o/r/releases/1/assets"
  ])("is elsewhere for the deploy's GitHub reached another way: %s", (url) => {
    expect(route(url)).toEqual({ kind: "elsewhere" });
  });

  it("rewrites targets to the configured upstreams, keeping path and query", () => {
    const standin = endpointsFor(GITHUB, STANDIN, "http://127.0.0.1:9418");
    expect(route("https://api.github.com/repos/o/r/pulls?state=all", standin)).toEqual({ kind: "rest", target: `${STANDIN}/repos/o/r/pulls?state=all` });
    expect(route("https://api.github.com/", standin)).toEqual({ kind: "rest", target: `${STANDIN}/` });
    expect(route("https://api.github.com/graphql?a=b", standin)).toEqual({ kind: "graphql", target: `${STANDIN}/graphql` });
    expect(route("https://github.com/o/r.git/info/refs?service=git-upload-pack", standin)).toMatchObject({
      kind: "git",
      target: "http://127.0.0.1:9418/o/r.git/info/refs?service=git-upload-pack"
    });
    expect(route("https://github.com/o/r/issues?q=is%3Aopen", standin)).toEqual({ kind: "web", target: "http://127.0.0.1:9418/o/r/issues?q=is%3Aopen" });
  });
});

describe("githubRoute on a GHE.com tenant", () => {
  const endpoints = endpointsFor(TENANT, "");
  const route = (url: string) => githubRoute(new URL(url), endpoints);

  it("reads git, REST, GraphQL and uploads on the tenant's hosts", () => {
    expect(route("https://octocorp.ghe.com/o/r.git/git-upload-pack")).toMatchObject({ kind: "git", repo: "o/r", service: "upload-pack" });
    expect(route("https://api.octocorp.ghe.com/repos/o/r")).toEqual({ kind: "rest", target: "https://api.octocorp.ghe.com/repos/o/r" });
    expect(route("https://api.octocorp.ghe.com/graphql")).toEqual({ kind: "graphql", target: "https://api.octocorp.ghe.com/graphql" });
    expect(route("https://uploads.octocorp.ghe.com/repos/o/r/releases/1/assets")).toEqual({ kind: "uploads" });
  });

  it("is null for github.com", () => {
    expect(route("https://github.com/o/r.git/git-upload-pack")).toBeNull();
    expect(route("https://api.github.com/repos/o/r")).toBeNull();
  });
});

describe("githubRoute on an Enterprise Server", () => {
  const endpoints = endpointsFor(GHES, "https://ghe.example.com/api/v3");
  const route = (url: string, at: GitHubEndpoints = endpoints) => githubRoute(new URL(url), at);

  it("reads /api/v3/... as REST, forwarded under the configured API", () => {
    expect(route("https://ghe.example.com/api/v3/repos/o/r/issues?page=2")).toEqual({
      kind: "rest",
      target: "https://ghe.example.com/api/v3/repos/o/r/issues?page=2"
    });
    expect(route("https://ghe.example.com/api/v3")).toEqual({ kind: "rest", target: "https://ghe.example.com/api/v3" });
    expect(route("https://ghe.example.com/api/v3/")).toEqual({ kind: "rest", target: "https://ghe.example.com/api/v3/" });
  });

  it("reads /api/graphql as GraphQL and /api/uploads as an upload", () => {
    expect(route("https://ghe.example.com/api/graphql")).toEqual({ kind: "graphql", target: "https://ghe.example.com/api/graphql" });
    expect(route("https://ghe.example.com/api/uploads/repos/o/r/releases/1/assets?name=a")).toEqual({ kind: "uploads" });
  });

  it("reads git on the same origin", () => {
    expect(route("https://ghe.example.com/Team/Repo.git/info/refs?service=git-receive-pack")).toMatchObject({
      kind: "git",
      repo: "team/repo",
      service: "receive-pack",
      step: "advertise"
    });
  });

  it("reads other paths on the origin, /api/v3x included, as web pages", () => {
    expect(route("https://ghe.example.com/api/v3x")).toEqual({ kind: "web", target: "https://ghe.example.com/api/v3x" });
    expect(route("https://ghe.example.com/o/r/pulls")).toEqual({ kind: "web", target: "https://ghe.example.com/o/r/pulls" });
  });

  it("forwards REST and GraphQL to a stand-in playing the server", () => {
    const standin = endpointsFor(GHES, `${STANDIN}/api/v3`);
    expect(route("https://ghe.example.com/api/v3/repos/o/r?x=1", standin)).toEqual({ kind: "rest", target: `${STANDIN}/api/v3/repos/o/r?x=1` });
    expect(route("https://ghe.example.com/api/graphql", standin)).toEqual({ kind: "graphql", target: `${STANDIN}/api/graphql` });
  });

  it("is null for github.com", () => {
    expect(route("https://api.github.com/repos/o/r")).toBeNull();
  });
});
