/**
 * `npm start` as a maintainer runs it: skills seeded into the local bucket,
 * the recording GitHub stand-in up, and wrangler dev posting to it. A
 * scripted reproduce run ends with one result comment on the stand-in, a
 * failing run with one failure notice carrying the thread link, and both
 * triggering comments get 🚀 once. The stand-in judges each call by
 * GitHub's REST description: none may be refused.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StandinRecord } from "../scripts/lib/github-standin";
import { freePort, spawnInGroup } from "./fixture";

const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 8_000;

type Started = { url: string; standinUrl: string; output(): string; stop(): Promise<void> };

async function startNpmStart(): Promise<Started> {
  const [port, standinPort] = [await freePort(), await freePort()];
  const persistTo = await mkdtemp(join(tmpdir(), "agent-think-start-"));
  const child = spawnInGroup("tsx", ["scripts/start.ts"], {
    PORT: String(port),
    GITHUB_STANDIN_PORT: String(standinPort),
    PERSIST_TO: persistTo,
    // Its own dev registry, so a developer's running `npm start` is not disturbed.
    WRANGLER_REGISTRY_PATH: join(persistTo, "dev-registry")
  });
  let output = "";
  const collect = (chunk: Buffer) => void (output = (output + chunk.toString("utf8")).slice(-50_000));
  child.stdout.on("data", collect);
  child.stderr.on("data", collect);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));

  const stop = async () => {
    // start.ts stops its wrangler group and the stand-in on SIGTERM.
    child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, STOP_GRACE_MS))]);
    try {
      process.kill(-child.pid!, "SIGKILL");
    } catch {
      // Already gone.
    }
    await rm(persistTo, { recursive: true, force: true });
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (!output.includes("agent-think is running at")) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`npm start did not come up\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { url: `http://127.0.0.1:${port}`, standinUrl: `http://127.0.0.1:${standinPort}`, output: () => output, stop };
}

let started: Started;
beforeAll(async () => {
  started = await startNpmStart();
}, READY_TIMEOUT_MS + 10_000);
afterAll(async () => {
  await started?.stop();
});

async function dispatch(body: Record<string, unknown>): Promise<{ session: string; threadUrl: string; submissionId: string }> {
  const response = await fetch(`${started.url}/dev/dispatch`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  });
  expect(response.status).toBe(202);
  return (await response.json()) as { session: string; threadUrl: string; submissionId: string };
}

async function records(): Promise<StandinRecord[]> {
  return ((await (await fetch(`${started.standinUrl}/_standin/records`)).json()) as { records: StandinRecord[] }).records;
}

/** What the stand-in refused: each a request GitHub's description (or GitHub) would refuse too. */
async function refusals(): Promise<StandinRecord[]> {
  return ((await (await fetch(`${started.standinUrl}/_standin/refusals`)).json()) as { refusals: StandinRecord[] }).refusals;
}

const bodyOf = (record: StandinRecord) => String((record.body as { body?: unknown } | undefined)?.body ?? "");

/**
 * The stand-in's records for one issue (its comments, the progress comment's
 * edits, the reaction) once its closing comment is in and the progress
 * comment points to it (and a moment more, to catch a second).
 */
