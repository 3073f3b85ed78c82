/**
 * The closing comment for a run that reported a result: its outcome's
 * heading, the summary, and each field the result carries (an answer, the
 * links, a fix upstream, the evidence and sources, the versions tried, what
 * is missing, steps, changes, review points, verification, the proof and a
 * patch), fitted to GitHub's limit by cutting the longest free text first.
 * Pure. Used by closing-text.ts, which gives it the lines around it.
 */
import type { RunResult } from "../run/run-result";
import type { ProofRecord } from "../run/fix-proof";
import { fitMessage, MAX_NOTICE_TEXT_CHARS } from "./body-cap";
import type { LinkPolicy } from "./link-policy";
import { blockPart, inlinePart, listPart, oneLine, patchPart, proofPart, pullRequestText, quoteModelText, reproductionText } from "./message-parts";
import { codeSpan, neutralize } from "./neutralize";
import { OUTCOME_HEADINGS } from "./outcome-headings";
import { sourcesPart, upstreamText, versionsText } from "./triage-parts";

/** What closing-text.ts puts around a result: the opening lines, and the cut notice and footer it ends with. */
export type ResultFrame = { opening: string[]; cutNotice: string; footer: string };

export function resultText(result: RunResult, policy: LinkPolicy, proof: ProofRecord | undefined, frame: ResultFrame): string {
  const steps = result.steps ?? [];
  const changes = result.changes ?? [];
  const addressed = result.addressed ?? [];
  const missing = result.missing ?? [];
  const sources = result.sources ?? [];
  const parts = [
    blockPart(quoteModelText(result.summary), policy),
    // Steps are commands and clicks to repeat: code, verbatim.
    listPart(steps.map(oneLine), (step, i) => `${i + 1}. ${codeSpan(step)}`, "steps"),
    listPart(changes.map(oneLine), (change) => `- ${neutralize(change, policy, { mode: "inline" })}`, "changes"),
    inlinePart(result.verification ? oneLine(result.verification) : "", policy),
    listPart(addressed.map(addressedLine), (line) => `- ${neutralize(line, policy, { mode: "inline" })}`, "review points"),
    patchPart(result.patch ?? ""),
    inlinePart(result.evidence ? oneLine(result.evidence) : "", policy),
    listPart(missing.map(oneLine), (question) => `- ${neutralize(question, policy, { mode: "inline" })}`, "questions"),
    proofPart(proof, policy),
    blockPart(result.answer ? quoteModelText(result.answer) : "", policy),
    blockPart(result.docFix ? quoteModelText(result.docFix) : "", policy),
    sourcesPart(sources, policy)
  ];
  return fitMessage(
    ([summary, stepLines, changeLines, verification, addressedLines, patch, evidence, missingLines, proofText, answer, docFix, sourceLines], cut) => {
      const lines = [...frame.opening, `### ${OUTCOME_HEADINGS[result.outcome]}`, "", summary!];
      if (result.answer) lines.push("", "**Answer**", "", answer!);
      if (result.reproductionUrl) lines.push("", `**Reproduction:** ${reproductionText(result.reproductionUrl, policy)}`);
      if (result.pullRequestUrl) lines.push("", `**Pull request:** ${pullRequestText(result.pullRequestUrl, policy)}`);
      if (result.upstream) lines.push("", `**Upstream:** ${upstreamText(result.upstream, policy)}`);
      if (result.evidence) lines.push("", `**Evidence:** ${evidence!}`);
      if (result.docFix) lines.push("", "**Proposed documentation fix**", "", docFix!);
      if (sources.length) lines.push("", "**Sources**", sourceLines!);
      if (result.versions?.length) lines.push("", "**Versions tried**", versionsText(result.versions));
      if (missing.length) lines.push("", "**To go on, this needs**", missingLines!);
      if (steps.length) lines.push("", "**Steps**", stepLines!);
      if (changes.length) lines.push("", "**Changes**", changeLines!);
      if (addressed.length) lines.push("", "**Review**", addressedLines!);
      if (result.verification) lines.push("", `**Verified:** ${verification!}`);
      if (proof) lines.push("", proofText!);
      if (result.patch) lines.push("", "<details><summary>Patch</summary>", "", patch!, "", "</details>");
      if (cut) lines.push("", frame.cutNotice);
      lines.push("", frame.footer);
      return lines.join("\n");
    },
    parts,
    MAX_NOTICE_TEXT_CHARS
  );
}

/** One review point as a line: where it is (the comment's link is checked by neutralize like any other), then what was done. */
function addressedLine(point: NonNullable<RunResult["addressed"]>[number]): string {
  const where = [point.path ? `\`${point.path.replace(/`/g, "")}\`` : "", point.comment ?? ""].filter(Boolean).join(" ");
  return oneLine(where ? `${where}: ${point.change}` : point.change);
}
