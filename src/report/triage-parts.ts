/**
 * The closing comment's parts a maintainer triages by: the versions a run
 * tried and whether each showed the behaviour, the sources an answer or a
 * "not a bug" rests on, and a fix upstream's release, branch and commit.
 * Versions, paths and commits are code; model text is neutralized. Pure.
 * Used by result-text.ts.
 */
import type { ResultSource, TriedVersion, UpstreamFix, VersionSource } from "../run/run-result";
import type { CutPart } from "./body-cap";
import type { LinkPolicy } from "./link-policy";
import { listPart, oneLine } from "./message-parts";
import { codeSpan, neutralize } from "./neutralize";

const SOURCE_WORDS: Record<VersionSource, string> = {
  reporter: "the reporter's version",
  "latest-release": "the latest release",
  "default-branch": "the default branch",
  other: "another version"
};

/** One line per version tried: `- \`4.2.1\` (the reporter's version): shows it`. Short by the schema's bounds, so never cut. */
export function versionsText(versions: readonly TriedVersion[]): string {
  return versions
    .map((tried) => `- ${codeSpan(oneLine(tried.version))} (${SOURCE_WORDS[tried.source]}): ${tried.showed ? "shows it" : "does not show it"}`)
    .join("\n");
}

/** Where a source is: a URL as the link policy allows it (linked only to our pages and the run's repository), anything else (a path and lines) as code. */
function whereText(where: string, policy: LinkPolicy): string {
  const flat = oneLine(where);
  return /^https?:\/\//i.test(flat) ? neutralize(flat, policy, { mode: "inline" }) : codeSpan(flat);
}

/** One line per source, where it is and what it says; what it says is the part a cut shortens. */
export function sourcesPart(sources: readonly ResultSource[], policy: LinkPolicy): CutPart {
  return listPart(
    sources.map((source) => oneLine(source.says)),
    (says, index) => `- ${whereText(sources[index]!.where, policy)}: ${neutralize(says, policy, { mode: "inline" })}`,
    "sources"
  );
}

/**
 * A fix upstream in a sentence: the release it fails on, the branch or
 * commit it passes on, and the commit that fixed it, linked on the run's
 * repository where GitHub's web host is known. Short by the schema's bounds.
 */
export function upstreamText(upstream: UpstreamFix, policy: LinkPolicy): string {
  const line = `fails on ${codeSpan(oneLine(upstream.failsOn))} and passes on ${codeSpan(oneLine(upstream.passesOn))}.`;
  const fix = upstream.fixedBy;
  if (!fix) return line;
  const sha = fix.commit.toLowerCase();
  const web = policy.githubWebUrl.replace(/\/+$/, "");
  const commit = web ? `[${codeSpan(sha.slice(0, 7))}](${web}/${policy.repo}/commit/${sha})` : codeSpan(sha.slice(0, 7));
  const subject = fix.subject ? `: ${neutralize(oneLine(fix.subject), policy, { mode: "inline" })}` : "";
  return `${line} Fixed by ${commit} (found with ${codeSpan(fix.foundWith)})${subject}`;
}
