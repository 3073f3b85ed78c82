/**
 * What the scripted model does for an instruction: a fixed list of steps.
 * `TEST:` lines in the instruction are directives, played in order (run,
 * container, write, edit, read, tools, sleep, fail, fail-once, result,
 * result-json, call, plan, skill, publish, reply; each is described in
 * docs/testing.md, "The scripted model"). Without directives it plans a
 * scripted demonstration (`demoPlan`), labelled as one wherever it reports:
 * a short `no-pr` plan for a pull-request ask, else a whole reproduction on
 * a stand-in bug. Pure and deterministic.
 */
export type ScriptAction =
  | { kind: "tool"; toolName: string; input: Record<string, unknown>; say: string }
  | { kind: "reply"; text: string }
  | { kind: "fail"; message: string };

export type ScriptStep = ScriptAction & { delayMs?: number };

const DIRECTIVE = /^\s*TEST:\s*([\w-]+)\s*(.*)$/;
export const MAX_SCRIPTED_SLEEP_MS = 60_000;
const MAX_SCRIPTED_TOOL_CALLS = 1_000;

export function planScript(instruction: string, options: { continuation?: boolean } = {}): ScriptStep[] {
  const steps: ScriptStep[] = [];
  let delayMs = 0;
  const push = (action: ScriptAction) => {
    steps.push(delayMs > 0 ? { ...action, delayMs } : action);
    delayMs = 0;
  };
  let sawDirective = false;
  for (const line of instruction.split("\n")) {
    const match = DIRECTIVE.exec(line);
    if (!match) continue;
    sawDirective = true;
    const verb = match[1]!.toLowerCase();
    const rest = match[2]!.trim();
    switch (verb) {
      case "run":
        push({ kind: "tool", toolName: "bash", input: { command: rest, backend: "shell" }, say: `Running \`${rest}\`.` });
        break;
      case "container":
        push({
          kind: "tool",
          toolName: "bash",
          input: { command: rest, backend: "container" },
          say: `Running \`${rest}\` in the container.`
        });
        break;
      case "edit": {
        const space = rest.indexOf(" ");
        const path = space < 0 ? rest : rest.slice(0, space);
        const [oldText = "", newText = ""] = (space < 0 ? "" : rest.slice(space + 1)).split(" => ");
        push({
          kind: "tool",
          toolName: "edit",
          input: { path, edits: [{ oldText: unescape(oldText), newText: unescape(newText) }] },
          say: `Editing ${path}.`
        });
        break;
      }
      case "write": {
        const space = rest.indexOf(" ");
        const path = space < 0 ? rest : rest.slice(0, space);
        const content = unescape(space < 0 ? "" : rest.slice(space + 1));
        push({ kind: "tool", toolName: "write", input: { path, content }, say: `Writing ${path}.` });
        break;
      }
      case "read":
        push({ kind: "tool", toolName: "read", input: { path: rest }, say: `Reading ${rest}.` });
        break;
      case "tools": {
        const count = Math.min(Number.parseInt(rest, 10) || 0, MAX_SCRIPTED_TOOL_CALLS);
        for (let i = 0; i < count; i++) {
          push({ kind: "tool", toolName: "ls", input: { path: "/" }, say: `Listing, ${i + 1} of ${count}.` });
        }
        break;
      }
      case "sleep":
        delayMs += Math.min(Math.max(Number.parseInt(rest, 10) || 0, 0), MAX_SCRIPTED_SLEEP_MS);
        break;
      case "fail":
        push({ kind: "fail", message: unescape(rest) || "scripted model failure" });
        return steps;
      case "fail-once":
        if (options.continuation) break;
        push({ kind: "fail", message: unescape(rest) || "scripted model failure" });
        return steps;
      case "result": {
        const space = rest.indexOf(" ");
        const outcome = space < 0 ? rest : rest.slice(0, space);
        const summary = space < 0 ? "Scripted result." : unescape(rest.slice(space + 1));
        push({ kind: "tool", toolName: "report_result", input: { outcome, summary, ...SCRIPTED_FIELDS[outcome] }, say: "Recording the result." });
        break;
      }
      case "result-json": {
        let input: Record<string, unknown>;
        try {
          input = JSON.parse(rest) as Record<string, unknown>; // JSON has its own escapes
        } catch {
          push({ kind: "reply", text: "TEST: result-json needs a JSON object." });
          return steps;
        }
        push({ kind: "tool", toolName: "report_result", input, say: "Recording the result." });
        break;
      }
      case "call": {
        const space = rest.indexOf(" ");
        const toolName = space < 0 ? rest : rest.slice(0, space);
        let input: Record<string, unknown>;
        try {
          input = JSON.parse(space < 0 ? "{}" : rest.slice(space + 1)) as Record<string, unknown>;
        } catch {
          push({ kind: "reply", text: "TEST: call needs a tool name and a JSON object." });
          return steps;
        }
        push({ kind: "tool", toolName, input, say: `Calling ${toolName}.` });
        break;
      }
      case "plan": {
        let parsed: unknown;
        try {
          parsed = JSON.parse(rest);
        } catch {
          push({ kind: "reply", text: "TEST: plan needs a JSON object with steps, or a JSON array of steps." });
          return steps;
        }
        const input = (Array.isArray(parsed) ? { steps: parsed } : parsed) as Record<string, unknown>;
        push({ kind: "tool", toolName: "update_plan", input, say: "Updating the plan." });
        break;
      }
      case "publish":
        push({ kind: "tool", toolName: "publish_reproduction", input: { directory: rest }, say: `Publishing ${rest}.` });
        break;
      case "skill":
        push({ kind: "tool", toolName: "activate_skill", input: { name: rest }, say: `Activating the ${rest} skill.` });
        break;
      case "reply":
        push({ kind: "reply", text: unescape(rest) });
        return steps;
      default:
        push({ kind: "reply", text: `Unknown TEST directive "${verb}".` });
        return steps;
    }
  }
  if (!sawDirective) return demoPlan(instruction);
  push({ kind: "reply", text: `Scripted run finished after ${steps.length} tool call(s).` });
  return steps;
}

