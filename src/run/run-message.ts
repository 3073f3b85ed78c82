/**
 * The user message that opens each run: the `<agent-think-run>` envelope
 * built from the run context, then one plain sentence. Commenter-controlled
 * text is cleaned as it enters here (hidden content removed, and the run's
 * token or anything shaped like a GitHub token redacted: a maintainer who
 * pastes one does not hand it to the model); the run context keeps it as
 * given. Links point at the deploy's GitHub, never a fixed github.com.
 * Pure; used by ThinkAgent for dispatched and continued runs.
 */
import type { UIMessage } from "ai";
import { formatRunMessage, type RunEnvelope } from "./envelope";
import type { RunContext } from "./run-context";
import type { PullRequestRef } from "../shared/dispatch";
import type { Removed } from "./sanitize";
import { redactSecrets } from "./redact";
import { sanitizeUserText } from "./sanitize";
import { commentUrl, GITHUB_COM, issueUrl, type GitHubHost } from "../shared/github-urls";

/**
 * The user message that opens a run: the envelope, then one plain sentence.
 * `github` is the deploy's GitHub (`githubHost(GITHUB_API_URL)`): its links
 * and the host the skills check them against. `botLogin` is the App's bot
 * the run acts as: a pull request it opened is "byThisApp".
 */
export function runMessage(
  run: RunContext,
  session: string,
  now: number,
  continuationOf?: string,
  github: GitHubHost = GITHUB_COM,
  botLogin: string | undefined = run.bot?.login
): UIMessage {
  // Commenter-controlled text is cleaned here, as it enters the prompt; the
  // run context keeps it as it was given.
  // The instruction is markdown a person wrote (what GitHub does not display is removed too); a title, a ref or a diff hunk is not.
  const clean = (text: string, markdown = false) => {
    const sanitized = sanitizeUserText(text, { markdown });
    return { ...sanitized, text: redactSecrets(sanitized.text, [run.installationToken]) };
  };
  const instruction = clean(run.instruction, true);
  const title = run.issueTitle === undefined ? undefined : clean(run.issueTitle);
  const pull = run.pullRequest === undefined ? undefined : pullRequestBlock(run.pullRequest, run.repo, github.web, clean, botLogin);
  const removed = [...new Set([...instruction.removed, ...(title?.removed ?? []), ...(pull?.removed ?? [])])];
  const envelope: RunEnvelope = {
    repository: run.repo,
    kind: pull ? "pull_request" : "issue",
    issue: { number: run.issueNumber, title: title?.text, url: issueUrl(github.web, run.repo, run.issueNumber) },
    ...(pull ? { pullRequest: pull.block } : {}),
    github: { host: github.host, web: github.web },
    instruction: instruction.text,
    requestedBy: run.requestedBy,
    triggeringComment:
      run.commentId === undefined ? undefined : { id: run.commentId, url: commentUrl(github.web, run.repo, run.issueNumber, run.commentId) },
    session,
    submittedAt: new Date(now).toISOString(),
    ...(continuationOf === undefined ? {} : { continuationOf }),
    ...(removed.length > 0 ? { sanitized: removed } : {})
  };
  return {
    id: continuationOf === undefined && run.commentId !== undefined ? `comment-${run.commentId}` : crypto.randomUUID(),
    role: "user",
    parts: [{ type: "text", text: formatRunMessage(envelope) }]
  };
}

type Cleaned = { text: string; removed: readonly Removed[] };

/**
 * The envelope's `pullRequest`: the dispatch's, with links on the deploy's
 * GitHub. Branch names, the file path and the diff hunk are written by
 * whoever opened the pull request, so they are cleaned like the instruction.
 */
function pullRequestBlock(
  pull: PullRequestRef,
  repo: string,
  web: string,
  clean: (text: string) => Cleaned,
  botLogin: string | undefined
): { block: NonNullable<RunEnvelope["pullRequest"]>; removed: Removed[] } {
  const removed: Removed[] = [];
  const text = (value: string) => {
    const cleaned = clean(value);
    removed.push(...cleaned.removed);
    return cleaned.text;
  };
  const optionalText = (value: string | undefined) => (value === undefined ? undefined : text(value));
  const url = `${web}/${repo}/pull/${pull.number}`;
  const comment = pull.reviewComment;
  const block: NonNullable<RunEnvelope["pullRequest"]> = {
    number: pull.number,
    url,
    headRepo: pull.headRepo,
    headRef: optionalText(pull.headRef),
    headSha: pull.headSha,
    baseRef: optionalText(pull.baseRef),
    fork: pull.fork,
    ...(pull.author === undefined
      ? {}
      : { author: pull.author, byThisApp: botLogin !== undefined && pull.author.toLowerCase() === botLogin.toLowerCase() }),
    ...(pull.reviewId === undefined ? {} : { review: { id: pull.reviewId, url: `${url}#pullrequestreview-${pull.reviewId}` } }),
    ...(comment === undefined
      ? {}
      : {
          reviewComment: {
            id: comment.id,
            url: `${url}#discussion_r${comment.id}`,
            path: text(comment.path),
            startLine: comment.startLine,
            line: comment.line,
            side: comment.side,
            diffHunk: text(comment.diffHunk)
          }
        })
  };
  return { block, removed };
}
