/**
 * Outcomes that say what is true, with real Think turns on the scripted
 * model and GitHub as MSW plays it: a question answered with its sources,
 * an intended behaviour called not a bug with the documentation it rests on,
 * and a bug fixed on the default branch but not released, each in its
 * closing comment and as the issue's `agent-think:<outcome>` label (which
 * replaces an earlier run's). A reproduction the default branch does not
 * show is refused, naming the outcome to report. A pull request's run and a
 * reporter-tier run get no label.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { OutboxEntry } from "../src/report/outbox";
import { sessionName } from "../src/shared/session-name";
import { agentFor, HANG_MS, toolParts, uniqueRepo, until, waitForStatus, type TestAgent } from "./helpers";
import { FakeGitHub, serveGitHub } from "./support/github";

const github = new FakeGitHub();
// Every test is also judged by GitHub's description: none passes on a request it would refuse.
serveGitHub(github);

const TOKEN = "ghs_OUTCOMEStestTOKEN0000000000000000";
const NUMBER = 7;

type ReportingAgent = TestAgent & DurableObjectStub & { notices(): Promise<OutboxEntry[]> };

/** A repository whose runs post no progress comment: the messages here are 🚀, the closing comment and the label. */
function quietRepo(): string {
  const repo = uniqueRepo();
  github.addFile(repo, ".github/agent-think.yml", "version: 1\nprogress: false\n");
  return repo;
}

/** A run of `lines` (the issue's ask, then the scripted model's directives) on issue 7 of `repo`, to its end and its closing comment. */
async function run(repo: string, lines: string[], options: { tier?: "reporter"; pullRequest?: boolean } = {}) {
  const session = sessionName(repo, NUMBER, options.tier);
  const agent = (await agentFor(session, env.ReportingThinkAgent)) as unknown as ReportingAgent;
  const { submissionId } = await agent.startRun({
    session,
    repo,
    issueNumber: NUMBER,
    instruction: [...lines, "TEST: reply done"].join("\n"),
    installationToken: TOKEN,
    commentId: 4242,
    requestedBy: { login: "octocat" },
    ...(options.tier ? { tier: options.tier } : {}),
    ...(options.pullRequest
      ? { pullRequest: { number: NUMBER, headRepo: repo, headRef: "fix-sort", headSha: "a".repeat(40), baseRef: "main", fork: false, author: "octocat" } }
      : {})
  });
  expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
  const closing = await github.closingComment(repo, NUMBER);
  return { agent, closing, tools: toolParts(await agent.transcript()) };
}

/** The outbox once nothing in it is pending any more: what the run owed its issue, delivered or given up. */
async function settled(agent: ReportingAgent): Promise<OutboxEntry[]> {
  return until(async () => {
    const entries = await agent.notices();
    return entries.some((entry) => entry.kind === "closing") && entries.every((entry) => entry.state !== "pending") ? entries : undefined;
  }, "the outbox to settle", { timeoutMs: HANG_MS });
}

const result = (value: object) => `TEST: result-json ${JSON.stringify(value)}`;
const labelCalls = (repo: string) => github.callsFor(repo).filter((call) => call.path.includes("/labels"));