/**
 * What `TEST: result` adds for the fields its outcome requires
 * (src/run/ending.ts), so a one-line result is one the tool accepts. Each
 * says it is scripted; a test of the requirements themselves uses
 * `TEST: result-json`.
 */
export const SCRIPTED_FIELDS: Partial<Record<string, Record<string, unknown>>> = {
  reproduced: { steps: ["scripted: no command ran"], evidence: "scripted: no evidence was gathered" },
  "not-reproduced": { steps: ["scripted: no command ran"], evidence: "scripted: no evidence was gathered" },
  "not-a-bug": { evidence: "scripted: no documentation was read", sources: [{ where: "scripted", says: "scripted: no source was read" }] },
  answered: { answer: "scripted: nothing was answered", sources: [{ where: "scripted", says: "scripted: no source was read" }] },
  "fixed-upstream": { steps: ["scripted: no command ran"], upstream: { failsOn: "scripted: no release was tried", passesOn: "scripted: no branch was tried" } },
  "needs-info": { missing: ["scripted: nothing was asked"] }
};

const unescape = (text: string) =>
  text.replaceAll("\\n", "\n").replace(/\\x([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

/** The tool call ids the scripted model gives its calls start with this (src/model/scripted.ts); the dispatch CLI reads it. */
export const SCRIPTED_CALL_ID_PREFIX = "scripted-";
/** How every summary of the scripted demonstration begins, so no one takes it for a model's work. */
export const DEMO_SUMMARY_PREFIX = "Scripted demonstration:";

export const DEMO_REPRO_DIR = "/workspace/repro";
/** A host on no allowlist: the demonstration's request to it shows the egress gateway refusing, without any network. */
export const DEMO_BLOCKED_HOST = "example.com";
export const DEMO_PAGE_DIR = `${DEMO_REPRO_DIR}/page`;
const BUG = `${DEMO_REPRO_DIR}/bug.js`;
const CHECK = `${DEMO_REPRO_DIR}/check.sh`;
const PAGE = `${DEMO_PAGE_DIR}/index.html`;

/** An instruction that asks for a change rather than a reproduction. */
const ASKS_FOR_CHANGE = /\b(?:prs?|pull requests?|fix(?:es|ing)?|patch|address|review)\b/i;

/** The demonstration for an instruction without directives. */
function demoPlan(instruction: string): ScriptStep[] {
  const asked = instruction.trim().split("\n")[0]!.trim();
  const asksForChange = ASKS_FOR_CHANGE.test(instruction) && !/reproduc/i.test(instruction);
  return asksForChange ? changeDemo(asked) : reproductionDemo(asked);
}

/** The stand-in bug: a pager that drops the last, partial page. */
const BUG_SOURCE = [
  "// The stand-in bug of agent-think's scripted demonstration (no model ran).",
  "// pageCount: how many pages `total` items need at `perPage` a page.",
  "export function pageCount(total, perPage) {",
  "  return Math.floor(total / perPage);",
  "}",
  ""
].join("\n");

/**
 * The check: pageCount on the example, expected against actual, exiting as
 * every check does (0 when actual matches expected, 1 when it differs: the
 * convention the reproduce skill teaches). The worker shell has no node, so
 * awk evaluates the function's return expression as bug.js spells it
 * (Math.floor is awk's int).
 */
const CHECK_SOURCE = [
  "# pageCount(101, 10): 101 items at 10 a page need 11 pages.",
  "# No node in the worker shell: awk evaluates bug.js's return expression.",
  `body=$(sed -n 's/^ *return \\(.*\\);$/\\1/p' ${BUG} | sed 's/Math\\.floor/int/g')`,
  'actual=$(awk -v total=101 -v perPage=10 "BEGIN { print $body }")',
  "expected=11",
  'echo "pageCount(101, 10): expected $expected, actual $actual"',
  'if [ "$actual" = "$expected" ]; then echo "not reproduced"; exit 0; fi',
  'echo "reproduced: the last, partial page is missing"',
  "exit 1",
  ""
].join("\n");

const PAGE_SOURCE = [
  "<!doctype html>",
  '<html lang="en">',
  '<meta charset="utf-8">',
  "<title>Reproduction: pageCount drops the last page (scripted demonstration)</title>",
  "<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}code{background:#f3f3f3;padding:0 .2em}.bad{color:#b00020}</style>",
  "<h1>pageCount drops the last, partial page</h1>",
  "<p><strong>Scripted demonstration:</strong> agent-think published this page from its offline scripted model; no model ran and no repository was read. A real run builds a page like it from the issue's own code.</p>",
  "<p>101 items at 10 a page need 11 pages.</p>",
  '<p id="result">Running the check…</p>',
  "<script>",
  "function pageCount(total, perPage) {",
  "  return Math.floor(total / perPage);",
  "}",
  "const actual = pageCount(101, 10);",
  'document.getElementById("result").innerHTML = actual === 11',
  '  ? "pageCount(101, 10) = 11: not reproduced"',
  '  : `pageCount(101, 10): expected <code>11</code>, actual <code class="bad">${actual}</code>: reproduced`;',
  "</script>",
  ""
].join("\n");

/** A whole reproduction on the stand-in bug, offline: skill, files, shell check, page, result. */
function reproductionDemo(asked: string): ScriptStep[] {
  const summary =
    `${DEMO_SUMMARY_PREFIX} no model ran (none is configured, so agent-think played a fixed script for "${asked}"). ` +
    "It shows what a real run does on a stand-in bug, not on this issue: it activated the reproduce skill, wrote a small " +
    "reproduction (pageCount(101, 10) returns 10 where 11 pages are needed), ran its check in the worker shell and published a page. " +
    `Its request to ${DEMO_BLOCKED_HOST}, a host outside the sandbox's network allowlist, was refused by the egress gateway, as every run's would be. ` +
    "Configure the AI Gateway to run a real model.";
  return [
    { kind: "tool", toolName: "activate_skill", input: { name: "reproduce" }, say: "Scripted demonstration (no model is configured). Activating the reproduce skill." },
    demoPlanStep(0, "Making the plan."),
    // A second's pause after the plan: the progress comment, created as the run began, is edited live with it.
    { kind: "tool", toolName: "ls", input: { path: "/workspace" }, say: "Looking at the workspace.", delayMs: DEMO_PLAN_PAUSE_MS },
    {
      kind: "tool",
      toolName: "bash",
      input: { command: `mkdir -p ${DEMO_PAGE_DIR} && touch ${BUG} ${CHECK} ${PAGE} && ls ${DEMO_REPRO_DIR}`, backend: "shell" },
      say: `Setting up ${DEMO_REPRO_DIR}.`
    },
    { kind: "tool", toolName: "write", input: { path: BUG, content: BUG_SOURCE }, say: "Writing the smallest code that shows the bug." },
    { kind: "tool", toolName: "write", input: { path: CHECK, content: CHECK_SOURCE }, say: "Writing a check that prints expected against actual." },
    demoPlanStep(1, "Ticking the plan: the reproduction is written."),
    { kind: "tool", toolName: "bash", input: { command: `sh ${CHECK}`, backend: "shell" }, say: "Running the check in the shell." },
    {
      kind: "tool",
      toolName: "bash",
      input: { command: `curl -s https://${DEMO_BLOCKED_HOST}/`, backend: "shell" },
      say: `Reaching ${DEMO_BLOCKED_HOST}, which is not on the sandbox's network allowlist: the egress gateway refuses it.`
    },
    demoPlanStep(2, "Ticking the plan: the check ran."),
    { kind: "tool", toolName: "write", input: { path: PAGE, content: PAGE_SOURCE }, say: "Writing a page a maintainer can open." },
    { kind: "tool", toolName: "publish_reproduction", input: { directory: DEMO_PAGE_DIR }, say: "Publishing the page." },
    demoPlanStep(3, "Ticking the plan: the page is published."),
    {
      kind: "tool",
      toolName: "report_result",
      input: {
        outcome: "reproduced",
        summary,
        steps: [
          `${BUG}: pageCount(total, perPage) returns Math.floor(total / perPage)`,
          `sh ${CHECK} exits 1: pageCount(101, 10) is expected to be 11 and is 10`,
          "The published page runs the same function in the browser"
        ],
        evidence: `${BUG}'s own comment says pageCount is how many pages total items need at perPage a page: 101 items at 10 a page need 11, and it returns 10.`
      },
      say: "Recording the result."
    },
    {
      kind: "reply",
      text:
        "This was a scripted demonstration, not a model: no model is configured, so agent-think played a fixed reproduction " +
        `of a stand-in bug in ${DEMO_REPRO_DIR} (pageCount(101, 10) returns 10, not 11), checked it in the shell and published a page. ` +
        "Configure the AI Gateway to run a real model."
    }
  ];
}

/** How long the demonstration waits after its first plan (its progress comment's creation and first edit go out meanwhile). */
export const DEMO_PLAN_PAUSE_MS = 1_000;

/** The demonstration's plan, as the live progress comment shows it. */
const DEMO_PLAN = ["Write the smallest reproduction of the stand-in bug", "Run its check in the worker shell", "Publish a page a maintainer can open", "Report the result"];

/** update_plan with the first `done` steps done and the next one in progress. */
function demoPlanStep(done: number, say: string): ScriptStep {
  const steps = DEMO_PLAN.map((text, i) => ({ text, status: i < done ? "done" : i === done ? "in_progress" : "pending" }));
  return { kind: "tool", toolName: "update_plan", input: { steps }, say };
}

/** For a change: an honest short run that opens nothing. */
function changeDemo(asked: string): ScriptStep[] {
  return [
    { kind: "tool", toolName: "activate_skill", input: { name: "open-pr" }, say: "Scripted demonstration (no model is configured). Activating the open-pr skill." },
    { kind: "tool", toolName: "ls", input: { path: "/workspace" }, say: "Looking at the workspace." },
    {
      kind: "tool",
      toolName: "report_result",
      input: {
        outcome: "no-pr",
        summary:
          `${DEMO_SUMMARY_PREFIX} no model ran (none is configured, so agent-think played a fixed script for "${asked}"), ` +
          "so nothing was changed and no pull request was opened. Configure the AI Gateway to run a real model.",
        steps: ["Activated the open-pr skill", "Looked at the workspace", "Changed nothing: a scripted demonstration writes no code"]
      },
      say: "Recording the result."
    },
    {
      kind: "reply",
      text: "This was a scripted demonstration, not a model: no model is configured, so nothing was changed and no pull request was opened. Configure the AI Gateway to run a real model."
    }
  ];
}
