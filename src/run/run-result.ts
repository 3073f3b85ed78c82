/**
 * What `report_result` takes: the skill's structured result, with what each
 * outcome must come with (evidence, sources, the versions tried, a fix
 * upstream's releases, a pull request's verification) and the rules the
 * fields hold between them. The model reads the descriptions. Pure; used by
 * ending.ts (which re-exports it), the tool and the closing comment.
 */
import { z } from "zod";
import { RESULT_OUTCOMES, type ResultOutcome } from "../shared/outcomes";

/** The longest reproduction check a result may name. */
export const MAX_CHECK_CHARS = 2_000;

/** A reproduction's check, as a command: what `report_result` records and `open_pull_request` re-runs as a fix's proof. */
export const checkCommandSchema = z.string().min(1).max(MAX_CHECK_CHARS);

/** The longest patch a result may carry: it goes into the closing comment, which GitHub caps at 65,536 characters. */
export const MAX_PATCH_CHARS = 30_000;

/**
 * What an outcome must come with, or the maintainer reading the comment
 * cannot act on it: a reproduction or a "not reproduced" names its evidence
 * (docs/skills.md, "Outcomes, by evidence"), "not a bug" the documentation or code that
 * says so, an answer its sources, a fix upstream the release and the branch
 * it was told apart on, a question what is missing, a pull request how it
 * was verified. The tool's validation answers the model with the field that
 * is missing, so it can call again.
 */
type RequiredField =
  | "steps"
  | "evidence"
  | "sources"
  | "answer"
  | "upstream"
  | "missing"
  | "pullRequestUrl"
  | "changes"
  | "verification"
  | "addressed"
  | "patch";
const REQUIRED_FIELDS: Partial<Record<ResultOutcome, ReadonlyArray<RequiredField>>> = {
  reproduced: ["steps", "evidence"],
  "not-reproduced": ["steps", "evidence"],
  "not-a-bug": ["evidence", "sources"],
  answered: ["answer", "sources"],
  "fixed-upstream": ["steps", "upstream"],
  "needs-info": ["missing"],
  "pr-opened": ["pullRequestUrl", "changes", "verification"],
  "pr-updated": ["pullRequestUrl", "changes", "verification"],
  "pr-unproven": ["pullRequestUrl", "changes", "verification"],
  "review-addressed": ["pullRequestUrl", "addressed", "verification"],
  "patch-suggested": ["patch", "addressed"]
};

/** Where a version the run tried came from. */
export const VERSION_SOURCES = ["reporter", "latest-release", "default-branch", "other"] as const;
export type VersionSource = (typeof VERSION_SOURCES)[number];

/** A version the run tried the reported behaviour on. */
export const triedVersionSchema = z.object({
  version: z
    .string()
    .min(1)
    .max(200)
    .describe("The version, tag, branch or commit as tried: `4.2.1`, `v4.2.1`, `main at 1a2b3c4`."),
  source: z
    .enum(VERSION_SOURCES)
    .describe("Where it came from: `reporter` (the version the issue names), `latest-release` (the newest published release), `default-branch` (the repository's default branch), `other`."),
  showed: z.boolean().describe("Whether the reported behaviour showed on it.")
});
export type TriedVersion = z.infer<typeof triedVersionSchema>;

/** A document, file or page an answer or a "not a bug" rests on. */
export const sourceSchema = z.object({
  where: z
    .string()
    .min(1)
    .max(500)
    .describe("Where it is: a file and its lines in the repository (`docs/options.md:40-52`, `src/parse.ts:118`), or the URL of a documentation page, a release note or an issue."),
  says: z.string().min(1).max(1_000).describe("What it says that bears on the report, quoted or in a sentence.")
});
export type ResultSource = z.infer<typeof sourceSchema>;

/** A commit named in full or in short, as `git log` and `git bisect` print it. */
const COMMIT_SHA = /^[0-9a-f]{7,40}$/i;

/** The releases and branch a fix upstream was told apart on, and the commit that fixed it when found. */
export const upstreamSchema = z.object({
  failsOn: z
    .string()
    .min(1)
    .max(200)
    .describe("The release it fails on: the latest release (or the one the reporter named, when newer is not published), as a version or tag (`v4.2.1`)."),
  passesOn: z
    .string()
    .min(1)
    .max(200)
    .describe("The branch or commit it passes on: the default branch with the commit tried (`main at 1a2b3c4`)."),
  fixedBy: z
    .object({
      commit: z.string().regex(COMMIT_SHA, "must be a commit's hex SHA, 7 to 40 characters").describe("The commit that fixed it."),
      subject: z.string().min(1).max(300).optional().describe("Its subject line."),
      foundWith: z.enum(["git log", "git bisect"]).describe("How it was found: read in `git log` between the two, or by `git bisect`.")
    })
    .optional()
    .describe("The commit that fixed it, when `git log` between the release and the branch or a `git bisect` finds it; leave it out rather than guess.")
});
export type UpstreamFix = z.infer<typeof upstreamSchema>;

