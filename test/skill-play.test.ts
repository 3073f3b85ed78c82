/**
 * Three starter cases played as a model following the skills' text would
 * play them, tool call by tool call, through real Think turns, the skills
 * from R2 and the recording container (no engine here: it runs nothing, and
 * answers the commands each case needs as the real ones would):
 * - dequal#3, an intended behaviour: the check matches the documented
 *   result, the run reports not-a-bug with its evidence and sources, and no
 *   page is built or published;
 * - camelcase#95, a reproduction made from the image's template: one
 *   command and one file before the check runs, then the build and the page;
 * - dequal#31, a fix with its test first: the test is written and fails
 *   before the source changes, passes after, and only the changed paths are
 *   staged. The container answers the test by what the workspace's source
 *   file really holds.
 */
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { beforeAll, describe, expect, it } from "vitest";
import addressReview from "../skills/address-review/SKILL.md?raw";
import openPr from "../skills/open-pr/SKILL.md?raw";
import reproduce from "../skills/reproduce/SKILL.md?raw";
import { OUTCOME_HEADINGS } from "../src/report/outcome-headings";
import { sessionName } from "../src/shared/session-name";
import type { WorkspaceAgent } from "../src/workspace-agent";
import { agentFor, captureConsole, toolParts, uniqueRepo, waitForStatus } from "./helpers";
import { containerFor, type RecordingContainer } from "./support/containers";
import { FakeGitHub, serveGitHub } from "./support/github";

const github = new FakeGitHub();
serveGitHub(github);

const TOKEN = "ghs_skillPlayTOKEN000000000000000000";

beforeAll(async () => {
  await env.SKILLS_BUCKET.put("skills/reproduce/SKILL.md", reproduce);
  await env.SKILLS_BUCKET.put("skills/open-pr/SKILL.md", openPr);
  await env.SKILLS_BUCKET.put("skills/address-review/SKILL.md", addressReview);
});

type Play = { repo?: string; issue: { title: string; body: string }; directives: string[]; container?: (container: RecordingContainer, session: string) => void; before?: (session: string) => Promise<void> };

/** Plays `directives` on a fresh issue to the run's end. */
async function play({ repo = uniqueRepo(), issue, directives, container: answer, before }: Play) {
  const number = 31;
  const session = sessionName(repo, number);
  github.setIssue(repo, number, issue);
  const { container } = await containerFor(session);
  answer?.(container, session);
  await before?.(session);
  const agent = await agentFor(session, env.ReportingThinkAgent);
  const { result: status } = await captureConsole(async () => {
    const { submissionId } = await agent.startRun({
      session,
      repo,
      issueNumber: number,
      instruction: directives.join("\n"),
      installationToken: TOKEN,
      commentId: 3131,
      requestedBy: { login: "octocat" }
    });
    return waitForStatus(agent, submissionId);
  });
  const tools = toolParts(await agent.transcript());
  return { repo, status, tools, container, closing: await github.closingComment(repo, number) };
}

/** The commands the model sent to the container, in order (the Worker's own prepare and identity scripts left out). */
const modelCommands = (tools: ReturnType<typeof toolParts>) =>
  tools.filter((part) => part.type === "tool-bash").map((part) => (part.input as { command: string; backend?: string }).command);
const names = (tools: ReturnType<typeof toolParts>) => tools.map((part) => part.type.replace(/^tool-/, ""));

/** A shell command in the workspace, outside any turn: what the clone holds, as the sync would show it. */
async function workspaceShell(session: string, command: string) {
  const workspace = (await getAgentByName(env.WorkspaceAgent, session)) as unknown as DurableObjectStub<WorkspaceAgent>;
  return workspace.exec({ command, backend: "shell", timeoutMs: 10_000 });
}

const check = (expected: string, actual: string) => JSON.stringify({ expected, actual }, null, 2);

