import { describe, expect, it } from "vitest";
import { githubHealth } from "../../src/health/github";

describe("githubHealth", () => {
  it.each([
    ["https://api.github.com", "posts to github.com"],
    ["https://api.octo.ghe.com", "posts to GHE.com at octo.ghe.com"],
    ["https://ghe.example.com/api/v3", "posts to GitHub Enterprise Server at ghe.example.com"]
  ])("names the GitHub %s is", (url, detail) => {
    expect(githubHealth({ GITHUB_API_URL: url })).toEqual({ id: "github", label: "GitHub API", status: "ok", detail });
  });

  it("blocks a URL that names no GitHub, with the parser's reason and the accepted forms", () => {
    const check = githubHealth({ GITHUB_API_URL: "https://github.example.com/api" });
    expect(check.status).toBe("block");
    expect(check.detail).toContain('GITHUB_API_URL must be https://api.github.com');
    expect(check.detail).toContain('"https://github.example.com/api"');
    expect(check.fix).toMatch(/^set GITHUB_API_URL to /);
  });

  it("never shows credentials put in the URL", () => {
    const check = githubHealth({ GITHUB_API_URL: "https://user:hunter2-secret@api.github.com" });
    expect(check.status).toBe("block");
    expect(JSON.stringify(check)).not.toContain("hunter2-secret");
  });

  it("warns that an empty URL posts nothing, with the stand-in as the local fix", () => {
    expect(githubHealth({ GITHUB_API_URL: "" })).toMatchObject({ status: "warn", detail: expect.stringContaining("post nothing") });
    expect(githubHealth({ GITHUB_API_URL: " ", LOCAL_DEV: "1" }).fix).toContain("npm start");
  });

  it("accepts a loopback stand-in in local dev and blocks it in a deploy", () => {
    expect(githubHealth({ GITHUB_API_URL: "http://127.0.0.1:8790", LOCAL_DEV: "1" })).toMatchObject({
      status: "ok",
      detail: "posts to a local GitHub stand-in at 127.0.0.1:8790"
    });
    expect(githubHealth({ GITHUB_API_URL: "http://localhost:8790/api/v3" })).toMatchObject({ status: "block", detail: expect.stringContaining("loopback") });
  });
});
