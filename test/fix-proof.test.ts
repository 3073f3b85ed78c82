/**
 * A fix carries its proof, through real Think turns on the scripted model,
 * the recording container and GitHub as MSW plays it: a thread's first run
 * reproduces the bug and names its check; a later run's open_pull_request
 * has the Worker re-run that check on the base and on the pushed head (the
 * container answers each side by its commit), writes both results into the
 * pull request's body and the closing comment with whose check it was, and
 * the outcome follows the proof: `pr-opened` only when it failed before and
 * passes after, else `pr-unproven` with the side that did not hold, whatever
 * the model said. A recorded check that carries no tier (kept before tiers
 * were) is not re-run.
 * The starter set's two proof cases (evals/cases/dequal-nested-set-*-fix)
 * are played here, where a container answers, and judged and counted by the
 * eval harness's own code.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import { describe, expect, it } from "vitest";
import provenCase from "../evals/cases/dequal-nested-set-proven-fix.json?raw";
import unprovenCase from "../evals/cases/dequal-nested-set-unproven-fix.json?raw";
import { parseCase } from "../scripts/lib/eval/case";
import { caseResult } from "../scripts/lib/eval/judge";
import { totals } from "../scripts/lib/eval/report";
import { caseInstruction } from "../scripts/lib/eval/runner";
import { runFigures } from "../scripts/lib/eval/thread-figures";
import { NO_FIGURES } from "../scripts/lib/eval/target";
import type { WorkspaceAgent } from "../src/workspace-agent";
import { commandCenter } from "../src/command-center";
import { sessionName } from "../src/shared/session-name";
import { THREAD_REPRODUCTION_KEY } from "../src/run/thread-reproduction";
import { TEST_GITHUB_API_URL } from "./worker";
import { agentFor, captureConsole, toolParts, uniqueRepo, until, waitForStatus } from "./helpers";
import { containerFor, type RecordingContainer } from "./support/containers";
import { FakeGitHub, serveGitHub } from "./support/github";

const github = new FakeGitHub();
serveGitHub(github);

const TOKEN = "ghs_fixProofTOKEN00000000000000000000";
const NUMBER = 12;
const BRANCH = `agent-think/issue-${NUMBER}`;
const BASE = "b".repeat(40);
const HEAD = "c".repeat(40);
const CHECK = "cd /workspace/repro && npm install ../repo > /dev/null && npm run repro";

const reproduced = (repo: string, check?: string) => ({
  outcome: "reproduced",
  summary: "sum(2, 2) returns 5.",
  steps: ["npm run repro", "prints actual 5, expected 4"],
  evidence: `README.md says sum adds its arguments (${repo}).`,
  ...(check ? { check } : {})
});

const fixed = (repo: string) => ({
  outcome: "pr-opened",
  summary: "sum adds its arguments again.",
  pullRequestUrl: `https://github.com/${repo}/pull/1000`,
  changes: ["src/sum.js: a + b"],
  verification: "The reproduction's check: exit 1 before, exit 0 after."
});

/** One run on the thread, to its end; `container` answers its commands. */
async function run(repo: string, lines: string[], container?: (recording: RecordingContainer, session: string) => void | Promise<void>, number = NUMBER) {
  const session = sessionName(repo, number);
  const { container: recording } = await containerFor(session);
  await container?.(recording, session);
  const agent = await agentFor(session, env.ReportingThinkAgent);
  const { result } = await captureConsole(async () => {
    const { submissionId } = await agent.startRun({ session, repo, issueNumber: number, instruction: lines.join("\n"), installationToken: TOKEN, commentId: Math.floor(Math.random() * 1e9), requestedBy: { login: "octocat" } });
    return { submissionId, ...(await waitForStatus(agent, submissionId)) };
  });
  const recorded = () => recordedRun(session, result.submissionId);
  return { result, session, agent, recording, recorded };
}

/** The clone as the proof's first script reads it, and each side's check answered by its commit. */
function answerProof(recording: RecordingContainer, sides: { base: number; head: number }, pushed = HEAD, branch = BRANCH) {
  recording.answer(/agent-think proof: locate/, { exitCode: 0, stdout: `head=${HEAD}\nbase=${BASE}\nbranch=${branch}\npushed=${pushed}\n` });
  recording.answer(new RegExp(`agent-think proof: check on ${BASE}`), { exitCode: sides.base, stdout: sides.base === 0 ? "actual 4\n" : "actual 5, expected 4\n" });
  recording.answer(new RegExp(`agent-think proof: check on ${HEAD}`), { exitCode: sides.head, stdout: sides.head === 0 ? "actual 4\n" : "actual 5, expected 4\n" });
}

