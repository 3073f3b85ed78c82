/**
 * Pieces the messages on an issue are built of: model text made safe to
 * quote on one line, durations, how to go on with a run that ended short,
 * URLs linked only where the link policy allows, and the free-text parts
 * `fitMessage` cuts (body-cap.ts). Pure. Used by notices.ts, closing-text.ts
 * and progress.ts; it writes no whole message.
 */
import { cutText, type CutPart } from "./body-cap";
import { pullRequestLink, reproductionLink, type LinkPolicy } from "./link-policy";
import { codeBlock, codeSpan, neutralize } from "./neutralize";
import type { RunRef } from "./run-ref";
import { proofLine, proofSection } from "./proof-text";
import type { ProofRecord } from "../run/fix-proof";

/** How a maintainer on GitHub, or an operator, goes on with a run that ended short: `then` for a sentence that follows an instruction. */
export function continueHow(run: RunRef, form: "may" | "then"): string {
  const comment = run.continueHandle ? codeSpan(`${run.continueHandle} continue`) : "";
  if (form === "then") return comment ? `then comment ${comment} here (or continue it from the dashboard)` : "then continue the run from the dashboard";
  return comment ? `comment ${comment} to continue it, or an operator can from the dashboard` : "an operator can continue it from the dashboard";
}

export const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** A URL longer than this is never linked, and shown cut. */
const MAX_LINKED_URL_CHARS = 2_000;
const SHOWN_URL_CHARS = 200;

/** The Worker's proof of the pull request (proof-text.ts); where it does not fit, its one line. */
export function proofPart(proof: ProofRecord | undefined, policy: LinkPolicy): CutPart {
  const section = proof ? neutralize(proofSection(proof), policy) : "";
  return {
    size: section.length,
    render: (limit) => (section.length <= limit ? section : proof ? neutralize(cutText(proofLine(proof), Math.max(0, limit)), policy, { mode: "inline" }) : "")
  };
}

/** A patch as a diff block; cut, it keeps its first lines and says so, since half a patch does not apply. */
export function patchPart(patch: string): CutPart {
  return {
    size: patch.length,
    render(limit) {
      if (patch.length <= limit) return codeBlock(patch, "diff");
      const cut = patch.slice(0, Math.max(0, limit)).replace(/\n[^\n]*$/, "");
      return `${codeBlock(cut, "diff")}\n\n_The patch was cut to fit; the whole patch is in the run's thread._`;
    }
  };
}

export function reproductionText(url: string, policy: LinkPolicy): string {
  const link = url.length <= MAX_LINKED_URL_CHARS ? reproductionLink(url, policy) : null;
  return link ?? `${shownUrl(url)} _(not one of this bot's pages, so not linked)_`;
}

export function pullRequestText(url: string, policy: LinkPolicy): string {
  const link = url.length <= MAX_LINKED_URL_CHARS ? pullRequestLink(url, policy) : null;
  return link ?? `${shownUrl(url)} _(not a pull request of ${codeSpan(policy.repo)}, so not linked)_`;
}

function shownUrl(url: string): string {
  const cut = cutText(oneLine(url), SHOWN_URL_CHARS);
  return codeSpan(cut.length < url.length ? `${cut}…` : cut);
}

/** Free text in its own paragraphs, neutralized, cut with "…". */
export function blockPart(text: string, policy: LinkPolicy): CutPart {
  return { size: text.length, render: (limit) => neutralize(withEllipsis(text, limit), policy) };
}

/** Free text inside a line, neutralized, cut with "…". */
export function inlinePart(text: string, policy: LinkPolicy): CutPart {
  return { size: text.length, render: (limit) => neutralize(withEllipsis(text, limit), policy, { mode: "inline" }) };
}

/** One line per item, in order; a cut keeps the first items whole, cuts the next and says how many more there were. */
export function listPart(items: string[], line: (item: string, index: number) => string, noun: string): CutPart {
  const size = items.reduce((sum, item) => sum + item.length, 0);
  return {
    size,
    render(limit) {
      const lines: string[] = [];
      let left = limit;
      for (const [index, item] of items.entries()) {
        if (left <= 0) break;
        lines.push(line(withEllipsis(item, left), index));
        left -= item.length;
      }
      const more = items.length - lines.length;
      if (more > 0) lines.push("", `_… and ${more} more ${noun}, in the thread._`);
      return lines.join("\n");
    }
  };
}

function withEllipsis(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const cut = cutText(text, limit);
  return cut ? `${cut} …` : "…";
}

/** Model text goes on the issue as text: no HTML comments that could fake our markers. */
export function quoteModelText(text: string): string {
  return text.replace(/<!--[\s\S]*?(-->|$)/g, "").trim();
}

export function oneLine(text: string): string {
  return quoteModelText(text).replace(/\s*\n\s*/g, " ");
}

export function formatDuration(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes >= 1) return `${minutes} minute${minutes === 1 ? "" : "s"}`;
  const seconds = Math.max(1, Math.round(ms / 1_000));
  return `${seconds} second${seconds === 1 ? "" : "s"}`;
}