describe("a model following the reproduce skill", () => {
  it("reports an intended behaviour as not a bug, with the source that says so, and builds no page", async () => {
    const evidence =
      "Intended: dequal's source compares Object.keys(foo).length with Object.keys(bar).length, and Object.create({x:1}) has no own key x; fast-deep-equal and lodash.isEqual also return false.";
    const { status, tools, container, closing } = await play({
      issue: {
        title: "Object whose properties come from its prototype is not equal to a plain object",
        body: "```js\ndequal(Object.create({x:1}), {x:1}) //false\n```\n\nOther deep-equal libraries handle this, so I expected `true` here."
      },
      directives: [
        "reproduce this issue",
        "TEST: skill reproduce",
        // Step 1: the expected result's source, before building anything.
        "TEST: container grep -n \"Object.keys\" /workspace/repo/src/index.js",
        // Step 2: the check, from the template.
        "TEST: container mkdir -p /workspace/repro && cp -a /opt/agent-think/repro-app/. /workspace/repro/ && cd /workspace/repro && npm install --save-exact dequal@1.0.0 > /temp/repro-install.log 2>&1; tail -3 /temp/repro-install.log",
        "TEST: write /workspace/repro/src/repro.ts import dequal from \"dequal\";\\nexport type ReproResult = { expected: string; actual: string };\\nexport const REPRO = { title: \"Object whose properties come from its prototype is not equal to a plain object\", issueUrl: \"https://github.com/lukeed/dequal/issues/3\", mode: \"live\" as \"live\" | \"recorded\", note: \"\" };\\nexport async function triggerBug(): Promise<ReproResult> {\\n  return { expected: JSON.stringify(false), actual: JSON.stringify(dequal(Object.create({ x: 1 }), { x: 1 })) };\\n}\\n",
        'TEST: container cd /workspace/repro && npm run repro; echo "exit $?"',
        `TEST: result-json ${JSON.stringify({
          outcome: "not-a-bug",
          summary: "dequal(Object.create({x:1}), {x:1}) returns false on 1.0.0, and that is the intended result: the first object has no own property x.",
          evidence,
          sources: [{ where: "src/index.js:12", says: "if (Object.keys(foo).length !== Object.keys(bar).length) return false;" }],
          steps: ["npm install --save-exact dequal@1.0.0", "npm run repro: expected false, actual false (exit 0)"],
          versions: [{ version: "1.0.0", source: "reporter", showed: true }]
        })}`,
        "TEST: reply done"
      ],
      container: (recording) => {
        recording.answer(/grep -n .*Object\.keys/, { exitCode: 0, stdout: "12:\t\t\tif (Object.keys(foo).length !== Object.keys(bar).length) return false;\n" });
        recording.answer(/npm run repro/, { exitCode: 0, stdout: `${check("false", "false")}\nexit 0\n` });
      }
    });
    expect(status.status).toBe("completed");
    expect(names(tools)).toEqual(["activate_skill", "bash", "bash", "write", "bash", "report_result"]);
    expect(tools.every((part) => part.state === "output-available")).toBe(true);
    // No page: nothing was built, nothing published.
    const commands = modelCommands(tools);
    expect(commands.some((command) => /npm run build/.test(command))).toBe(false);
    expect(names(tools)).not.toContain("publish_reproduction");
    expect(container.runs.some((run) => /npm run build/.test(run.script))).toBe(false);
    // The issue is read from the workspace block, not asked for again.
    expect(commands.some((command) => /gh issue view/.test(command))).toBe(false);
    expect(closing).toContain(`### ${OUTCOME_HEADINGS["not-a-bug"]}`);
    expect(closing).toContain("**Evidence:** Intended: dequal's source compares");
    expect(closing).toContain("**Sources**");
    expect(closing).not.toContain("**Reproduction:**");
  });

  it("makes the reproduction from the image's template in two tool calls before the check, then builds and publishes the page", async () => {
    const { status, tools, closing } = await play({
      issue: { title: "`IDs` is camelized to `iDs` instead of `ids`", body: "camelCase('IDs') // 'iDs', expected 'ids'\ncamelCase('AmazingIDs') // 'amazingIDs', expected 'amazingIds'" },
      directives: [
        "reproduce this issue",
        "TEST: skill reproduce",
        "TEST: container mkdir -p /workspace/repro && cp -a /opt/agent-think/repro-app/. /workspace/repro/ && cd /workspace/repro && npm install --save-exact camelcase@7.0.0 > /temp/repro-install.log 2>&1; tail -3 /temp/repro-install.log",
        "TEST: write /workspace/repro/src/repro.ts import camelCase from \"camelcase\";\\nexport type ReproResult = { expected: string; actual: string };\\nexport const REPRO = { title: \"`IDs` is camelized to `iDs` instead of `ids`\", issueUrl: \"https://github.com/sindresorhus/camelcase/issues/95\", mode: \"live\" as \"live\" | \"recorded\", note: \"\" };\\nconst calls = [\"IDs\", \"AmazingIDs\"];\\nexport async function triggerBug(): Promise<ReproResult> {\\n  const expected = { IDs: \"ids\", AmazingIDs: \"amazingIds\" };\\n  const actual = Object.fromEntries(calls.map((input) => [input, camelCase(input)]));\\n  return { expected: JSON.stringify(expected, null, 2), actual: JSON.stringify(actual, null, 2) };\\n}\\n",
        'TEST: container cd /workspace/repro && npm run repro; echo "exit $?"',
        'TEST: container cd /workspace/repro && npm run build > /temp/repro-build.log 2>&1; echo "exit $?"; tail -3 /temp/repro-build.log',
        // The recording container builds nothing: the build's output, as the workspace sync would bring it back.
        "TEST: write /workspace/repro/dist/index.html <!doctype html><title>`IDs` is camelized to `iDs`</title><button>Trigger bug</button>",
        "TEST: publish /workspace/repro/dist",
        `TEST: result-json ${JSON.stringify({
          outcome: "reproduced",
          summary: "On camelcase 7.0.0, camelCase('IDs') returns 'iDs' and camelCase('AmazingIDs') returns 'amazingIDs'.",
          evidence: "In camelCase the first word is all lowercase; the maintainer committed assertions expecting 'ids' and 'amazingIds'.",
          steps: ["npm install --save-exact camelcase@7.0.0", "npm run repro: exit 1, actual iDs and amazingIDs"]
        })}`,
        "TEST: reply done"
      ],
      container: (recording) => {
        recording.answer(/npm run repro/, {
          exitCode: 0,
          stdout: `${check('{"IDs":"ids","AmazingIDs":"amazingIds"}', '{"IDs":"iDs","AmazingIDs":"amazingIDs"}')}\nexit 1\n`,
          stderr: "Differs from expected\n"
        });
        recording.answer(/npm run build/, { exitCode: 0, stdout: "exit 0\n✓ built in 412ms\n" });
      }
    });
    expect(status.status).toBe("completed");
    const order = names(tools);
    const checkAt = tools.findIndex((part) => part.type === "tool-bash" && /npm run repro/.test((part.input as { command: string }).command));
    // From the skill to the check: at most three tool calls (here two: the template and its one file).
    const before = order.slice(order.indexOf("activate_skill") + 1, checkAt);
    expect(before).toEqual(["bash", "write"]);
    expect(before.length).toBeLessThanOrEqual(3);
    expect(modelCommands(tools)[0]).toContain("cp -a /opt/agent-think/repro-app/. /workspace/repro/");
    // No recipe file was read or written one by one.
    expect(order).not.toContain("read_skill_resource");
    expect(tools.filter((part) => part.type === "tool-write").map((part) => (part.input as { path: string }).path)).toEqual([
      "/workspace/repro/src/repro.ts",
      "/workspace/repro/dist/index.html"
    ]);
    // The page only after the check said reproduced.
    expect(order.indexOf("publish_reproduction")).toBeGreaterThan(checkAt);
    const published = tools.find((part) => part.type === "tool-publish_reproduction")!.output as { published: boolean; url: string };
    expect(published.published).toBe(true);
    expect(closing).toContain("### ✅ Reproduced");
    expect(closing).toContain(`**Reproduction:** ${published.url}`);
    expect(closing).toContain("**Evidence:** In camelCase the first word is all lowercase");
  });
});

