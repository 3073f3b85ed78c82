/**
 * A fix's proof (src/run/fix-proof.ts) in Markdown, as the pull request's
 * body and the closing comment show it: the command and whose it was (given
 * by the run, or recorded by which tier's run and when), each side's commit,
 * exit code and a short excerpt. Everything the sandbox printed is in code
 * blocks, so it renders literally and notifies no one. Pure.
 */
import { short, type ProofRecord, type ProofSide, type ProofSource } from "../run/fix-proof";
import type { RecordingTier } from "../shared/dispatch";
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
      ...(record.source ? ["", sourceText(record.source)] : []),
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
    ...(record.source ? ["", sourceText(record.source)] : []),
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

/** A run of `tier`, in words: "a maintainer's run", "a reporter-tier run", or one that kept no tier. */
export function tierRun(tier: RecordingTier | undefined): string {
  return tier === "maintainer" ? "a maintainer's run" : tier === "reporter" ? "a reporter-tier run" : "a run that kept no tier";
}

/** Whose check it was: "The check was given with open_pull_request by this run." or recorded by which run, when. */
export function sourceText(source: ProofSource): string {
  if (source.kind === "given") return "The check was given with `open_pull_request` by this run.";
  const when = new Date(source.at).toISOString().replace(/\.\d{3}Z$/, "Z");
  return `The check is the thread's reproduction's, recorded by ${tierRun(source.tier)} (${codeSpan(source.submissionId)}) at ${when}.`;
}

function sideText(label: string, side: ProofSide): string {
  const outcome = side.error ? `could not run: ${side.error}` : side.timedOut ? `timed out (exit ${side.exitCode})` : `exit ${side.exitCode}`;
  return [`**${label}**, ${codeSpan(short(side.sha))}: ${outcome}`, ...(side.excerpt ? ["", codeBlock(side.excerpt, "text")] : [])].join("\n");
}

function exitText(side: ProofSide): string {
  return side.exitCode === undefined ? "none" : String(side.exitCode);
}