const fixLines = (repo: string, open: Record<string, unknown>) => [
  "open a PR fixing this",
  `TEST: container cd /workspace/repo && git commit -am fix && git push origin ${BRANCH}`,
  `TEST: call open_pull_request ${JSON.stringify({ title: "Add, do not increment", body: "Fixes the sum.", ...open })}`,
  `TEST: result-json ${JSON.stringify(fixed(repo))}`,
  "TEST: reply done"
];

/** What a proof script did, in a few words. */
function label(script: string): string {
  if (script.includes("proof: locate")) return "locate";
  const check = /proof: check on ([0-9a-f]{7})/.exec(script);
  if (check) return `check on ${check[1]}`;
  const detach = /checkout --quiet --detach ([0-9a-f]{7})/.exec(script);
  if (detach) return `checkout ${detach[1]}`;
  return script.includes(BRANCH) ? `back to ${BRANCH}` : "?";
}

/** The command center's record of the run, once its end is in. */
async function recordedRun(session: string, submissionId: string) {
  return await until(async () => {
    const detail = await (await commandCenter(env)).threadDetail(session);
    const found = detail?.runs.find((entry) => entry.submissionId === submissionId);
    return found?.outcome ? found : undefined;
  }, `the ended run ${submissionId} on ${session}`);
}