describe("a model following the open-pr skill", () => {
  const SOURCE = [
    "export function dequal(foo, bar) {",
    "\tif (foo instanceof Set) {",
    "\t\tfor (tmp of foo) if (!has(bar, tmp)) return false;",
    "\t\treturn true;",
    "\t}",
    "}",
    ""
  ].join("\n");
  const FIX_OLD = "\t\treturn true;";
  const FIX_NEW = "\t\tfor (tmp of bar) if (!has(foo, tmp)) return false;\\n\t\treturn true;";
  const TEST_FILE = "/workspace/repo/test/set-duplicates.mjs";

  it("writes the failing test first, runs it red, fixes the source, runs it green, and stages only the two paths", async () => {
    let testRuns = 0;
    const repo = uniqueRepo();
    const { status, tools, closing, container } = await play({
      repo,
      issue: { title: "Sets of nested Sets compare equal when they are not", body: "dequal(new Set([new Set([1,2]), new Set([1,2])]), new Set([new Set([1,2]), new Set([1,4])])) // true, expected false" },
      before: async (session) => {
        // What the clone holds (the recording container clones nothing).
        const seeded = await workspaceShell(session, `mkdir -p /workspace/repo/src && printf '%s' '${SOURCE.replaceAll("'", "'\\''")}' > /workspace/repo/src/index.js`);
        expect(seeded).toMatchObject({ exitCode: 0 });
      },
      container: (recording, session) => {
        // The runner breaks on the container's Node, whatever the change (dequal's bundt and uvu).
        recording.answer(/npm test/, { exitCode: 0, stdout: "exit 1\nSyntaxError: Unexpected token 'export' (bundt)\n" });
        // The test answers by what the workspace's source really holds: red until the fix is in.
        recording.during(/node \/workspace\/repo\/test\/set-duplicates\.mjs/, async () => {
          testRuns++;
          const source = await workspaceShell(session, "cat /workspace/repo/src/index.js");
          const fixed = JSON.stringify(source).includes("for (tmp of bar)");
          recording.answer(/node \/workspace\/repo\/test\/set-duplicates\.mjs/, fixed ? { exitCode: 0, stdout: "dequal: false\nexit 0\n" } : { exitCode: 0, stdout: "dequal: true\nAssertionError: expected false\nexit 1\n" });
        });
        recording.answer(/git diff --cached --stat/, { exitCode: 0, stdout: " src/index.js                | 1 +\n test/set-duplicates.mjs     | 9 +++++++++\n 2 files changed, 10 insertions(+)\n" });
      },
      directives: [
        "open a PR fixing this",
        "TEST: skill open-pr",
        "TEST: container cd /workspace/repo && git fetch origin main && git switch -C agent-think/issue-31 origin/main",
        // Step 3: the test first.
        `TEST: write ${TEST_FILE} import assert from "node:assert";\\nimport { dequal } from "../src/index.js";\\nconst result = dequal(new Set([new Set([1, 2]), new Set([1, 2])]), new Set([new Set([1, 2]), new Set([1, 4])]));\\nconsole.log("dequal:", result);\\nassert.equal(result, false);\\n`,
        `TEST: container node ${TEST_FILE}; echo "exit $?"`,
        // The project's runner cannot run here: one try, then the new test alone.
        'TEST: container cd /workspace/repo && npm test > /temp/test.log 2>&1; echo "exit $?"; tail -40 /temp/test.log',
        // Step 4: the fix, then the same test.
        `TEST: edit /workspace/repo/src/index.js ${FIX_OLD} => ${FIX_NEW}`,
        `TEST: container node ${TEST_FILE}; echo "exit $?"`,
        // Step 6: only the changed paths.
        "TEST: container cd /workspace/repo && git add -- src/index.js test/set-duplicates.mjs && git status --short && git diff --cached --stat",
        'TEST: container cd /workspace/repo && git commit -m "Check the second Set\'s elements against the first (#31)" && git push origin agent-think/issue-31',
        'TEST: call open_pull_request {"title":"Check the second Set\'s elements against the first","body":"Fixes #31\\n\\n## Verification\\n- node test/set-duplicates.mjs: exit 1 before, exit 0 after; npm test cannot run on this Node (bundt)."}',
        `TEST: result-json ${JSON.stringify({
          outcome: "pr-opened",
          summary: "dequal matched every element of the first Set in the second but never the reverse; it now checks both ways.",
          pullRequestUrl: `https://github.com/${repo}/pull/1`,
          changes: ["test/set-duplicates.mjs: the issue's Sets (failed before the fix)", "src/index.js: also match the second Set's elements in the first"],
          verification: "node test/set-duplicates.mjs: dequal: true, exit 1 before the fix; dequal: false, exit 0 after. npm test could not run on the container's Node (bundt: SyntaxError), so the new test ran alone."
        })}`,
        "TEST: reply done"
      ]
    });
    expect(status.status).toBe("completed");
    expect(tools.every((part) => part.state === "output-available")).toBe(true);
    const order = names(tools);
    const write = order.indexOf("write");
    const edit = order.indexOf("edit");
    // The test is written before the source is touched.
    expect(write).toBeGreaterThan(0);
    expect(edit).toBeGreaterThan(write);
    // Red before the fix, green after, by what the source held when each ran.
    const runs = tools.filter((part) => part.type === "tool-bash" && (part.input as { command: string }).command.startsWith(`node ${TEST_FILE}`));
    expect(runs.map((part) => JSON.stringify(part.output))).toEqual([expect.stringContaining("exit 1"), expect.stringContaining("exit 0")]);
    expect(order.indexOf("bash", write)).toBeLessThan(edit);
    expect(testRuns).toBe(2);
    // Staged by name; nothing staged wholesale.
    const staged = modelCommands(tools).find((command) => command.includes("git add"))!;
    expect(staged).toContain("git add -- src/index.js test/set-duplicates.mjs");
    expect(container.runs.some((run) => /git add (-A|\.|--all)\b|git commit -a/.test(run.script))).toBe(false);
    expect(closing).toContain("npm test could not run on the container's Node");
    const opened = tools.find((part) => part.type === "tool-open_pull_request")!.output as { ok: boolean; url: string };
    expect(opened.ok).toBe(true);
    expect(opened.url).toMatch(new RegExp(`/${repo}/pull/\\d+$`));
    expect(closing).toContain("### 🛠️ Pull request opened");
  });
});
