/**
 * A run on a repository whose rules require signed commits, through real Think turns on the
 * scripted model and the recording container, with the GitHub stand-in as its GitHub (every
 * REST and GraphQL call forwarded to it, judged by GitHub's REST description and GraphQL schema,
 * and recorded): the run learns before its clone that its commits must be signed, the gateway
 * is granted no push, a `git push` is answered with what to do instead and never reaches the
 * container, and `open_pull_request`
 * makes each local commit on the branch through `createCommitOnBranch` (the branch created at
 * the base first), then opens the pull request: the stand-in records the commits as made through
 * the API, with a binary file, a large one, a deletion and a rename. When GitHub refuses a commit
 * (the branch moved), the model is told what GitHub refused, and no pull request is opened.
 * The container's git is played by the recording container: the plan script's files are put in
 * the workspace as its sync would bring them (test/unit/api-commits.test.ts runs the real scripts
 * on a real clone).
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { bypass, http } from "msw";
import { setupServer } from "msw/node";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import type { ThinkAgent } from "../src/agent";
import { exchangeDir, API_COMMIT_DIRS } from "../src/run/api-commit-scripts";
import { sessionName } from "../src/shared/session-name";
import { agentFor, captureConsole, toolParts, uniqueRepo, until, waitForStatus, type TestAgent } from "./helpers";
import { containerFor, type RecordingContainer } from "./support/containers";
import { TEST_GITHUB_API_URL } from "./worker";

const STANDIN = inject("githubStandin");
const GITHUB = new URL(TEST_GITHUB_API_URL).origin;
const token = () => `ghs_verifiedCommits${crypto.randomUUID().replaceAll("-", "")}`;
const X = exchangeDir(API_COMMIT_DIRS);
const [BASE, L1, L2, OTHER, MOVED] = ["b", "1", "2", "e", "f"].map((digit) => digit.repeat(40)) as [string, string, string, string, string];
const ZERO = "0".repeat(40);
const blob = (digit: string) => digit.repeat(40).replace(/^./, "a");

// The Worker's GitHub (https://github.test/api/v3 and /api/graphql) is the stand-in, one request at a time, as sent.
const server = setupServer(
  http.all(`${GITHUB}/api/*`, async ({ request }) => {
    const url = new URL(request.url);
    const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
    const headers = new Headers(request.headers);
    headers.delete("content-length");
    const answer = await fetch(bypass(new Request(`${STANDIN}${url.pathname}${url.search}`, { method: request.method, headers, body })));
    return new Response(await answer.arrayBuffer(), { status: answer.status, headers: answer.headers });
  })
);
beforeAll(() => server.listen({ onUnhandledRequest: "error" }));
afterAll(() => server.close());

const standin = async (method: string, path: string, body?: unknown, token?: string) => {
  const headers: Record<string, string> = { "content-type": "application/json", ...(token ? { authorization: `token ${token}` } : {}) };
  const answer = await fetch(bypass(`${STANDIN}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }));
  return answer.status === 204 ? null : ((await answer.json()) as Record<string, unknown>);
};

type StandinRecord = { method: string; path: string; body: unknown; operation?: string; refused?: { status: number; message: string } };
const recordsOf = async (repo: string) => ((await standin("GET", "/_standin/records")) as { records: StandinRecord[] }).records.filter((record) => JSON.stringify(record).includes(repo));
const apiCommitsOf = async (repo: string) =>
  ((await standin("GET", "/_standin/api-commits")) as { commits: Array<{ repo: string; branch: string; parent: string; headline: string; body: string; signed: boolean; additions: Array<{ path: string; contents: string }>; deletions: Array<{ path: string }> }> }).commits.filter(
    (commit) => commit.repo === repo
  );

/** An issue on the stand-in, opened by a maintainer; its default branch at BASE, and its push branch's rules requiring signed commits. */
async function repository(options: { branchAt?: string } = {}) {
  const repo = uniqueRepo();
  const issue = (await standin("POST", `/api/v3/repos/${repo}/issues`, { title: "sum(2, 2) is 5" }, "ghp_maintainer")) as { number: number };
  const branch = `agent-think/issue-${issue.number}`;
  await standin("POST", "/_standin/branches", { repo, branch: "main", sha: BASE });
  if (options.branchAt) await standin("POST", "/_standin/branches", { repo, branch, sha: options.branchAt });
  await standin("POST", "/_standin/rules", { repo, branches: [branch], rules: [{ type: "required_signatures" }] });
  return { repo, number: issue.number, branch, session: sessionName(repo, issue.number) };
}

