/**
 * CI follow-ups: a failed check suite or workflow run on the App's own pull
 * request starts one run on it, with the failing checks GitHub lists and
 * their logs' last lines, where CI_FIX_REPOS accepts the repository (the
 * test config says `*`); everything else is a logged 204 that writes
 * nothing. Every delivery is GitHub's published `check_suite.completed` or
 * `workflow_run.completed` example (@octokit/webhooks-examples), changed only
 * where a case needs it (`ciPayload`, scripts/lib/github-delivery.ts:
 * repository, pull request, head, conclusion, time). GitHub is MSW, judged by
 * GitHub's REST description (support/github.ts).
 */
import { env } from "cloudflare:workers";
import { HttpResponse, type HttpResponseResolver } from "msw";
import { beforeEach, describe, expect, it } from "vitest";
import { ciPayload, type CiDeliveryOptions } from "../../scripts/lib/github-delivery";
import { CiFixNotAcceptedError, CiRunInProgressError } from "../../src/shared/ci-refusal";
import { CI_FIX_INSTRUCTION, MAX_CI_EXCERPT_CHARS } from "../../src/shared/dispatch";
import { LOG_EXCERPT_LINES } from "../src/ci-failures";
import { ciMarkerKey } from "../src/http/ci-event";
import { ciExample } from "./support/examples";
import { API, BOT_LOGIN, BOT_USER_ID, contentsAnswer, githubServer, LOG_DOWNLOAD, status, type GitHubCall, type GitHubOverrides } from "./support/github";
import { agentRefusingWith, captureConsole, logEvents, outcome, send, sign, storedState } from "./support/ingress";
import { RecordingAgentThink } from "./worker";

const github = githubServer();
const route = (call: GitHubCall) => `${call.method} ${call.path}`;

const REPO = "acme/widgets";
const REPO_ID = 4242;
/** A fresh pull request per test: its claim counts its follow-ups across the file. */
let PULL = 100;
beforeEach(() => {
  PULL += 1;
});
const BRANCH = "agent-think/issue-12";
let shaCounter = 0;
/** A fresh head commit per test: the claim is once per head. */
const newSha = () => (++shaCounter).toString(16).padStart(8, "0").repeat(5);

const config = (fix: number | string) => contentsAnswer(".github/agent-think.yml", `version: 1\nci:\n  fix: ${fix}\n`);

/** GitHub's "Get a pull request" for the App's own pull request on its branch (the fields the gates read, and a few more). */
const appPull =
  (headSha: string, fields: { author?: string; authorType?: string; state?: string; headRepo?: string; headRef?: string; number?: number } = {}): HttpResponseResolver =>
  () =>
    HttpResponse.json({
      id: 5_000 + PULL,
      number: fields.number ?? PULL,
      state: fields.state ?? "open",
      title: "Fix the parser on empty input",
      body: "Closes #12",
      html_url: `https://github.com/${REPO}/pull/${PULL}`,
      user: { login: fields.author ?? BOT_LOGIN, id: BOT_USER_ID, type: fields.authorType ?? "Bot" },
      head: { label: `acme:${BRANCH}`, ref: fields.headRef ?? BRANCH, sha: headSha, repo: { full_name: fields.headRepo ?? REPO } },
      base: { label: "acme:main", ref: "main", sha: "0".repeat(40), repo: { full_name: REPO } }
    });

const checkRun = (id: number, name: string, conclusion: string, output: { title?: string; summary?: string } = {}) => ({
  id,
  name,
  status: "completed",
  conclusion,
  head_sha: "0".repeat(40),
  html_url: `https://github.com/${REPO}/actions/runs/900/job/${id}`,
  details_url: `https://github.com/${REPO}/actions/runs/900/job/${id}`,
  output: { title: output.title ?? null, summary: output.summary ?? null, text: null, annotations_count: 0, annotations_url: "" }
});
const checkRuns = (...runs: ReturnType<typeof checkRun>[]) => () => HttpResponse.json({ total_count: runs.length, check_runs: runs });

