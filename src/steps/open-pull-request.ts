/**
 * What `open_pull_request` does for a run: open the pull request of the run's push branch against
 * the default branch, or update the App's open one for it (or the App's own pull request the run is
 * on); where it may do neither, it says why and writes nothing. The model picks the title and body,
 * never head or base; the body is neutralized, redacted and capped, and ends with the Worker's
 * proof when the run has a check (`prove`, fix-proof.ts). Where the run's commits must be signed,
 * they are made through GitHub's API first (`commit`, api-commits.ts). A failure is data for the
 * model. docs/security.md ("The Worker writes"); pure apart from the client, the committer and the
 * prover it is given.
 */
import type { PullRequestClient } from "../github/pull-requests";
import { capBody, cutText, MAX_COMMENT_BODY_CHARS } from "../report/body-cap";
import type { LinkPolicy } from "../report/link-policy";
import { neutralize } from "../report/neutralize";
import { PROOF_HEADING, proofSection } from "../report/proof-text";
import type { ProofRecord } from "../run/fix-proof";
import { MAX_PULL_REQUEST_TITLE_CHARS, type ApiCommitsSummary, type OpenPullRequestInput, type OpenPullRequestResult, type PullRequestTarget } from "../run/pull-request-input";
import type { ApiCommitsResult } from "./api-commits";

export async function openPullRequest(
  input: OpenPullRequestInput,
  target: PullRequestTarget,
  deps: {
    client: PullRequestClient;
    links: LinkPolicy;
    redact: (text: string) => string;
    /** The proof of the change on `branch` against `base`, or undefined when the run has nothing to prove it with. */
    prove?: (base: string, branch: string) => Promise<ProofRecord | undefined>;
    /** Makes the clone's commits on `branch` through GitHub's API (target.commits "api"). */
    commit?: (branch: string) => Promise<ApiCommitsResult>;
  }
): Promise<OpenPullRequestResult> {
  const branch = target.policy.pushBranch;
  if (branch === null) return { ok: false, error: `this run may not open or update a pull request: ${target.policy.why ?? "it may not push"}` };
  const title = cutText(deps.redact(input.title).replace(/\s*\n\s*/g, " ").trim(), MAX_PULL_REQUEST_TITLE_CHARS);
  if (!title) return { ok: false, error: "the pull request needs a title" };
  let commits: ApiCommitsSummary | undefined;
  if (target.commits === "api") {
    if (!deps.commit) return { ok: false, error: "this run's commits must be made through GitHub's API, and this deployment cannot make them" };
    const made = await deps.commit(branch);
    if (!made.ok) {
      const summary = made.made ? { made: made.made, head: made.made.at(-1)!.oid, clone: "not moved: the commits stopped part way" } : undefined;
      return { ok: false, error: deps.redact(`the commits were not made on GitHub: ${made.error}`), ...(summary ? { commits: summary } : {}) };
    }
    commits = { made: made.made, head: made.head, ...(made.created ? { createdBranch: true } : {}), clone: made.synced === true ? "moved onto the commits GitHub made" : deps.redact(made.synced) };
  }
  const withCommits = <T extends OpenPullRequestResult>(result: T): T => (commits ? { ...result, commits } : result);
  try {
    const existing =
      target.ownPullRequest ??
      target.openPullRequest ??
      (target.botLogin ? await deps.client.openByAuthor(target.repo, branch, target.botLogin) : null);
    if (!existing && !target.policy.mayOpenPullRequest) return withCommits({ ok: false, error: `this run may not open a pull request: ${target.policy.why ?? "it opens none"}` });
    const base = await deps.client.defaultBranch(target.repo);
    const proof = await deps.prove?.(base, branch);
    const body = bodyWithProof(input.body, proof, deps);
    if (existing) {
      const updated = await deps.client.update(target.repo, existing.number, { title, body });
      return withCommits({ ok: true, action: "updated", ...updated, head: branch, base, ...(proof ? { proof } : {}) });
    }
    const opened = await deps.client.open(target.repo, { head: branch, base, title, body, draft: input.draft === true });
    return withCommits({ ok: true, action: "opened", ...opened, head: branch, base, ...(proof ? { proof } : {}) });
  } catch (error) {
    return withCommits({ ok: false, error: deps.redact(error instanceof Error ? error.message : String(error)) });
  }
}

/**
 * The model's body, neutralized and cut to leave room, then the Worker's
 * proof section; a proof section the model wrote itself is dropped, so the
 * body shows only the Worker's.
 */
function bodyWithProof(text: string, proof: ProofRecord | undefined, deps: { links: LinkPolicy; redact: (text: string) => string }): string {
  const own = deps.redact(text).split(PROOF_HEADING)[0]!.trimEnd();
  if (!proof) return capBody(neutralize(own, deps.links));
  const section = neutralize(deps.redact(proofSection(proof)), deps.links);
  const room = MAX_COMMENT_BODY_CHARS - section.length - 2;
  return `${capBody(neutralize(own, deps.links), room)}\n\n${section}`;
}