const raw = (...records: Array<[string, string]>) => Buffer.concat(records.flatMap(([meta, path]) => [Buffer.from(`${meta}\0${path}\0`)]));
const commitObject = (parent: string, message: string) => `tree ${OTHER}\nparent ${parent}\nauthor agent-think[bot] <1+agent-think[bot]@users.noreply.github.com> 1 +0000\ncommitter agent-think[bot] <1+agent-think[bot]@users.noreply.github.com> 1 +0000\n\n${message}`;

/** What the plan script leaves in the exchange directory, as the container's sync brings it to the workspace. */
async function planFiles(session: string, files: Record<string, string | Uint8Array>) {
  const agent = await agentFor(session, env.ReportingThinkAgent);
  await runInDurableObject(agent as unknown as DurableObjectStub<ThinkAgent>, async (instance) => {
    for (const [name, content] of Object.entries(files)) {
      const path = `${X}/${name}`;
      await instance.workspace.fs.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
      await instance.workspace.fs.writeFile(path, typeof content === "string" ? new TextEncoder().encode(content) : content);
    }
  });
}

function answerScripts(container: RecordingContainer) {
  container.answer(/agent-think commits: plan/, { exitCode: 0, stdout: "commits=2\n" });
  container.answer(/agent-think commits: sync/, { exitCode: 0 });
  container.answer(/agent-think commits: cleanup/, { exitCode: 0 });
}

/** One run to its very end: its token revoked on the stand-in, the last thing a run does once its comments settled. */
async function run(target: { repo: string; number: number; session: string }, lines: string[]) {
  const agent = await agentFor(target.session, env.ReportingThinkAgent);
  const installationToken = token();
  const { result, lines: logged } = await captureConsole(async () => {
    const { submissionId } = await agent.startRun({ session: target.session, repo: target.repo, issueNumber: target.number, instruction: lines.join("\n"), installationToken, commentId: Math.floor(Math.random() * 1e9), requestedBy: { login: "octocat" } });
    return waitForStatus(agent, submissionId, undefined, 30_000);
  });
  await until(async () => ((await standin("GET", "/_standin/revoked")) as { revoked: string[] }).revoked.includes(installationToken), "the run's token revoked");
  return { status: result, logged, tools: toolParts(await agent.transcript()) };
}