const job = (id: number, name: string, conclusion: string, steps: [string, string][]) => ({
  id,
  run_id: 900,
  name,
  status: "completed",
  conclusion,
  html_url: `https://github.com/${REPO}/actions/runs/900/job/${id}`,
  steps: steps.map(([stepName, stepConclusion], index) => ({ name: stepName, status: "completed", conclusion: stepConclusion, number: index + 1 }))
});
const jobs = (...list: ReturnType<typeof job>[]) => () => HttpResponse.json({ total_count: list.length, jobs: list });

const build = (event: CiDeliveryOptions["event"], headSha: string, options: Partial<CiDeliveryOptions> = {}) =>
  ciPayload({ event, repo: REPO, repositoryId: REPO_ID, pullNumber: PULL, headRef: BRANCH, headSha, installationId: 77, ...options }, ciExample(event));

async function deliver(event: CiDeliveryOptions["event"], payload: unknown, agentEnv: Env = env) {
  const delivery = await sign(payload, { event });
  const before = RecordingAgentThink.calls.length;
  const { result: response, lines } = await captureConsole(() => send(delivery, { env: agentEnv }));
  return { response, lines, events: logEvents(lines), dispatches: RecordingAgentThink.calls.slice(before) };
}

const marker = async (headSha: string) => await env.EVENT_STATE.get(ciMarkerKey(REPO, PULL, headSha), "json");
const writes = () => github.calls.filter((call) => call.method !== "GET" && !call.path.endsWith("/access_tokens"));

/** The App's pull request on `headSha`, `ci.fix` as given, and the failing checks. */
const onTheAppsPull = (headSha: string, overrides: GitHubOverrides = {}, fix: number | string = 2) =>
  github.use({
    pull: appPull(headSha),
    contents: config(fix),
    checkRuns: checkRuns(
      checkRun(31, "test (ubuntu-latest)", "failure", { title: "1 test failed", summary: "parses empty input" }),
      checkRun(32, "lint", "success"),
      checkRun(33, "e2e", "timed_out")
    ),
    jobs: jobs(job(41, "build", "failure", [["Set up job", "success"], ["Run npm test", "failure"], ["Post", "skipped"]]), job(42, "docs", "success", [])),
    ...overrides
  });

