/**
 * CI in the GitHub stand-in (scripts/lib/github-standin-checks.ts): a seeded
 * run of GitHub Actions answers a check suite's check runs, a workflow run's
 * jobs and a job's log (GitHub's 302 to a download address that needs no
 * token) as GitHub's description has them, every answer checked against
 * its response schema; and the `check_suite.completed` and
 * `workflow_run.completed` deliveries it sends for the run are GitHub's
 * webhook schema's and list the open pull request on its head.
 */
import { createRequire } from "node:module";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Octokit } from "@octokit/rest";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { standinFixture } from "./standin-fixture";

const { start, description } = standinFixture();
const REPO = "acme/widgets";
const SHA = "f".repeat(40);
const BRANCH = "agent-think/issue-5";

const openapi = createRequire(import.meta.url)("@octokit/openapi-webhooks/generated/api.github.com.json") as { components: object };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: "webhooks", components: openapi.components });
const webhookSchema = (name: string) => ajv.getSchema(`webhooks#/components/schemas/${name}`) ?? ajv.compile({ $ref: `webhooks#/components/schemas/${name}` });

const seed = {
  repo: REPO,
  headSha: SHA,
  headBranch: BRANCH,
  name: "CI",
  jobs: [
    { name: "test", conclusion: "failure", steps: [{ name: "Run npm test", conclusion: "failure" }], log: "npm test\nFAIL parser.test.ts", title: "1 failed", summary: "parses empty input" },
    { name: "lint", conclusion: "success" }
  ]
};

