/**
 * A fix's proof (src/run/fix-proof.ts) in Markdown, as the pull request's
 * body and the closing comment show it: the command, each side's commit,
 * exit code and a short excerpt. Everything the sandbox printed is in code
 * blocks, so it renders literally and notifies no one. Pure.
 */
import { short, type ProofRecord, type ProofSide } from "../run/fix-proof";
import { codeBlock, codeSpan } from "./neutralize";

/** The heading the pull request's proof section opens with; a body is given at most one. */
export const PROOF_HEADING = "### Proof of the fix";

/** The proof as a section of its own: the heading, the verdict, the command and both sides. */
export function proofSection(record: ProofRecord): string {
  if (!record.ran) {
    return [
      PROOF_HEADING,
      "",
      `⚠️ **Not proven:** ${record.why}.`,
      ...(record.command ? ["", "The check it would have run:", "", codeBlock(record.command, "sh")] : [])
    ].join("\n");
  }
  const verdict = record.held
    ? "✅ **Proven:** the reproduction's check fails on the base and passes with this change."
    : `⚠️ **Not proven:** ${record.why}.`;
  return [
    PROOF_HEADING,
    "",
    verdict,
    "",
    "agent-think ran the reproduction's check in the sandbox, on the base without the change and then on this pull request's head:",
    "",
    codeBlock(record.command, "sh"),
    "",
    sideText("Before (base)", record.base),
    "",
    sideText("After (head)", record.head)
  ].join("\n");
}

/** A short line for the thread page and logs: "proven (exit 1 → 0)" or "not proven: …". */
export function proofLine(record: ProofRecord): string {
  if (!record.ran) return `not proven: ${record.why}`;
  const codes = `exit ${exitText(record.base)} → ${exitText(record.head)}`;
  return record.held ? `proven (${codes})` : `not proven (${codes}): ${record.why}`;
}

function sideText(label: string, side: ProofSide): string {
  const outcome = side.error ? `could not run: ${side.error}` : side.timedOut ? `timed out (exit ${side.exitCode})` : `exit ${side.exitCode}`;
  return [`**${label}**, ${codeSpan(short(side.sha))}: ${outcome}`, ...(side.excerpt ? ["", codeBlock(side.excerpt, "text")] : [])].join("\n");
}

function exitText(side: ProofSide): string {
  return side.exitCode === undefined ? "none" : String(side.exitCode);
}