describe("a failed check suite on the App's own pull request", () => {
  it("starts one run on the pull request with the failing check runs, their pages, summaries and log excerpts", async () => {
    const sha = newSha();
    onTheAppsPull(sha);
    const { response, dispatches, lines } = await deliver("check_suite", build("check_suite", sha));

    expect(response.status).toBe(202);
    expect(outcome(response)).toBe("accepted");
    expect(dispatches).toHaveLength(1);
    const input = dispatches[0]!;
    expect(input).toMatchObject({
      repo: REPO,
      issueNumber: PULL,
      instruction: CI_FIX_INSTRUCTION,
      bot: { login: BOT_LOGIN, id: BOT_USER_ID },
      pullRequest: { number: PULL, headRepo: REPO, headRef: BRANCH, headSha: sha, baseRef: "main", fork: false, author: BOT_LOGIN },
      issueTitle: "Fix the parser on empty input"
    });
    // Nobody asked: no comment to deduplicate by or react on, nobody to mention.
    expect(input.commentId).toBeUndefined();
    expect(input.requestedBy).toBeUndefined();
    expect(input.ci?.headSha).toBe(sha);
    expect(input.ci?.failures.map(({ name, conclusion, url, summary }) => ({ name, conclusion, url, summary }))).toEqual([
      { name: "test (ubuntu-latest)", conclusion: "failure", url: `https://github.com/${REPO}/actions/runs/900/job/31`, summary: "1 test failed\nparses empty input" },
      { name: "e2e", conclusion: "timed_out", url: `https://github.com/${REPO}/actions/runs/900/job/33`, summary: undefined }
    ]);
    // Actions' check runs are its jobs: each log's last lines, without GitHub's timestamps and colours.
    const excerpt = input.ci!.failures[0]!.excerpt!;
    expect(excerpt.split("\n")).toHaveLength(LOG_EXCERPT_LINES);
    expect(excerpt.split("\n").slice(-3)).toEqual(["FAIL test/parser.test.ts > parses empty input", "Error: expected [] to equal undefined", "##[error]Process completed with exit code 1."]);
    expect(excerpt).not.toMatch(/2026-12-02T|\u001b/);
    expect(excerpt.split("\n")[0]).toBe("job 31 line 40");

    const routes = github.calls.map(route);
    expect(routes).toEqual(
      expect.arrayContaining([
        `GET /repos/${REPO}/pulls/${PULL}`,
        `GET /repos/${REPO}/contents/.github%2Fagent-think.yml`,
        `GET /repos/${REPO}/check-suites/118578147/check-runs`,
        `GET /repos/${REPO}/actions/jobs/31/logs`,
        `GET /repos/${REPO}/actions/jobs/33/logs`,
        "GET /job-logs/31"
      ])
    );
    // The pull request and the config are read before the answer with the token the run gets; checks and logs after it
    // with one that may read only them, which the run never gets.
    const mints = github.calls.filter((call) => call.path.endsWith("/access_tokens")).map((call) => (call.body as { permissions: unknown }).permissions);
    expect(mints).toEqual([
      { issues: "write", contents: "write", pull_requests: "write", metadata: "read" },
      { checks: "read", actions: "read", metadata: "read" }
    ]);
    const readToken = github.minted[1]!;
    expect(github.calls.filter((call) => call.path.includes("/check-suites/") || call.path.includes("/actions/")).map((call) => call.authorization)).toEqual(
      Array(3).fill(`token ${readToken}`)
    );
    expect(input.installationToken).toBe(github.minted[0]);
    // The signed download address gets no token; nothing is posted, nothing reacted.
    expect(github.calls.filter((call) => call.path.startsWith("/job-logs/")).map((call) => call.authorization)).toEqual(["", ""]);
    expect(writes()).toEqual([]);
    expect(await marker(sha)).toMatchObject({ state: "dispatched", repo: REPO, issueNumber: PULL, ciEvent: "check_suite", headSha: sha, session: `acme-widgets-${PULL}` });
    for (const token of github.minted) expect(lines.join("\n")).not.toContain(token);
  });

  it("starts nothing for the same head's workflow_run: one run per head, whichever event comes first", async () => {
    const sha = newSha();
    onTheAppsPull(sha);
    expect((await deliver("check_suite", build("check_suite", sha))).dispatches).toHaveLength(1);
    const again = await deliver("workflow_run", build("workflow_run", sha));
    expect(again.response.status).toBe(204);
    expect(outcome(again.response)).toBe("ignored:duplicate");
    expect(again.dispatches).toEqual([]);
    // The same suite redelivered is the same head too.
    expect(outcome((await deliver("check_suite", build("check_suite", sha))).response)).toBe("ignored:duplicate");
  });

  it("starts one run for many concurrent deliveries of one head, check suites and workflow runs mixed", async () => {
    const sha = newSha();
    onTheAppsPull(sha);
    const before = RecordingAgentThink.calls.length;
    const responses = await Promise.all(
      Array.from({ length: 12 }, async (_, index) => {
        const event = index % 2 === 0 ? "check_suite" : "workflow_run";
        return await send(await sign(build(event, sha), { event }));
      })
    );
    expect(responses.filter((response) => response.status === 202)).toHaveLength(1);
    expect(responses.filter((response) => outcome(response) === "ignored:duplicate")).toHaveLength(11);
    expect(RecordingAgentThink.calls.slice(before).filter((call) => call.ci?.headSha === sha)).toHaveLength(1);
  });

  it("stops at ci.fix follow-ups per pull request, whatever their heads", async () => {
    const [first, second, third] = [newSha(), newSha(), newSha()];
    onTheAppsPull(first, {}, 2);
    expect((await deliver("check_suite", build("check_suite", first))).dispatches).toHaveLength(1);
    github.reset();
    onTheAppsPull(second, {}, 2);
    expect((await deliver("workflow_run", build("workflow_run", second))).dispatches).toHaveLength(1);
    github.reset();
    onTheAppsPull(third, {}, 2);
    const { response, dispatches, events } = await deliver("check_suite", build("check_suite", third));
    expect(outcome(response)).toBe("ignored:ci_fix_limit");
    expect(dispatches).toEqual([]);
    expect(events).toContainEqual(expect.objectContaining({ event: "delivery:ignored", reason: "ci_fix_limit", count: 2, limit: 2 }));
    expect(await marker(third)).toBeNull();
  });
});

