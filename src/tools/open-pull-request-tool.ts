/**
 * `open_pull_request`: how a run opens its pull request, or updates the one
 * the App has open for its branch. The sandbox cannot write to GitHub (the
 * egress gateway refuses it), so the Worker does it, as the App, held to
 * the run's write policy (src/steps/open-pull-request.ts): the head is the
 * run's push branch, the base the default branch. Where the run's commits
 * must be signed, it also makes them, through GitHub's API. The tool only
 * describes and forwards; failures come back as data.
 */
import { tool } from "ai";
import { z } from "zod";
import { checkCommandSchema } from "../run/ending";
import { MAX_PULL_REQUEST_TITLE_CHARS, type OpenPullRequestInput, type OpenPullRequestResult } from "../run/pull-request-input";

export const openPullRequestInputSchema = z.object({
  title: z.string().min(1).max(MAX_PULL_REQUEST_TITLE_CHARS).describe("The pull request's title."),
  body: z.string().max(60_000).describe("The pull request's description, in Markdown (references/pull-request.md has the template)."),
  draft: z.boolean().optional().describe("Open it as a draft (only when opening one)."),
  check: checkCommandSchema
    .optional()
    .describe(
      "The reproduction's check, run from /workspace in the container: it exits non-zero while the bug occurs and 0 once fixed, and tests the clone's code. agent-think runs it on the base without your change, then on the pushed head, and adds both results to the body. Omitted, the check the thread's reproduction recorded is used, when a run of the same or a higher tier recorded it; the proof says whose check it ran."
    )
});

export function createOpenPullRequestTool(deps: { open(input: OpenPullRequestInput): Promise<OpenPullRequestResult> }) {
  return tool({
    description: [
      "Open the pull request of this run's push branch against the default branch, or update the title and body of the one the App already has open for it.",
      "Push the commits first, with git, to the push branch: the sandbox cannot write to GitHub any other way.",
      "Except when the workspace block's `commits.via` is \"api\" (the repository requires signed commits): then do not push; commit locally, and this tool makes each local commit the push branch lacks on GitHub through its API (signed by GitHub), then moves the clone onto them; its `commits` says which it made.",
      "The result names the pull request's number and URL, whether it was opened or updated, and its `proof`: the fix is proven only when the check failed before and passes after."
    ].join(" "),
    inputSchema: openPullRequestInputSchema,
    execute: (input) => deps.open(input)
  });
}
