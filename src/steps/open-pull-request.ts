/**
 * What `open_pull_request` does for a run: open the pull request of the
 * run's push branch against the default branch, or update the App's open
 * one for it (or the App's own pull request the run is on); where it may do
 * neither, it says why and writes nothing. The model picks the title and
 * body, never head or base; the body is neutralized, redacted and capped,
 * and ends with the Worker's proof when the run has a check (`prove`,
 * fix-proof.ts). A failure is data for the model. docs/security.md ("The
 * Worker writes"); pure apart from the client and the prover it is given.
 */
import type { PullRequestClient } from "../github/pull-requests";
import { capBody, cutText, MAX_COMMENT_BODY_CHARS } from "../report/body-cap";
import type { LinkPolicy } from "../report/link-policy";
import { neutralize } from "../report/neutralize";
import { PROOF_HEADING, proofSection } from "../report/proof-text";
import type { ProofRecord } from "../run/fix-proof";
import { MAX_PULL_REQUEST_TITLE_CHARS, type OpenPullRequestInput, type OpenPullRequestResult, type PullRequestTarget } from "../run/pull-request-input";

export async function openPullRequest(
  input: OpenPullRequestInput,
  target: PullRequestTarget,
  deps: {
    client: PullRequestClient;
    links: LinkPolicy;
    redact: (text: string) => string;
    /** The proof of the change on `branch` against `base`, or undefined when the run has nothing to prove it with. */
    prove?: (base: string, branch: string) => Promise<ProofRecord | undefined>;
  }
): Promise<OpenPullRequestResult> {
  const branch = target.policy.pushBranch;
  if (branch === null) return { ok: false, error: `this run may not open or update a pull request: ${target.policy.why ?? "it may not push"}` };
  const title = cutText(deps.redact(input.title).replace(/\s*\n\s*/g, " ").trim(), MAX_PULL_REQUEST_TITLE_CHARS);
  if (!title) return { ok: false, error: "the pull request needs a title" };
  try {
    const existing =
      target.ownPullRequest ??
      target.openPullRequest ??
      (target.botLogin ? await deps.client.openByAuthor(target.repo, branch, target.botLogin) : null);
    if (!existing && !target.policy.mayOpenPullRequest) return { ok: false, error: `this run may not open a pull request: ${target.policy.why ?? "it opens none"}` };
    const base = await deps.client.defaultBranch(target.repo);
    const proof = await deps.prove?.(base, branch);
    const body = bodyWithProof(input.body, proof, deps);
    if (existing) {
      const updated = await deps.client.update(target.repo, existing.number, { title, body });
      return { ok: true, action: "updated", ...updated, head: branch, base, ...(proof ? { proof } : {}) };
    }
    const opened = await deps.client.open(target.repo, { head: branch, base, title, body, draft: input.draft === true });
    return { ok: true, action: "opened", ...opened, head: branch, base, ...(proof ? { proof } : {}) };
  } catch (error) {
    return { ok: false, error: deps.redact(error instanceof Error ? error.message : String(error)) };
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
