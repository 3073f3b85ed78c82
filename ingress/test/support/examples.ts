/**
 * GitHub's published webhook examples (@octokit/webhooks-examples) as the
 * Workers-runtime tests load them: as text through Vite's `?raw` (workerd
 * cannot read node_modules, and the pool loads vite's JSON modules of these
 * indexes of several MB much slower than JSON.parse reads them). Plain-Node code
 * reads the same files through `issueCommentExample()` in
 * scripts/lib/github-delivery.ts.
 */
import dotcom from "@octokit/webhooks-examples/api.github.com/index.json?raw";
import { pickCiExample, pickIssueCommentExample, pickPullRequestExample, type CiEventName, type PullRequestAction } from "../../../scripts/lib/github-delivery";

/** The github.com examples' index, as text (github-examples.test.ts adds GHES's). */
export const DOTCOM_EXAMPLES = dotcom;

/** The example every built delivery starts from (github.com, with an installation). */
export const ISSUE_COMMENT_EXAMPLE = pickIssueCommentExample(JSON.parse(dotcom));

/** Every `issue_comment.created` example in `published` (source name → index text), named by source. */
export function publishedIssueCommentCreated<Example>(published: Record<string, string>): { source: string; payload: Example }[] {
  return Object.entries(published).flatMap(([source, text]) => {
    const definitions = JSON.parse(text) as { name: string; examples: (Example & { action?: string })[] }[];
    const created = (definitions.find((definition) => definition.name === "issue_comment")?.examples ?? []).filter((example) => example.action === "created");
    return created.map((payload, index) => ({ source: `${source} #${index + 1}`, payload: payload as Example }));
  });
}

/** GitHub's github.com `issues` example for `action` (the first with an installation, as an App's deliveries have, else the first). */
export function issuesExample<Example>(action: "assigned" | "unassigned" | "labeled" | "unlabeled"): Example {
  const definitions = JSON.parse(DOTCOM_EXAMPLES) as { name: string; examples: (Example & { action?: string; installation?: unknown })[] }[];
  const examples = (definitions.find((definition) => definition.name === "issues")?.examples ?? []).filter((example) => example.action === action);
  const example = examples.find((candidate) => candidate.installation !== undefined) ?? examples[0];
  if (example === undefined) throw new Error(`@octokit/webhooks-examples publishes no issues.${action} example`);
  return structuredClone(example);
}

/** GitHub's github.com `<event>.completed` example naming a pull request, which `ciPayload` (scripts/lib/github-delivery.ts) builds on. */
export const ciExample = (event: CiEventName) => pickCiExample(JSON.parse(DOTCOM_EXAMPLES), event);

/** GitHub's github.com `pull_request.<action>` example with an installation, which `pullRequestPayload` (scripts/lib/github-delivery.ts) builds on. */
export const pullRequestExample = (action: PullRequestAction) => pickPullRequestExample(JSON.parse(DOTCOM_EXAMPLES), action);