describe("a failed workflow run on the App's own pull request", () => {
  it("starts a run with its failing jobs, their failed steps and log excerpts", async () => {
    const sha = newSha();
    onTheAppsPull(sha);
    const { response, dispatches } = await deliver("workflow_run", build("workflow_run", sha, { id: 900, name: "CI" }));
    expect(response.status).toBe(202);
    const failures = dispatches[0]?.ci?.failures ?? [];
    expect(failures.map(({ excerpt: _, ...rest }) => rest)).toEqual([
      { name: "build", conclusion: "failure", url: `https://github.com/${REPO}/actions/runs/900/job/41`, summary: "failed steps: Run npm test" }
    ]);
    expect(failures[0]?.excerpt?.split("\n").at(-1)).toBe("##[error]Process completed with exit code 1.");
    expect(github.calls.map(route)).toEqual(expect.arrayContaining([`GET /repos/${REPO}/actions/runs/900/jobs`, `GET /repos/${REPO}/actions/jobs/41/logs`]));
    expect(await marker(sha)).toMatchObject({ state: "dispatched", ciEvent: "workflow_run" });
  });

  it("still starts when a log cannot be read or GitHub will not list the jobs: a note, or the run itself as the failure", async () => {
    const sha = newSha();
    onTheAppsPull(sha, { jobLogs: status(410, "Gone") });
    const noLog = await deliver("workflow_run", build("workflow_run", sha, { id: 900 }));
    expect(noLog.dispatches[0]?.ci?.failures[0]).toMatchObject({ name: "build", excerpt: "[the webhook app could not read this job's log from GitHub]" });
    expect(noLog.events).toContainEqual(expect.objectContaining({ event: "ci:log-unreadable", jobId: 41 }));

    github.reset();
    const other = newSha();
    onTheAppsPull(other, { jobs: status(500, "boom") });
    const noJobs = await deliver("workflow_run", build("workflow_run", other, { id: 901, name: "CI", conclusion: "startup_failure" }));
    expect(noJobs.dispatches[0]?.ci?.failures).toEqual([
      { name: "CI", conclusion: "startup_failure", url: `https://github.com/${REPO}/actions/runs/901`, summary: "GitHub did not list which checks failed; read them on the pull request." }
    ]);
  });

  it("still starts when the App may not read checks and actions: the run itself as the failure, with a note", async () => {
    const sha = newSha();
    const refuseCiMint: HttpResponseResolver = async ({ request }) => {
      const asked = (await request.clone().json()) as { permissions: Record<string, string> };
      if (asked.permissions.checks) return HttpResponse.json({ message: "The permissions requested are not granted to this installation." }, { status: 422 });
      return HttpResponse.json({ token: `ghs_${crypto.randomUUID().replaceAll("-", "")}`, expires_at: new Date(Date.now() + 3_600_000).toISOString() }, { status: 201 });
    };
    onTheAppsPull(sha, { accessToken: refuseCiMint });
    const { dispatches, events } = await deliver("workflow_run", build("workflow_run", sha, { id: 902, name: "CI" }));
    expect(dispatches[0]?.ci?.failures).toEqual([
      expect.objectContaining({ name: "CI", conclusion: "failure", summary: expect.stringContaining("the App needs Checks and Actions: read") })
    ]);
    expect(events).toContainEqual(expect.objectContaining({ event: "ci:token-failed" }));
    expect(github.calls.some((call) => call.path.includes("/actions/"))).toBe(false);
  });

  it("keeps a log excerpt within its bound however long its lines", async () => {
    const sha = newSha();
    const long = `${Array.from({ length: 200 }, (_, line) => `line ${line} ${"x".repeat(200)}`).join("\n")}\n`;
    onTheAppsPull(sha, { logDownload: () => new HttpResponse(long, { headers: { "content-type": "text/plain" } }) });
    const { dispatches } = await deliver("workflow_run", build("workflow_run", sha, { id: 900 }));
    const excerpt = dispatches[0]?.ci?.failures[0]?.excerpt ?? "";
    expect(excerpt.length).toBeLessThanOrEqual(MAX_CI_EXCERPT_CHARS);
    expect(excerpt.endsWith(`line 199 ${"x".repeat(200)}`)).toBe(true);
  });
});

