/**
 * What the scripted model does for an instruction: a fixed list of steps.
 *
 * `TEST:` lines in the instruction are directives, followed in order:
 *   TEST: run <command>        call bash with <command> on the shell backend
 *   TEST: container <command>  call bash with <command> on the container backend
 *   TEST: write <path> <text>  call the write tool (`\n` in <text> is a newline)
 *   TEST: edit <path> <old> => <new>   call the edit tool for one replacement
 *   TEST: read <path>          call the read tool
 *   TEST: tools <n>            call the ls tool n times (step-cap tests)
 *   TEST: sleep <ms>           wait before the next step (queueing tests)
 *   TEST: fail <message>       the model request fails with <message>
 *   TEST: fail-once <message>  the same, except in a continued run (the
 *                              envelope's continuationOf is set)
 *   TEST: result <outcome> <summary>  call report_result (outcome: reproduced,
 *                              not-reproduced, needs-info, pr-opened, no-pr…)
 *   TEST: result-json <json>   call report_result with this whole input
 *   TEST: skill <name>         call activate_skill for <name>
 *   TEST: publish <directory>  call publish_reproduction for <directory>
 *   TEST: reply <text>         answer with <text> and end the turn
 * In the texts of write, edit, result, reply and fail, `\n` is a newline and
 * `\xNN` the character with that hex code, so a test can have the model
 * say what its instruction does not spell (a token, for the redaction tests).
 * Without directives it plans a short demo run: look around the workspace,
 * write notes, check them with the shell, and report. Pure and deterministic.
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
        push({ kind: "tool", toolName: "bash", input: { command: rest }, say: `Running \`${rest}\`.` });
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
        push({ kind: "tool", toolName: "report_result", input: { outcome, summary }, say: "Recording the result." });
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

const unescape = (text: string) =>
  text.replaceAll("\\n", "\n").replace(/\\x([0-9a-fA-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

const NOTES = "/workspace/agent-think/notes.md";

/** A believable short run that reads, writes, edits and runs files. */
function demoPlan(instruction: string): ScriptStep[] {
  const notes = [
    "# agent-think scripted run",
    "",
    `Instruction: ${instruction.trim().split("\n")[0]}`,
    "",
    "- [ ] Read the issue.",
    "- [ ] Build the smallest reproduction.",
    "- [ ] Report back on the issue."
  ].join("\n");
  return [
    { kind: "tool", toolName: "ls", input: { path: "/workspace" }, say: "Looking at the workspace first." },
    { kind: "tool", toolName: "write", input: { path: NOTES, content: `${notes}\n` }, say: "Writing down the plan." },
    {
      kind: "tool",
      toolName: "edit",
      input: { path: NOTES, edits: [{ oldText: "- [ ] Read the issue.", newText: "- [x] Read the issue." }] },
      say: "Ticking off the first step."
    },
    { kind: "tool", toolName: "read", input: { path: NOTES, offset: 5, limit: 3 }, say: "Reading the plan back." },
    {
      kind: "tool",
      toolName: "bash",
      input: { command: `grep -c "\\[x\\]" ${NOTES} && wc -l ${NOTES}` },
      say: "Checking the notes with the shell."
    },
    {
      kind: "tool",
      toolName: "report_result",
      input: {
        outcome: "not-reproduced",
        summary:
          "This was a scripted demo run: no model credentials are configured, so nothing was cloned or reproduced. " +
          "Configure the AI Gateway to run a real model.",
        steps: [`Wrote a plan to ${NOTES}`, "Ticked off a step with an edit and read it back", "Checked the notes with the shell"]
      },
      say: "Recording the result for the issue."
    },
    {
      kind: "reply",
      text:
        "This was a scripted demo run (no model credentials are configured): I wrote a plan to " +
        `${NOTES}, ticked off a step with an edit, read it back and checked it with the shell. ` +
        "Configure the AI Gateway to run a real model."
    }
  ];
}