describe("CI in the stand-in", () => {
  it("answers check runs, jobs and a job's log as GitHub's description has them", async () => {
    const standin = await start();
    const run = standin.seedCiRun(seed);
    expect(run).toMatchObject({ repo: REPO, headSha: SHA, conclusion: "failure", name: "CI" });
    expect(run.checkSuiteId).not.toBe(run.workflowRunId);
    const octokit = new Octokit({ baseUrl: standin.url, auth: "ghs_installation" });

    const suite = await octokit.rest.checks.listForSuite({ owner: "acme", repo: "widgets", check_suite_id: run.checkSuiteId, filter: "latest", per_page: 100 });
    expect(description().checkResponse("checks/list-for-suite", suite.status, suite.data)).toEqual([]);
    expect(suite.data.check_runs.map((entry) => [entry.id, entry.name, entry.conclusion, entry.output.title])).toEqual([
      [run.jobs[0]!.id, "test", "failure", "1 failed"],
      [run.jobs[1]!.id, "lint", "success", null]
    ]);

    const jobs = await octokit.rest.actions.listJobsForWorkflowRun({ owner: "acme", repo: "widgets", run_id: run.workflowRunId, filter: "latest", per_page: 100 });
    expect(description().checkResponse("actions/list-jobs-for-workflow-run", jobs.status, jobs.data)).toEqual([]);
    expect(jobs.data.jobs[0]).toMatchObject({ id: run.jobs[0]!.id, run_id: run.workflowRunId, conclusion: "failure", steps: [{ name: "Run npm test", conclusion: "failure", number: 1 }] });

    const logs = await octokit.rest.actions.downloadJobLogsForWorkflowRun({ owner: "acme", repo: "widgets", job_id: run.jobs[0]!.id, request: { redirect: "manual" } });
    expect(logs.status).toBe(302);
    const location = String((logs.headers as Record<string, unknown>).location);
    expect(location).toBe(`${standin.url}/_standin/job-logs/${run.jobs[0]!.id}`);
    const text = await (await fetch(location)).text();
    expect(text.trimEnd().split("\n").map((line) => line.replace(/^\S+ /, ""))).toEqual(["npm test", "FAIL parser.test.ts"]);
    expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}Z npm test/);

    // An unknown suite, run or job is GitHub's 404; every call was one the description takes.
    await expect(octokit.rest.checks.listForSuite({ owner: "acme", repo: "widgets", check_suite_id: 1 })).rejects.toMatchObject({ status: 404 });
    await expect(octokit.rest.actions.listJobsForWorkflowRun({ owner: "acme", repo: "other", run_id: run.workflowRunId })).rejects.toMatchObject({ status: 404 });
    expect(standin.refusals()).toEqual([]);
    // The download is not the API: not recorded.
    expect(standin.records().some((record) => record.path.startsWith("/_standin/"))).toBe(false);
  });

  it("refuses a bad seed naming the field, over HTTP too", async () => {
    const standin = await start();
    expect(() => standin.seedCiRun({ ...seed, headSha: "abc" })).toThrow("seedCiRun: headSha must be a full commit SHA");
    expect(() => standin.seedCiRun({ ...seed, jobs: [] })).toThrow("seedCiRun: jobs must be a list of at least one job");
    const response = await fetch(`${standin.url}/_standin/ci-runs`, { method: "POST", body: JSON.stringify({ ...seed, repo: "nope" }) });
    expect(response.status).toBe(422);
    expect(await response.json()).toEqual({ message: "repo must be owner/name" });
    const seeded = await fetch(`${standin.url}/_standin/ci-runs`, { method: "POST", body: JSON.stringify(seed) });
    expect(seeded.status).toBe(201);
    // No webhook target: nothing to deliver to.
    const run = (await seeded.json()) as { checkSuiteId: number };
    const delivery = await fetch(`${standin.url}/_standin/ci-deliveries`, { method: "POST", body: JSON.stringify({ event: "check_suite", id: run.checkSuiteId }) });
    expect(delivery.status).toBe(422);
    expect(() => standin.deliverCi("workflow_run", 1)).toThrow("deliverCi: no seeded CI run has workflowRunId 1");
  });

  it("delivers check_suite.completed and workflow_run.completed as GitHub's webhook schema has them, listing the open pull request on the head", async () => {
    const received: Array<{ event: string; body: Record<string, unknown> }> = [];
    const receiver = createServer((request, response) => {
      let text = "";
      request.on("data", (chunk) => (text += chunk));
      request.on("end", () => {
        received.push({ event: String(request.headers["x-github-event"]), body: JSON.parse(text) });
        response.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
    try {
      const standin = await start({ webhook: { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, secret: "s3cret" } });
      standin.seedPull({ repo: REPO, number: 6, head: { ref: BRANCH, sha: SHA }, user: { login: "agent-think[bot]" } });
      const run = standin.seedCiRun(seed);
      const fork = standin.seedCiRun({ ...seed, headRepo: "mallory/widgets" });
      standin.deliverCi("check_suite", run.checkSuiteId);
      standin.deliverCi("workflow_run", run.workflowRunId);
      standin.deliverCi("workflow_run", fork.workflowRunId);
      await new Promise((resolve) => setTimeout(resolve, 50));
      await standin.deliveriesSettled();
      expect(standin.deliveries().map(({ event, action, issueNumber, headSha, status }) => ({ event, action, issueNumber, headSha, status }))).toEqual([
        { event: "check_suite", action: "completed", issueNumber: 6, headSha: SHA, status: 204 },
        { event: "workflow_run", action: "completed", issueNumber: 6, headSha: SHA, status: 204 },
        { event: "workflow_run", action: "completed", issueNumber: 0, headSha: SHA, status: 204 }
      ]);
      const [suite, workflow, forked] = received;
      for (const [delivered, schema] of [[suite, "webhook-check-suite-completed"], [workflow, "webhook-workflow-run-completed"], [forked, "webhook-workflow-run-completed"]] as const) {
        const validate = webhookSchema(schema);
        expect(validate(delivered!.body), JSON.stringify(validate.errors)).toBe(true);
      }
      const suiteBody = suite!.body as { check_suite: { id: number; conclusion: string; head_branch: string; pull_requests: Array<{ number: number; head: { repo: { id: number } } }> }; repository: { id: number; full_name: string } };
      expect(suiteBody.check_suite).toMatchObject({ id: run.checkSuiteId, conclusion: "failure", head_branch: BRANCH });
      expect(suiteBody.check_suite.pull_requests.map((pull) => pull.number)).toEqual([6]);
      expect(suiteBody.check_suite.pull_requests[0]!.head.repo.id).toBe(suiteBody.repository.id);
      expect(suiteBody.repository.full_name).toBe(REPO);
      const forkBody = forked!.body as { workflow_run: { head_repository: { full_name: string }; pull_requests: unknown[] } };
      expect(forkBody.workflow_run.head_repository.full_name).toBe("mallory/widgets");
      expect(forkBody.workflow_run.pull_requests).toEqual([]);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });
});
