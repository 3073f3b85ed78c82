/**
 * Egress is bound to the turn: a process a finished turn left in its
 * container (one whose stop has not happened yet) inherits nothing from the
 * next turn of the same issue. With real Think turns on the scripted model,
 * the real ContainerBackend over the recording computerd, and the requests
 * sent as the container's programs would, through the interception the
 * Sandbox registered (SandboxEgressProxy stamps them with the container):
 * after a second turn began, the first turn's container sends a push to the
 * run's branch and a GitHub API request; both are refused before any grant,
 * nothing reaches GitHub, the refusals are counted for the running run, and
 * the issue's agent refuses the first turn's identity on its own too.
 */
import { runInDurableObject } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { OTHER_TURN_GRANT_REFUSAL } from "../src/egress/egress-desk";
import { OTHER_TURN_REFUSAL } from "../src/egress/workspace-egress";
import { sandboxStub } from "../src/sandbox";
import { agentFor, gate, uniqueRepo, until, waitForStatus, waitForThread, type TestAgent } from "./helpers";
import { commandCenter } from "../src/command-center";
import { FakeGitHub, serveGitHub } from "./support/github";
import { containerRun, recordingInternet, sendFromContainer } from "./support/container-egress";

const github = new FakeGitHub();
const { upstream, handlers: internet } = recordingInternet("sortNumbers([10, 2]) gives [10, 2].");
serveGitHub(github, internet);
afterEach(() => {
  upstream.length = 0;
});

const TOKEN = "ghs_turnBoundTOKEN0000000000000000000";

describe("a process a finished turn left behind", () => {
  it("gets nothing once the next turn of the issue began: its push and its API request are refused", async () => {
    const repo = uniqueRepo();
    const { session, container, runner, workspace, sandboxId } = await containerRun(repo);
    // The first turn's container is never stopped: the worst case of a release that has not happened.
    container.neverStops = true;
    // Each turn's command runs until the test has sent what it sends during that turn.
    const [firstSent, secondSent] = [gate(), gate()];
    runner.during(/echo first-turn/, () => firstSent.promise);
    runner.during(/echo second-turn/, () => secondSent.promise);
    const agent = (await agentFor(session)) as TestAgent;
    const first = await agent.startRun({
      session,
      repo,
      issueNumber: 5,
      installationToken: TOKEN,
      commentId: 51,
      instruction: "TEST: container echo first-turn\nTEST: reply done"
    });
    await until(() => runner.commands().includes("first-turn"), "the first turn's command");
    // While the first turn runs, its own container is answered as it (a read of its repository passes).
    const during = await sendFromContainer(workspace, sandboxId, container, [() => new Request(`https://github.com/${repo}.git/info/refs?service=git-upload-pack`)]);
    firstSent.open();
    expect(during.map((answer) => answer.status)).toEqual([200]);
    expect((await waitForStatus(agent, first.submissionId)).status).toBe("completed");

    const second = await agent.startRun({
      session,
      repo,
      issueNumber: 5,
      installationToken: TOKEN,
      commentId: 52,
      instruction: "TEST: container echo second-turn\nTEST: reply done"
    });
    await until(() => runner.commands().includes("second-turn"), "the second turn's command");
    upstream.length = 0;
    const receivePack = () => {
      const command = `${"1".repeat(40)} ${"2".repeat(40)} refs/heads/agent-think/issue-5\0report-status side-band-64k`;
      const line = `${(command.length + 4).toString(16).padStart(4, "0")}${command}`;
      return new Request(`https://github.com/${repo}.git/git-receive-pack`, {
        method: "POST",
        headers: { "content-type": "application/x-git-receive-pack-request" },
        body: `${line}0000PACK-bytes`
      });
    };
    // The first turn's container, still running its leftover process, sends through the interception it was given.
    const left = await runInDurableObject(sandboxStub(env, sandboxId), async () => {
      const answers: Array<{ status: number; text: string }> = [];
      for (const request of [receivePack(), new Request(`https://api.github.com/repos/${repo}/issues/5`)]) {
        const response = await container.send(request);
        answers.push({ status: response.status, text: await response.text() });
      }
      return answers;
    });
    expect(left).toEqual([
      { status: 403, text: `${OTHER_TURN_REFUSAL}\n` },
      { status: 403, text: `${OTHER_TURN_REFUSAL}\n` }
    ]);
    expect(upstream).toEqual([]);
    // The issue's agent holds the line on its own as well: the first turn's identity gets nothing, whatever reaches it.
    const asFirst = await agent.egressGrant({ url: `https://github.com/${repo}.git/git-receive-pack`, method: "POST", submissionId: first.submissionId });
    expect(asFirst).toMatchObject({ refusal: OTHER_TURN_GRANT_REFUSAL, grant: { writeToken: "", readToken: "", pushBranch: null } });
    secondSent.open();
    expect((await waitForStatus(agent, second.submissionId)).status).toBe("completed");
    // Counted for the run that was going on (the agent's own refusal of the first turn's push too): its thread shows them.
    await waitForThread(session);
    const detail = await (await commandCenter(env)).threadDetail(session);
    const run = detail?.runs.find((entry) => entry.submissionId === second.submissionId);
    expect(run?.blocked).toEqual(
      expect.arrayContaining([
        { host: "github.com", method: "POST", count: 2 },
        { host: "api.github.com", method: "GET", count: 1 }
      ])
    );
  });
});