describe("what starts no CI follow-up, writing nothing", () => {
  const cases: [string, CiDeliveryOptions["event"], Partial<CiDeliveryOptions>, string, GitHubOverrides?][] = [
    ["a success", "check_suite", { conclusion: "success" }, "ci_not_failed"],
    ["a neutral suite", "check_suite", { conclusion: "neutral" }, "ci_not_failed"],
    ["a cancelled run", "workflow_run", { conclusion: "cancelled" }, "ci_not_failed"],
    ["a skipped run", "workflow_run", { conclusion: "skipped" }, "ci_not_failed"],
    ["a repository not on ALLOWED_REPOS", "check_suite", { repo: "mallory/widgets" }, "repo_not_allowed"],
    ["a day-old suite", "check_suite", { updatedAt: new Date(Date.now() - 25 * 3_600_000).toISOString() }, "stale_delivery"],
    ["a fork's check suite", "check_suite", { fork: { repo: "mallory/widgets", id: 666 } }, "fork"],
    ["a fork's workflow run", "workflow_run", { fork: { repo: "mallory/widgets", id: 666 } }, "fork"],
    ["a branch that is not the App's", "check_suite", { headRef: "feature/parser" }, "not_app_branch"],
    ["a branch that only looks like the App's", "workflow_run", { headRef: "agent-think/issue-012" }, "not_app_branch"],
    ["a pull request a person opened", "check_suite", {}, "not_app_pull_request", { pull: "author:octocat" as unknown as HttpResponseResolver }],
    ["a pull request another App's bot opened", "workflow_run", {}, "not_app_pull_request", { pull: "author:dependabot[bot]" as unknown as HttpResponseResolver }],
    ["a closed pull request", "check_suite", {}, "pull_closed", { pull: "state:closed" as unknown as HttpResponseResolver }],
    ["a pull request GitHub says is a fork's", "check_suite", {}, "fork", { pull: "headRepo:mallory/widgets" as unknown as HttpResponseResolver }],
    ["a pull request that moved on to a newer head", "workflow_run", {}, "outdated_head", { pull: "newer" as unknown as HttpResponseResolver }],
    ["a repository without .github/agent-think.yml", "check_suite", {}, "ci_off", { contents: status(404, "Not Found") }],
    ["ci.fix: 0", "workflow_run", {}, "ci_off", { contents: config(0) }],
    ["a config that does not parse", "check_suite", {}, "repo_config_invalid", { contents: config("lots") }],
    ["a config GitHub will not give", "check_suite", {}, "ci_off", { contents: status(500, "boom") }]
  ];

  it.each(cases)("%s (%s)", async (_name, event, options, reason, overrides = {}) => {
    const sha = newSha();
    // The pull request's answer, varied by a short spec: who opened it, its state, its head.
    const spec = overrides.pull as unknown as string | undefined;
    const pull =
      spec === undefined
        ? appPull(sha)
        : spec.startsWith("author:")
          ? appPull(sha, { author: spec.slice(7), authorType: spec.endsWith("[bot]") ? "Bot" : "User" })
          : spec === "state:closed"
            ? appPull(sha, { state: "closed" })
            : spec.startsWith("headRepo:")
              ? appPull(sha, { headRepo: spec.slice(9) })
              : appPull(newSha());
    onTheAppsPull(sha, { ...overrides, pull });
    const before = await storedState();
    const { response, dispatches, events } = await deliver(event, build(event, sha, options));
    expect(response.status).toBe(204);
    expect(outcome(response)).toBe(`ignored:${reason}`);
    expect(events).toContainEqual(expect.objectContaining({ event: "delivery:ignored", reason }));
    expect(dispatches).toEqual([]);
    expect(await storedState()).toEqual(before);
    expect(writes()).toEqual([]);
    // A payload that already says no asks GitHub nothing.
    if (["ci_not_failed", "repo_not_allowed", "stale_delivery", "fork", "not_app_branch"].includes(reason) && spec === undefined) expect(github.calls).toEqual([]);
  });

  it("answers 502 when GitHub will not describe the pull request, so a redelivery can try again", async () => {
    const sha = newSha();
    onTheAppsPull(sha, { pull: status(502, "unicorn") });
    const before = await storedState();
    const { response, events } = await deliver("check_suite", build("check_suite", sha));
    expect(response.status).toBe(502);
    expect(outcome(response)).toBe("pull_check_failed");
    expect(events).toContainEqual(expect.objectContaining({ event: "ci:pull-failed" }));
    expect(await storedState()).toEqual(before);
  });

  it("ignores a check suite that is only requested", async () => {
    const payload = { ...build("check_suite", newSha()), action: "requested" };
    github.use();
    const { response } = await deliver("check_suite", payload);
    expect(outcome(response)).toBe("ignored:action");
    expect(github.calls).toEqual([]);
  });
});

