/**
 * The deploy's GitHub from GITHUB_API_URL (src/shared/github-urls.ts): the
 * web origin, the host gh logs in to and the bot's noreply domain, for
 * github.com, a GHE.com tenant and a GitHub Enterprise Server; the local
 * stand-in and an empty value stay github.com; anything else is an error
 * naming the variable.
 */
import { describe, expect, it } from "vitest";
import {
  commentUrl,
  GITHUB_COM,
  githubHost,
  GitHubConfigError,
  issueUrl,
  parseGitHubApiUrl,
  parseGitUpstream
} from "../../src/shared/github-urls";

describe("githubHost(GITHUB_API_URL)", () => {
  it.each([
    ["https://api.github.com", { kind: "github.com", host: "github.com", web: "https://github.com", noreplyDomain: "users.noreply.github.com" }],
    ["https://api.github.com/", { kind: "github.com", host: "github.com", web: "https://github.com", noreplyDomain: "users.noreply.github.com" }],
    [
      "https://api.octocorp.ghe.com",
      { kind: "ghe.com", host: "octocorp.ghe.com", web: "https://octocorp.ghe.com", noreplyDomain: "users.noreply.octocorp.ghe.com" }
    ],
    [
      "https://ghe.example.com/api/v3",
      { kind: "ghes", host: "ghe.example.com", web: "https://ghe.example.com", noreplyDomain: "users.noreply.ghe.example.com" }
    ],
    [
      " https://GitHub.Example.COM/api/v3/ ",
      { kind: "ghes", host: "github.example.com", web: "https://github.example.com", noreplyDomain: "users.noreply.github.example.com" }
    ]
  ])("derives %s", (apiUrl, expected) => {
    expect(githubHost(apiUrl)).toEqual(expected);
  });

  it("keeps github.com when nothing is posted (empty) and for the local stand-in, which plays api.github.com", () => {
    for (const apiUrl of [undefined, "", "  ", "http://127.0.0.1:8790", "http://localhost:9200/", "http://[::1]:8790"]) {
      expect(githubHost(apiUrl), String(apiUrl)).toEqual(GITHUB_COM);
    }
  });

  it("takes a loopback URL ending in /api/v3 as the stand-in playing an Enterprise Server, its web origin the stand-in's own", () => {
    expect(githubHost("http://127.0.0.1:8798/api/v3/")).toEqual({
      kind: "ghes",
      host: "127.0.0.1:8798",
      web: "http://127.0.0.1:8798",
      noreplyDomain: "users.noreply.127.0.0.1"
    });
    expect(parseGitHubApiUrl("http://127.0.0.1:8798/api/v4").ok).toBe(false);
  });

  it.each([
    ["api.github.com"],
    ["http://api.github.com"],
    ["http://ghe.example.com/api/v3"],
    ["https://ghe.example.com"],
    ["https://ghe.example.com/api/v4"],
    ["https://ghe.example.com:8443/api/v3"],
    ["https://github.com/api/v3"],
    ["https://api.github.com/api/v3"],
    ["https://octocorp.ghe.com/api/v3"],
    ["https://api.octocorp.ghe.com/api/v3"],
    ["https://10.0.0.7/api/v3"],
    ["https://ghe.example.com/api/v3?x=1"],
    ["ftp://ghe.example.com/api/v3"]
  ])("refuses %s, naming GITHUB_API_URL and the forms it takes", (apiUrl) => {
    const parsed = parseGitHubApiUrl(apiUrl);
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).toMatch(/^GITHUB_API_URL must be https:\/\/api\.github\.com, https:\/\/api\.<subdomain>\.ghe\.com .* https:\/\/<host>\/api\/v3/);
    expect(() => githubHost(apiUrl)).toThrow(GitHubConfigError);
    expect(() => githubHost(apiUrl)).toThrow(/GITHUB_API_URL/);
  });

  it("never repeats credentials someone put in the URL", () => {
    const parsed = parseGitHubApiUrl("https://x-access-token:ghs_SECRETsecret000@ghe.example.com/api/v3");
    expect(parsed.ok).toBe(false);
    expect(!parsed.ok && parsed.error).not.toContain("ghs_SECRET");
    expect(!parsed.ok && parsed.error).toContain('"https://ghe.example.com/api/v3"');
  });

  it("is a typed error a caller can tell apart", () => {
    const error = (() => {
      try {
        githubHost("nonsense");
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(GitHubConfigError);
    expect(error).toMatchObject({ name: "GitHubConfigError", code: "bad_github_api_url" });
  });
});

describe("links", () => {
  it("point at the configured web origin", () => {
    const web = githubHost("https://ghe.example.com/api/v3").web;
    expect(issueUrl(web, "acme/widgets", 7)).toBe("https://ghe.example.com/acme/widgets/issues/7");
    expect(commentUrl(web, "acme/widgets", 7, 99)).toBe("https://ghe.example.com/acme/widgets/issues/7#issuecomment-99");
    expect(issueUrl(GITHUB_COM.web, "acme/widgets", 7)).toBe("https://github.com/acme/widgets/issues/7");
  });
});

describe("parseGitUpstream(GITHUB_GIT_URL): git to a server on the host, in local dev against the stand-in only", () => {
  const STANDIN = "http://127.0.0.1:9100";

  it("is nothing when empty, wherever it runs", () => {
    expect(parseGitUpstream("", "https://api.github.com", false)).toEqual({ ok: true });
    expect(parseGitUpstream(undefined, STANDIN, true)).toEqual({ ok: true });
  });

  it("takes a loopback origin under LOCAL_DEV with the stand-in's API, as an origin", () => {
    expect(parseGitUpstream("http://127.0.0.1:9200/", STANDIN, true)).toEqual({ ok: true, url: "http://127.0.0.1:9200" });
    expect(parseGitUpstream("http://localhost:9200", `${STANDIN}/api/v3`, true)).toEqual({ ok: true, url: "http://localhost:9200" });
  });

  it.each([
    ["outside local dev", "http://127.0.0.1:9200", STANDIN, false],
    ["against the real GitHub", "http://127.0.0.1:9200", "https://api.github.com", true],
    ["with no GITHUB_API_URL", "http://127.0.0.1:9200", "", true]
  ])("is refused %s: a deploy's git never goes elsewhere", (_case, value, api, localDev) => {
    expect(parseGitUpstream(value, api, localDev)).toEqual({ ok: false, error: expect.stringContaining("only for local dev against the GitHub stand-in") });
  });

  it.each(["https://git.example.com", "http://127.0.0.1:9200/acme", "http://user:pw@127.0.0.1:9200", "ftp://127.0.0.1", "not a url"])("refuses %s, naming the variable", (value) => {
    expect(parseGitUpstream(value, STANDIN, true)).toEqual({ ok: false, error: expect.stringMatching(/^GITHUB_GIT_URL must be an http\(s\) origin on loopback/) });
  });
});