describe("outcomes that say what is true", () => {
  it("answers a question with the answer and its sources, and labels the issue answered", async () => {
    const repo = quietRepo();
    const { agent, closing } = await run(repo, [
      "Is there a way to accept unknown keys? It would be a nice option.",
      "TEST: run echo reading the options",
      result({
        outcome: "answered",
        summary: "Yes: unknown keys are accepted with `strict: false`.",
        answer: "Call `parse(input, { strict: false })`; it has been there since 2.0.",
        sources: [{ where: "docs/options.md:12-14", says: "strict: reject unknown keys (default true)." }]
      })
    ]);
    expect(closing).toContain("@octocat\n\n### 💡 Answered\n\nYes: unknown keys are accepted with `strict: false`.\n\n**Answer**\n\nCall `parse(input, { strict: false })`; it has been there since 2.0.");
    expect(closing).toContain("**Sources**\n- `docs/options.md:12-14`: strict: reject unknown keys (default true).");
    const entries = await settled(agent);
    expect(entries.map((entry) => [entry.kind, entry.state])).toEqual([["rocket", "sent"], ["closing", "sent"], ["label", "sent"]]);
    expect(github.labels(repo, NUMBER)).toEqual(["agent-think:answered"]);
    // Listed, then added: the issue had no earlier outcome to take off.
    expect(labelCalls(repo).map((call) => `${call.method} ${call.path}`)).toEqual([`GET /repos/${repo}/issues/${NUMBER}/labels`, `POST /repos/${repo}/issues/${NUMBER}/labels`]);
    expect(labelCalls(repo).every((call) => call.auth === `token ${TOKEN}`)).toBe(true);
  });

  it("calls an intended behaviour not a bug, citing the documentation and proposing its fix, and replaces an earlier run's label", async () => {
    const repo = quietRepo();
    github.setLabels(repo, NUMBER, ["bug", "agent-think:reproduced"]);
    const { agent, closing } = await run(repo, [
      "equal() says two objects with different prototypes are equal. Bug?",
      "TEST: run echo comparing the prototypes",
      result({
        outcome: "not-a-bug",
        summary: "Works as intended: only own enumerable properties are compared.",
        steps: ["node -e \"console.log(equal(Object.create({a:1}), {}))\""],
        evidence: "src/equal.ts skips inherited keys on purpose; the README does not say so.",
        docFix: "README.md, Usage: add that only own enumerable properties are compared.",
        sources: [{ where: "src/equal.ts:40-44", says: "The loop is guarded by hasOwnProperty." }]
      })
    ]);
    expect(closing).toContain("### 📘 Not a bug\n\nWorks as intended: only own enumerable properties are compared.");
    expect(closing).toContain("**Evidence:** src/equal.ts skips inherited keys on purpose; the README does not say so.");
    expect(closing).toContain("**Proposed documentation fix**\n\nREADME.md, Usage: add that only own enumerable properties are compared.");
    expect(closing).toContain("**Sources**\n- `src/equal.ts:40-44`: The loop is guarded by hasOwnProperty.");
    await settled(agent);
    // The maintainers' own label stays; the earlier outcome gives way to this one.
    expect(github.labels(repo, NUMBER)).toEqual(["bug", "agent-think:not-a-bug"]);
    expect(labelCalls(repo).map((call) => call.method)).toEqual(["GET", "POST", "DELETE"]);
  });

  it("refuses a reproduction the default branch does not show, and reports it fixed upstream: the release, the branch and the fixing commit", async () => {
    const repo = quietRepo();
    const seen = { outcome: "reproduced", summary: "It throws on empty input.", steps: ["npm i app@4.2.1 && node repro.mjs"], evidence: "The README says empty input gives []." };
    const versions = [
      { version: "4.2.1", source: "reporter", showed: true },
      { version: "4.3.0", source: "latest-release", showed: true },
      { version: "main at 1a2b3c4", source: "default-branch", showed: false }
    ];
    const sha = "9f8e7d6c5b4a39281706f5e4d3c2b1a098765432";
    const { agent, closing, tools } = await run(repo, [
      "parse('') throws in 4.2.1",
      result({ ...seen, versions }),
      result({
        ...seen,
        outcome: "fixed-upstream",
        summary: "Fixed on main, not released yet: 4.3.0 still throws.",
        versions,
        upstream: { failsOn: "4.3.0", passesOn: "main at 1a2b3c4", fixedBy: { commit: sha, subject: "Handle empty input", foundWith: "git bisect" } }
      })
    ]);
    // The tool answered the first call with the rule, and recorded the second.
    const reports = tools.filter((part) => part.type === "tool-report_result");
    expect(reports).toHaveLength(2);
    // (The message is quoted inside the tool's JSON error, its quotes escaped.)
    expect(reports[0]).toMatchObject({ state: "output-error", errorText: expect.stringMatching(/the default branch does not show it: report \\"fixed-upstream\\" with `upstream`/) });
    expect(reports[1]).toMatchObject({ state: "output-available", output: { recorded: true } });
    expect(closing).toContain("### ⬆️ Fixed upstream\n\nFixed on main, not released yet: 4.3.0 still throws.");
    expect(closing).toContain(
      `**Upstream:** fails on \`4.3.0\` and passes on \`main at 1a2b3c4\`. Fixed by [\`9f8e7d6\`](https://github.test/${repo}/commit/${sha}) (found with \`git bisect\`): Handle empty input`
    );
    expect(closing).toContain(
      "**Versions tried**\n- `4.2.1` (the reporter's version): shows it\n- `4.3.0` (the latest release): shows it\n- `main at 1a2b3c4` (the default branch): does not show it"
    );
    expect(closing).not.toContain("### ✅ Reproduced");
    await settled(agent);
    expect(github.labels(repo, NUMBER)).toEqual(["agent-think:fixed-upstream"]);
  });

  it("labels nothing for a pull request's run, nor for the issue author's reporter-tier run", async () => {
    const onPull = quietRepo();
    const pull = await run(onPull, ["look at this", result({ outcome: "not-a-bug", summary: "Intended.", evidence: "README.md says so.", sources: [{ where: "README.md:3", says: "Intended." }] })], {
      pullRequest: true
    });
    expect(pull.closing).toContain("### 📘 Not a bug");
    expect((await settled(pull.agent)).map((entry) => entry.kind)).not.toContain("label");

    const reported = quietRepo();
    const reporter = await run(reported, ["reproduce this issue", "TEST: result reproduced Scripted."], { tier: "reporter" });
    expect(reporter.closing).toContain("### ✅ Reproduced");
    expect((await settled(reporter.agent)).map((entry) => entry.kind)).not.toContain("label");
    expect([...labelCalls(onPull), ...labelCalls(reported)]).toEqual([]);
  });
});