describe("a fix's proof", () => {
  it("re-runs the thread's reproduction check on the base and the head: red then green is pr-opened, shown in the pull request and the comment", async () => {
    const repo = uniqueRepo();
    const first = await run(repo, ["reproduce this", `TEST: result-json ${JSON.stringify(reproduced(repo, CHECK))}`, "TEST: reply done"]);
    expect(first.result.status).toBe("completed");
    const { result, recording, agent, recorded } = await run(repo, fixLines(repo, {}), (recording) => answerProof(recording, { base: 1, head: 0 }));
    expect(result.status).toBe("completed");
    // The base, then back to the branch, then the head: each side's check ran on its own commit.
    const proofScripts = recording.runs.map((entry) => entry.script).filter((script) => script.includes("agent-think proof") || script.includes("git checkout --quiet"));
    expect(proofScripts.map(label)).toEqual(["locate", `checkout ${BASE.slice(0, 7)}`, `check on ${BASE.slice(0, 7)}`, `back to ${BRANCH}`, `check on ${HEAD.slice(0, 7)}`]);
    expect(proofScripts.filter((script) => script.includes("proof: check on")).every((script) => script.includes("npm run repro"))).toBe(true);
    // The Worker's own git scripts run under its git environment, on the clone made inert, with the repository's canonical origin.
    const gitScripts = proofScripts.filter((script) => !script.includes("proof: check on"));
    expect(gitScripts.every((script) => script.includes("GIT_CONFIG_GLOBAL=") && script.includes("core.hooksPath") && script.includes("git init --quiet --template="))).toBe(true);
    expect(gitScripts.every((script) => script.includes(`${new URL(TEST_GITHUB_API_URL).origin}/${repo}.git`))).toBe(true);
    const [pull] = github.pulls(repo);
    expect(pull!.body).toContain("Fixes the sum.");
    expect(pull!.body).toContain("### Proof of the fix");
    expect(pull!.body).toContain("✅ **Proven:** the reproduction's check fails on the base and passes with this change.");
    expect(pull!.body).toContain("**Before (base)**, `bbbbbbb`: exit 1");
    expect(pull!.body).toContain("**After (head)**, `ccccccc`: exit 0");
    expect(pull!.body).toContain("actual 5, expected 4");
    expect(pull!.body).toMatch(/The check is the thread's reproduction's, recorded by a maintainer's run \(`[^`]+`\) at \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\./);
    const opened = toolParts(await agent.transcript()).find((part) => part.type === "tool-open_pull_request")!.output as { proof: { held: boolean } };
    expect(opened.proof.held).toBe(true);
    const closing = await github.closingComment(repo, NUMBER, 2);
    expect(closing).toContain("### 🛠️ Pull request opened");
    expect(closing).toContain("✅ **Proven:**");
    expect(closing).toContain("**Before (base)**, `bbbbbbb`: exit 1");
    expect(await recorded()).toMatchObject({ outcome: "pr-opened", proven: true });
  });

  it("is pr-unproven when the check still fails on the head, whatever the model reported, and says which side", async () => {
    const repo = uniqueRepo();
    await run(repo, ["reproduce this", `TEST: result-json ${JSON.stringify(reproduced(repo, CHECK))}`, "TEST: reply done"]);
    const { recorded } = await run(repo, fixLines(repo, {}), (recording) => answerProof(recording, { base: 1, head: 1 }));
    const [pull] = github.pulls(repo);
    expect(pull!.body).toContain("⚠️ **Not proven:** the check still fails on the head (ccccccc, exit 1).");
    const closing = await github.closingComment(repo, NUMBER, 2);
    expect(closing).toContain("### ⚠️ Pull request not proven");
    expect(closing).toContain("the check still fails on the head (ccccccc, exit 1)");
    expect(await recorded()).toMatchObject({ outcome: "pr-unproven", proven: false });
  });

  it("is pr-unproven when the check passes on the base too: it does not show the bug", async () => {
    const repo = uniqueRepo();
    const { recorded } = await run(repo, fixLines(repo, { check: "npm test" }), (recording) => answerProof(recording, { base: 0, head: 0 }));
    const closing = await github.closingComment(repo, NUMBER);
    expect(closing).toContain("### ⚠️ Pull request not proven");
    expect(closing).toContain("the check passes on the base (bbbbbbb) too, so it does not show the bug");
    expect(closing).toContain("The check was given with `open_pull_request` by this run.");
    expect(await recorded()).toMatchObject({ outcome: "pr-unproven", proven: false });
  });

  it("refuses to judge a head that was not pushed, and the run is pr-unproven", async () => {
    const repo = uniqueRepo();
    await run(repo, ["reproduce this", `TEST: result-json ${JSON.stringify(reproduced(repo, CHECK))}`, "TEST: reply done"]);
    const { recording, recorded } = await run(repo, fixLines(repo, {}), (recording) => answerProof(recording, { base: 1, head: 0 }, "d".repeat(40)));
    expect(recording.runs.some((entry) => entry.script.includes("proof: check on"))).toBe(false);
    const closing = await github.closingComment(repo, NUMBER, 2);
    expect(closing).toContain("### ⚠️ Pull request not proven");
    expect(closing).toContain("is not what agent-think/issue-12 has on GitHub (ddddddd): push the fix first");
    expect(await recorded()).toMatchObject({ outcome: "pr-unproven", proven: false });
  });

  it("runs no recorded check that carries no tier (kept before tiers were): pr-unproven, saying whose it was and to pass `check`", async () => {
    const repo = uniqueRepo();
    const agent = await agentFor(sessionName(repo, NUMBER), env.ReportingThinkAgent);
    await runInDurableObject(agent, (_instance, state) => state.storage.put(THREAD_REPRODUCTION_KEY, { submissionId: "before-tiers", at: 0, check: CHECK }));
    const { recording, recorded } = await run(repo, fixLines(repo, {}), (recording) => answerProof(recording, { base: 1, head: 0 }));
    expect(recording.runs.some((entry) => entry.script.includes("agent-think proof"))).toBe(false);
    const [pull] = github.pulls(repo);
    expect(pull!.body).toContain("⚠️ **Not proven:** the thread's check was recorded by a run that kept no tier (before-tiers)");
    expect(pull!.body).toContain("pass `check` (the command to re-run) to prove the fix.");
    expect(pull!.body).not.toContain("npm run repro");
    const closing = await github.closingComment(repo, NUMBER);
    expect(closing).toContain("### ⚠️ Pull request not proven");
    expect(await recorded()).toMatchObject({ outcome: "pr-unproven", proven: false });
  });

  it("is pr-unproven on a thread whose reproduction named no check, when none is given", async () => {
    const repo = uniqueRepo();
    await run(repo, ["reproduce this", `TEST: result-json ${JSON.stringify(reproduced(repo))}`, "TEST: reply done"]);
    const { recording, recorded } = await run(repo, fixLines(repo, {}));
    expect(recording.runs.some((entry) => entry.script.includes("agent-think proof"))).toBe(false);
    const closing = await github.closingComment(repo, NUMBER, 2);
    expect(closing).toContain("the thread has a reproduction, but no check was given to re-run");
    expect(await recorded()).toMatchObject({ outcome: "pr-unproven", proven: false });
  });

  it("changes nothing on a thread with no reproduction and no check: pr-opened, no proof section", async () => {
    const repo = uniqueRepo();
    const { recording, recorded } = await run(repo, fixLines(repo, {}));
    expect(recording.runs.some((entry) => entry.script.includes("agent-think proof"))).toBe(false);
    const [pull] = github.pulls(repo);
    expect(pull!.body).not.toContain("Proof of the fix");
    const closing = await github.closingComment(repo, NUMBER);
    expect(closing).toContain("### 🛠️ Pull request opened");
    const last = await recorded();
    expect(last.outcome).toBe("pr-opened");
    expect(last.proven).toBeUndefined();
  });
});

describe("the starter set's proof cases", () => {
  // What the clone holds (the recording container clones nothing): dequal's Set branch, with the bug.
  const SOURCE = ["export function dequal(foo, bar) {", "\tif (foo instanceof Set) {", "\t\tfor (tmp of foo) if (!has(bar, tmp)) return false;", "\t\treturn true;", "\t}", "}", ""].join("\n");
  const CHECK_RUN = /node \/workspace\/repro\/check-sets\.mjs/;

  async function workspaceShell(session: string, command: string) {
    const workspace = (await getAgentByName(env.WorkspaceAgent, session)) as unknown as DurableObjectStub<WorkspaceAgent>;
    return workspace.exec({ command, backend: "shell", timeoutMs: 10_000 });
  }

  /**
   * The check answers by what the source holds: on the base always the
   * seeded bug (a checkout of it would restore it), otherwise the
   * workspace's file as the run left it.
   */
  function answerByContent(recording: RecordingContainer, session: string) {
    const answer = (fixed: boolean) => ({ exitCode: fixed ? 0 : 1, stdout: `dequal: ${!fixed} (expected false)\n` });
    recording.answer(/agent-think proof: locate/, { exitCode: 0, stdout: `head=${HEAD}\nbase=${BASE}\nbranch=agent-think/issue-31\npushed=${HEAD}\n` });
    recording.answer(new RegExp(`agent-think proof: check on ${BASE}`), answer(false));
    recording.during(CHECK_RUN, async () => {
      const source = JSON.stringify(await workspaceShell(session, "cat /workspace/repo/src/index.js"));
      recording.answer(CHECK_RUN, answer(source.includes("for (tmp of bar)")));
      recording.answer(new RegExp(`agent-think proof: check on ${BASE}`), answer(false));
    });
  }

  async function play(text: string) {
    const evalCase = parseCase(`evals/cases/${JSON.parse(text).id}.json`, text);
    const repo = uniqueRepo();
    const { result, recorded, recording } = await run(
      repo,
      [caseInstruction(evalCase, true)],
      async (recording, session) => {
        answerByContent(recording, session);
        expect(await workspaceShell(session, `mkdir -p /workspace/repo/src && printf '%s' '${SOURCE.replaceAll("'", "'\\''")}' > /workspace/repo/src/index.js`)).toMatchObject({ exitCode: 0 });
      },
      31
    );
    expect(result.status).toBe("completed");
    // The run's messages are out before the next test (or the file's end) stops GitHub's stand-in.
    await github.closingComment(repo, 31);
    const summary = await recorded();
    const judged = caseResult(evalCase, { kind: "ended", figures: { ...NO_FIGURES, ...runFigures(summary) } }, []);
    return { evalCase, judged, recording, pull: github.pulls(repo)[0]! };
  }

  it("plays a proven fix (red on the base, green on the head) and an unproven one, and the eval report counts them apart", async () => {
    const proven = await play(provenCase);
    expect(proven.evalCase.needs).toEqual(["container"]);
    expect(proven.judged).toMatchObject({ verdict: "pass", outcome: "pr-opened", proven: true });
    expect(proven.pull.body).toContain("✅ **Proven:**");
    expect(proven.pull.body).toContain("dequal: true (expected false)");
    expect(proven.pull.body).toContain("dequal: false (expected false)");
    // Red, then green, by what the source held each time the model ran the check.
    const modelRuns = proven.recording.runs.filter((entry) => CHECK_RUN.test(entry.script) && !entry.script.includes("agent-think proof"));
    expect(modelRuns).toHaveLength(2);

    const unproven = await play(unprovenCase);
    expect(unproven.judged).toMatchObject({ verdict: "pass", expected: "pr-unproven", outcome: "pr-unproven", proven: false });
    expect(unproven.pull.body).toContain("⚠️ **Not proven:** the check still fails on the head (ccccccc, exit 1).");

    expect(totals([proven.judged, unproven.judged]).fixes).toEqual({ proven: 1, unproven: 1, unchecked: 0 });
  });
});