describe("CI_FIX_REPOS: only where the operator accepts CI follow-ups", () => {
  const withCiFixRepos = (value: string): Env => ({ ...env, CI_FIX_REPOS: value });

  it.each([
    ["empty", ""],
    ["another repository", "acme/gadgets"],
    ["a look-alike", "acme/widgets-fork, acme2/widgets"]
  ])("%s: the App's pull request's failed CI starts nothing, whatever ci.fix says, and GitHub is asked nothing", async (_name, value) => {
    const sha = newSha();
    onTheAppsPull(sha, {}, 3);
    const before = await storedState();
    const { response, dispatches, events } = await deliver("check_suite", build("check_suite", sha), withCiFixRepos(value));
    expect(response.status).toBe(204);
    expect(outcome(response)).toBe("ignored:ci_fix_not_accepted");
    expect(events).toContainEqual(
      expect.objectContaining({ event: "delivery:ignored", reason: "ci_fix_not_accepted", repo: REPO, issueNumber: PULL, headSha: sha, why: "CI_FIX_REPOS does not list this repository" })
    );
    expect(dispatches).toEqual([]);
    // No token, no pull request, no config read: nothing was asked, nothing written, nothing posted.
    expect(github.calls).toEqual([]);
    expect(await storedState()).toEqual(before);
    expect(await marker(sha)).toBeNull();
  });

  it.each([
    ["listed, in another case", "acme/gadgets, Acme/Widgets"],
    ["*", " * "]
  ])("%s: the follow-up starts", async (_name, value) => {
    const sha = newSha();
    onTheAppsPull(sha);
    const { response, dispatches } = await deliver("workflow_run", build("workflow_run", sha), withCiFixRepos(value));
    expect(outcome(response)).toBe("accepted");
    expect(dispatches).toMatchObject([{ repo: REPO, issueNumber: PULL, ci: { headSha: sha } }]);
    expect(await marker(sha)).toMatchObject({ state: "dispatched" });
  });

  it("* accepts no repository ALLOWED_REPOS leaves out", async () => {
    const sha = newSha();
    onTheAppsPull(sha);
    const { response } = await deliver("check_suite", build("check_suite", sha, { repo: "mallory/widgets" }), withCiFixRepos("*"));
    expect(outcome(response)).toBe("ignored:repo_not_allowed");
    expect(github.calls).toEqual([]);
  });

  it("a value that is neither * nor a list refuses every delivery as a config error, naming the variable", async () => {
    for (const value of ["*, acme/widgets", "acme", "all"]) {
      const sha = newSha();
      onTheAppsPull(sha);
      const { response, events } = await deliver("check_suite", build("check_suite", sha), withCiFixRepos(value));
      expect(response.status).toBe(500);
      expect(outcome(response)).toBe("config_error");
      expect(events).toContainEqual(expect.objectContaining({ event: "config:invalid", variable: "CI_FIX_REPOS" }));
    }
    expect(github.calls).toEqual([]);
  });
});