async function recordsForIssue(repo: string, issue: number, commentId: number): Promise<StandinRecord[]> {
  const mine = (all: StandinRecord[]) =>
    all.filter(
      (record) =>
        record.path === `/repos/${repo}/issues/${issue}/comments` ||
        record.path === `/repos/${repo}/issues/comments/${commentId}/reactions` ||
        (record.method === "PATCH" && record.path.startsWith(`/repos/${repo}/issues/comments/`) && bodyOf(record).includes(":progress -->"))
    );
  const ended = (calls: StandinRecord[]) =>
    calls.some((record) => record.method === "POST" && bodyOf(record).includes(":closing -->")) && calls.some((record) => bodyOf(record).includes("See the result below"));
  const deadline = Date.now() + 30_000;
  while (!ended(mine(await records()))) {
    if (Date.now() > deadline) throw new Error(`no comment for ${repo}#${issue}\n${started.output().slice(-4_000)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return mine(await records());
}

describe("npm start", () => {
  it("seeds the skills the agent reads", async () => {
    const listed = (await (await fetch(`${started.url}/dev/skills`)).json()) as { skills: Array<{ name: string }> };
    expect(listed.skills.map((skill) => skill.name).sort()).toEqual(["address-review", "open-pr", "reproduce"]);
    expect(started.output()).toMatch(/seed:r2: local .* uploaded \d+/);
  });

  it("ends the scripted reproduce demonstration with 🚀, a progress comment, one result comment and a page it links, on the GitHub stand-in", async () => {
    const { session } = await dispatch({ repo: "acme/widgets", issueNumber: 3, commentId: 9301, requestedBy: { login: "alice" } });
    const calls = await recordsForIssue("acme/widgets", 3, 9301);
    const reactions = calls.filter((call) => call.path.endsWith("/reactions"));
    expect(reactions.map((call) => call.body)).toEqual([{ content: "rocket" }]);
    // The progress comment: created, edited with the demonstration's plan, then made a pointer to the result, below it.
    const posts = calls.filter((call) => call.method === "POST" && call.path.endsWith("/comments"));
    expect(posts.map((call) => (bodyOf(call).includes(":progress -->") ? "progress" : "closing"))).toEqual(["progress", "closing"]);
    const edits = calls.filter((call) => call.method === "PATCH");
    expect(edits.length).toBeGreaterThanOrEqual(2);
    expect(edits.slice(0, -1).some((call) => bodyOf(call).includes("- [ ] **Write the smallest reproduction of the stand-in bug** _(in progress)_"))).toBe(true);
    expect(bodyOf(edits.at(-1)!)).toContain("See the result below");
    expect(started.output()).toContain("github-standin POST /repos/acme/widgets/issues/3/comments: ⏳ **agent-think is working on this.**");
    expect(started.output()).toMatch(/github-standin PATCH \/repos\/acme\/widgets\/issues\/comments\/\d+: ✔️ \*\*agent-think finished\.\*\* See the result below/);
    const body = bodyOf(posts[1]!);
    expect(body).toContain("### ✅ Reproduced");
    // The demonstration says what it is where a maintainer reads first.
    expect(body).toContain("\n\nScripted demonstration: no model ran");
    expect(body).toContain(`${started.url}/thread/${session}`);
    // The page it published is linked, and opens.
    const page = new RegExp(`\\*\\*Reproduction:\\*\\* (${started.url.replaceAll(".", "\\.")}/repro/[^\\s)]+/)`).exec(body);
    expect(page, body).not.toBeNull();
    // Opened, its address is the Worker's wrapper naming the run and the issue; the page itself goes only to the wrapper's frame.
    const opened = await fetch(page![1]!);
    expect(opened.status).toBe(200);
    const wrapper = await opened.text();
    expect(wrapper).toContain("A reproduction written by an agent-think run");
    expect(wrapper).toContain("acme/widgets");
    const framed = await fetch(page![1]!, { headers: { "sec-fetch-dest": "iframe" } });
    expect(await framed.text()).toContain("Scripted demonstration:");
    // The dev log shows what was posted, and a successful run prints no error.
    expect(started.output()).toContain("github-standin POST /repos/acme/widgets/issues/3/comments: @alice · ### ✅ Reproduced");
    expect(started.output()).not.toMatch(/\[ERROR\]|Uncaught/);
    // Every call was one GitHub takes.
    expect(await refusals()).toEqual([]);
  });

  it("ends a scripted failing run with one failure notice carrying the thread link", async () => {
    const { session } = await dispatch({
      repo: "acme/widgets",
      issueNumber: 4,
      commentId: 9401,
      instruction: "TEST: run echo trying\nTEST: fail the model went away"
    });
    const calls = await recordsForIssue("acme/widgets", 4, 9401);
    const comments = calls.filter((call) => call.path.endsWith("/4/comments") && bodyOf(call).includes(":closing -->"));
    expect(comments).toHaveLength(1);
    const body = (comments[0]!.body as { body: string }).body;
    expect(body).toContain("❌ **agent-think could not finish this run.**");
    expect(body).toContain("the model went away");
    expect(body).toContain(`${started.url}/thread/${session}`);
    expect(calls.filter((call) => call.path.endsWith("/reactions"))).toHaveLength(1);
    expect(await refusals()).toEqual([]);
  });
});