describe("a run where the repository requires signed commits", () => {
  it("opens a pull request whose commits the stand-in records as made through the API: binary, large, deleted and renamed files, one API commit per local one", async () => {
    const target = await repository();
    const { container } = await containerFor(target.session);
    answerScripts(container);
    // What the gateway would attach to a push while the model's commands run: nothing, and no branch to push to.
    const pushGrants: Array<{ pushBranch: string | null; writeToken: string }> = [];
    container.during(/git commit -qam fix/, async () => {
      const agent = (await agentFor(target.session, env.ReportingThinkAgent)) as TestAgent;
      pushGrants.push((await agent.egressGrant({ url: `${GITHUB}/${target.repo}.git/git-receive-pack`, method: "POST" })).grant);
    });
    const binary = new Uint8Array([0, 1, 2, 255, 254, 0, 10, 13, ...Array.from({ length: 2048 }, (_, index) => (index * 31) % 256)]);
    const large = new Uint8Array(2 * 1024 * 1024 + 3).map((_, index) => (index * 7919) % 251);
    const text = (value: string) => new TextEncoder().encode(value);
    const sum = text("module.exports = (a, b) => a + b;\n");
    const notes = text("notes, renamed\n");
    await planFiles(target.session, {
      plan: `head ${L2}\nbase ${BASE}\ncommit ${L1} ${BASE}\ncommit ${L2} ${L1}\n`,
      sizes: [`${blob("3")} ${sum.length}`, `${blob("4")} ${binary.length}`, `${blob("5")} ${large.length}`, `${blob("6")} ${notes.length}`].join("\n") + "\n",
      [`commits/${L1}`]: commitObject(BASE, "Add, do not increment\n\nsum(2, 2) was 5.\n"),
      [`changes/${L1}`]: raw([`:100644 100644 ${OTHER} ${blob("3")} M`, "src/sum.js"], [`:000000 100644 ${ZERO} ${blob("4")} A`, "test/fixture.bin"], [`:000000 100644 ${ZERO} ${blob("5")} A`, "test/large.bin"]),
      [`commits/${L2}`]: commitObject(L1, "Tidy the notes\n"),
      [`changes/${L2}`]: raw([`:100644 000000 ${OTHER} ${ZERO} D`, "docs/old.md"], [`:100644 000000 ${OTHER} ${ZERO} D`, "notes.txt"], [`:000000 100644 ${ZERO} ${blob("6")} A`, "NOTES.md"]),
      [`blobs/${blob("3")}`]: sum,
      [`blobs/${blob("4")}`]: binary,
      [`blobs/${blob("5")}`]: large,
      [`blobs/${blob("6")}`]: notes
    });
    const fixed = { outcome: "pr-opened", summary: "sum adds again.", pullRequestUrl: `https://github.com/${target.repo}/pull/2`, changes: ["src/sum.js: a + b"], verification: "The new test passes." };
    const { status, logged, tools } = await run(
      target,
      [
        "open a PR fixing this",
        `TEST: container cd /workspace/repo && git commit -qam fix && git push origin ${target.branch}`,
        "TEST: container cd /workspace/repo && git commit -qam fix",
        `TEST: call open_pull_request ${JSON.stringify({ title: "Add, do not increment", body: `Fixes #${target.number}` })}`,
        `TEST: result-json ${JSON.stringify(fixed)}`,
        "TEST: reply done"
      ]
    );
    expect(status.status).toBe("completed");
    // Decided before the clone: the commits go through the API, because of the rule on the push branch.
    expect(logged.some((line) => line.includes("prepare:commits") && line.includes('"via":"api"'))).toBe(true);
    // The push was answered before it ran, with what to do instead; only the commit reached the container.
    const [pushed, committed, opened] = tools;
    expect(JSON.stringify(pushed!.output)).toContain("refused: `git push` cannot land unsigned commits here");
    expect(JSON.stringify(committed!.output)).not.toContain("refused");
    expect(container.runs.some((entry) => entry.script.includes("git push"))).toBe(false);
    expect(pushGrants).toEqual([expect.objectContaining({ pushBranch: null, writeToken: "" })]);
    expect(opened!.output).toMatchObject({ ok: true, action: "opened", head: target.branch, base: "main", commits: { createdBranch: true, clone: "moved onto the commits GitHub made", made: [{ local: L1, headline: "Add, do not increment" }, { local: L2, headline: "Tidy the notes" }] } });

    // What the stand-in recorded: the branch created at the base, two commits made through the API, then the pull request.
    const made = await apiCommitsOf(target.repo);
    expect(made).toHaveLength(2);
    expect(made[0]).toMatchObject({ branch: target.branch, parent: BASE, headline: "Add, do not increment", body: "sum(2, 2) was 5.", signed: true, deletions: [] });
    const added = new Map(made[0]!.additions.map((addition) => [addition.path, Buffer.from(addition.contents, "base64")]));
    expect(added.get("src/sum.js")!.toString()).toBe("module.exports = (a, b) => a + b;\n");
    expect(added.get("test/fixture.bin")!.equals(Buffer.from(binary))).toBe(true);
    expect(added.get("test/large.bin")!.equals(Buffer.from(large))).toBe(true);
    expect(made[1]).toMatchObject({ headline: "Tidy the notes", deletions: [{ path: "docs/old.md" }, { path: "notes.txt" }], additions: [{ path: "NOTES.md", contents: Buffer.from(notes).toString("base64") }] });
    const records = await recordsOf(target.repo);
    const operations = records.map((record) => record.operation);
    expect(operations.indexOf("git/create-ref")).toBeLessThan(operations.indexOf("graphql mutation createCommitOnBranch"));
    expect(operations.filter((operation) => operation === "graphql mutation createCommitOnBranch")).toHaveLength(2);
    expect(operations.lastIndexOf("graphql mutation createCommitOnBranch")).toBeLessThan(operations.indexOf("pulls/create"));
    expect(records.find((record) => record.operation === "pulls/create")!.body).toMatchObject({ head: target.branch, base: "main", title: "Add, do not increment" });
    expect(records.filter((record) => record.operation === "repos/get-branch-rules").map((record) => decodeURIComponent(record.path.split("/rules/branches/")[1]!))).toEqual([target.branch, "main"]);
    // Everything the Worker sent was something GitHub takes.
    expect(records.filter((record) => record.refused)).toEqual([]);
  });

  it("tells the model what GitHub refused when the branch moved, and opens no pull request", async () => {
    const target = await repository({ branchAt: BASE });
    const { container } = await containerFor(target.session);
    answerScripts(container);
    // Someone pushes to the branch on GitHub while the Worker reads the clone's commits.
    container.during(/agent-think commits: plan/, async () => void (await standin("POST", "/_standin/branches", { repo: target.repo, branch: target.branch, sha: MOVED })));
    const sum = new TextEncoder().encode("module.exports = (a, b) => a + b;\n");
    await planFiles(target.session, {
      plan: `head ${L1}\nbase ${BASE}\ncommit ${L1} ${BASE}\n`,
      sizes: `${blob("3")} ${sum.length}\n`,
      [`commits/${L1}`]: commitObject(BASE, "Add, do not increment\n"),
      [`changes/${L1}`]: raw([`:100644 100644 ${OTHER} ${blob("3")} M`, "src/sum.js"]),
      [`blobs/${blob("3")}`]: sum
    });
    const { status, tools } = await run(
      target,
      [
        "open a PR fixing this",
        `TEST: call open_pull_request ${JSON.stringify({ title: "Add, do not increment", body: `Fixes #${target.number}` })}`,
        `TEST: result-json ${JSON.stringify({ outcome: "no-pr", summary: "GitHub refused the commit: the branch moved." })}`,
        "TEST: reply done"
      ]
    );
    expect(status.status).toBe("completed");
    const opened = tools.find((part) => part.type === "tool-open_pull_request")!;
    expect(opened.output).toEqual({
      ok: false,
      error: `the commits were not made on GitHub: GitHub refused commit 1 of 1 (${L1.slice(0, 7)} "Add, do not increment"): GitHub refused the commit: STALE_DATA: Expected branch to point to "${BASE}" but it did not. Pull and try again.`
    });
    const records = await recordsOf(target.repo);
    expect(records.filter((record) => record.refused).map((record) => record.refused!.message)).toEqual([`STALE_DATA: Expected branch to point to "${BASE}" but it did not. Pull and try again.`]);
    expect(records.some((record) => record.operation === "pulls/create")).toBe(false);
    expect(await apiCommitsOf(target.repo)).toEqual([]);
  });
});