describe("a CI follow-up the agent refuses", () => {
  it("because its own CI_FIX_REPOS does not accept the repository: marked refused, ci_fix_not_accepted, nothing posted", async () => {
    const sha = newSha();
    onTheAppsPull(sha);
    const { response, dispatches, events } = await deliver("check_suite", build("check_suite", sha), agentRefusingWith(() => new CiFixNotAcceptedError(REPO).message));
    expect(response.status).toBe(202);
    expect(dispatches).toHaveLength(1);
    expect(events).toContainEqual(expect.objectContaining({ event: "delivery:refused", reason: "ci_fix_not_accepted" }));
    expect(await marker(sha)).toMatchObject({ state: "refused", reason: "ci_fix_not_accepted" });
    expect(writes()).toEqual([]);
  });

  it("while a run is going on in the thread: marked refused, run_in_progress, and nothing posted", async () => {
    const sha = newSha();
    onTheAppsPull(sha);
    const refusing = agentRefusingWith(() => new CiRunInProgressError(`acme-widgets-${PULL}`).message);
    const { response, dispatches, events } = await deliver("check_suite", build("check_suite", sha), refusing);
    expect(response.status).toBe(202);
    expect(dispatches).toHaveLength(1);
    expect(events).toContainEqual(expect.objectContaining({ event: "delivery:refused", reason: "run_in_progress" }));
    expect(events.map((event) => event.event)).not.toContain("dispatch:failed");
    expect(await marker(sha)).toMatchObject({ state: "refused", reason: "run_in_progress" });
    expect(writes()).toEqual([]);
  });

  it("for any other reason: marked failed, nothing posted", async () => {
    const sha = newSha();
    onTheAppsPull(sha);
    const { events } = await deliver("workflow_run", build("workflow_run", sha), agentRefusingWith(() => "something broke"));
    expect(events).toContainEqual(expect.objectContaining({ event: "dispatch:failed" }));
    expect(await marker(sha)).toMatchObject({ state: "failed", reason: "dispatch" });
    expect(writes()).toEqual([]);
  });
});

describe("the CI endpoints the webhook app calls", () => {
  it("are GitHub's, as its REST description has them: the judge refuses a made-up one", async () => {
    const refused = await github.spec.judge(new Request(`${API}/repos/${REPO}/check-suites/1/check-run-list`));
    expect(refused?.status).toBe(404);
    github.spec.refusals.splice(0);
    for (const path of [`/repos/${REPO}/check-suites/1/check-runs?filter=latest&per_page=100`, `/repos/${REPO}/actions/runs/1/jobs?filter=latest&per_page=100`, `/repos/${REPO}/actions/jobs/1/logs`]) {
      expect(await github.spec.judge(new Request(`${API}${path}`))).toBeNull();
    }
    expect(LOG_DOWNLOAD.startsWith(API)).toBe(false);
  });
});