/** The `report_result` tool's input: the skill's structured result. */
export const runResultSchema = z.object({
  outcome: z
    .enum(RESULT_OUTCOMES)
    .describe(
      "How the run ended. reproduced: the reported behaviour shows and contradicts what is documented or intended; not-reproduced: it does not show; not-a-bug: it shows, and works as documented or intended (cite it in `sources`); answered: a question or feature request, answered in `answer` from `sources`; fixed-upstream: it fails on the latest release and passes on the default branch (`upstream`); pr-updated: commits pushed to the App's open pull request for this issue; pr-unproven: a pull request opened or updated whose proof did not hold (agent-think decides this from the check it re-ran); review-addressed: review changes pushed to the pull request's branch; patch-suggested: nothing pushed, a patch in `patch`."
    ),
  summary: z.string().min(1).max(4_000).describe("One to three sentences a maintainer reads first."),
  steps: z
    .array(z.string().min(1).max(1_000))
    .min(1)
    .max(30)
    .optional()
    .describe("The commands that show it, or what was run (reproduced, not-reproduced, fixed-upstream; not-a-bug when something was run)."),
  evidence: z
    .string()
    .min(1)
    .max(2_000)
    .optional()
    .describe(
      "Why the outcome holds (reproduced, not-reproduced, not-a-bug): the documentation, test, types or source that the behaviour contradicts, or that says it is intended, with its file or link; or what was run that shows it does not occur. For not-a-bug where the documentation is ambiguous or silent, say so, and propose the wording in `docFix`."
    ),
  versions: z
    .array(triedVersionSchema)
    .min(1)
    .max(10)
    .optional()
    .describe(
      "Expected with reproduced, not-reproduced and fixed-upstream: each version the behaviour was tried on (the reporter's, the latest release, the default branch) and whether it showed there. When the default branch does not show it, the outcome is not `reproduced`."
    ),
  sources: z
    .array(sourceSchema)
    .min(1)
    .max(10)
    .optional()
    .describe("not-a-bug, answered: the documentation, code lines or pages the answer rests on, each with what it says."),
  answer: z
    .string()
    .min(1)
    .max(4_000)
    .optional()
    .describe("answered: the answer to the question or feature request, in the maintainers' terms: how to do it today, or whether the project supports it; every claim from `sources`."),
  docFix: z
    .string()
    .min(1)
    .max(2_000)
    .optional()
    .describe("not-a-bug, when the documentation is ambiguous or silent: the change to it that would have answered the report (the file and the new wording)."),
  upstream: upstreamSchema
    .optional()
    .describe("fixed-upstream: the release it fails on, the branch or commit it passes on, and the commit that fixed it when found."),
  missing: z
    .array(z.string().min(1).max(500))
    .min(1)
    .max(10)
    .optional()
    .describe("needs-info: what cannot be stated or checked (the input, the actual result, the expected result, a valid envelope), each as a question the reporter can answer."),
  check: checkCommandSchema
    .optional()
    .describe(
      "reproduced: the command, run from /workspace in the container, that exits non-zero while the bug occurs and 0 once it is fixed (for the template: cd /workspace/repro && npm run repro). A fix re-runs it, before and after the change, as its proof."
    ),
  reproductionUrl: z.url().optional().describe("The deployed reproduction page."),
  pullRequestUrl: z.url().optional().describe("The pull request that was opened."),
  changes: z.array(z.string().min(1).max(1_000)).max(30).optional().describe("What the pull request changes."),
  verification: z.string().min(1).max(2_000).optional().describe("How the result was verified."),
  addressed: z
    .array(
      z.object({
        comment: z.url().optional().describe("The review comment's URL."),
        path: z.string().min(1).max(500).optional().describe("The file it is about."),
        change: z.string().min(1).max(1_000).describe("What was changed for it, or why nothing was.")
      })
    )
    .max(30)
    .optional()
    .describe("One entry per review comment or review point handled (review-addressed, patch-suggested)."),
  patch: z.string().min(1).max(MAX_PATCH_CHARS).optional().describe("A unified diff (git diff) the maintainers can apply (patch-suggested).")
}).superRefine((result, ctx) => {
  for (const field of REQUIRED_FIELDS[result.outcome] ?? []) {
    if (result[field] === undefined) ctx.addIssue({ code: "custom", path: [field], message: `is required when outcome is "${result.outcome}"` });
  }
  // A bug the default branch no longer has is not one for the maintainers to fix: it is fixed, upstream or in a release.
  if (result.outcome === "reproduced" && result.versions?.some((tried) => tried.source === "default-branch" && !tried.showed)) {
    ctx.addIssue({
      code: "custom",
      path: ["outcome"],
      message:
        'is "reproduced", but `versions` says the default branch does not show it: report "fixed-upstream" with `upstream` when the latest release still shows it, or "not-reproduced" naming the release that fixed it'
    });
  }
  if (result.outcome === "fixed-upstream" && result.versions?.some((tried) => tried.source === "default-branch" && tried.showed)) {
    ctx.addIssue({ code: "custom", path: ["outcome"], message: 'is "fixed-upstream", but `versions` says the default branch still shows it: report "reproduced"' });
  }
});
export type RunResult = z.infer<typeof runResultSchema>;
