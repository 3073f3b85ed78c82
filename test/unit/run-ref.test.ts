/** runRefFor (src/report/run-ref.ts): where a run's messages go, and the first line's facts from the submission's metadata. */
import { describe, expect, it } from "vitest";
import { runRefFor } from "../../src/report/run-ref";

const base = { run: { repo: "acme/widgets", issueNumber: 7 }, submissionId: "sub-1", session: "acme-widgets-7", publicBaseUrl: "https://bot.test" };

describe("runRefFor", () => {
  it("names the issue, the thread page and the hosts a comment may link to, on the deploy's GitHub", () => {
    expect(runRefFor({ ...base, githubApiUrl: "https://ghe.example.com/api/v3" })).toEqual({
      repo: "acme/widgets",
      issueNumber: 7,
      submissionId: "sub-1",
      threadUrl: "https://bot.test/thread/acme-widgets-7",
      publicBaseUrl: "https://bot.test",
      githubWebUrl: "https://ghe.example.com"
    });
    // A GitHub it cannot parse links to no GitHub, and never throws: the closing path depends on it.
    expect(runRefFor({ ...base, githubApiUrl: "not a url" }).githubWebUrl).toBe("");
  });

  it("gives the App's bot's handle for continuing from GitHub, and none for a login that is not a bot's", () => {
    const ref = (botLogin?: string) => runRefFor({ ...base, githubApiUrl: "https://api.github.com", ...(botLogin ? { botLogin } : {}) });
    expect(ref("my-triage-bot[bot]").continueHandle).toBe("@my-triage-bot");
    expect(ref("octocat")).not.toHaveProperty("continueHandle");
    expect(ref("[bot]")).not.toHaveProperty("continueHandle");
    expect(ref()).not.toHaveProperty("continueHandle");
  });

  it("reads who asked and where a continuation came from, and nothing malformed", () => {
    const at = (metadata: Record<string, unknown>) => runRefFor({ ...base, githubApiUrl: "https://api.github.com", metadata });
    expect(at({ requestedBy: "alice", continuation: true })).toMatchObject({ requestedBy: "alice", continued: true });
    expect(at({ continuation: true })).not.toHaveProperty("continuedFrom");
    expect(at({ continuation: true, fromGitHub: { login: "bob" } })).toMatchObject({ continued: true, continuedFrom: "github" });
    expect(at({ requestedBy: 42, continuation: "yes", fromGitHub: { login: "bob" } })).not.toHaveProperty("requestedBy");
    expect(at({ continuation: "yes" })).not.toHaveProperty("continued");
    expect(at({ tier: "reporter" })).toMatchObject({ tier: "reporter" });
    expect(at({ tier: "maintainer" })).not.toHaveProperty("tier");
    const headSha = "c".repeat(40);
    expect(at({ ci: { headSha, failures: [{ name: "test", conclusion: "failure" }, { name: "lint", conclusion: "timed_out" }] } })).toMatchObject({ ci: { headSha, checks: ["test", "lint"] } });
    expect(at({ ci: { headSha: "nope", failures: [] } })).not.toHaveProperty("ci");
  });
});
