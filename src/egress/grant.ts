/**
 * What the egress gateway may do for one issue's sandbox at this moment:
 * the grant. The ThinkAgent answers it per request from what it knows (the
 * running turn, its write policy, the repository's network allowlist, the
 * run's tokens), so a policy, a renewed token or the run's end apply to the
 * next request. Where a fact is missing the grant is smaller: no turn, no
 * credential; no policy yet, no push. Pure.
 */
import { allowList, parseAllowSetting, type AllowEntry, type AllowRule } from "../run/host-allowlist";
import type { RegistryGrant } from "./registry-grants";

export type EgressGrant = {
  /** The turn the sandbox's requests belong to (refusals are recorded against it); absent: no run is going on. */
  submissionId?: string;
  /** The run's repository, `owner/name` lowercase: the only one a push may go to. */
  repo?: string;
  /** Repositories whose git and API reads get the read-only token (the run's, a pull request's head). */
  readRepos: string[];
  /** The one branch a push may update; null: no push. */
  pushBranch: string | null;
  /** A read-only installation token ("" when there is none). */
  readToken: string;
  /** The run's write token, only when there is a push branch ("" otherwise). */
  writeToken: string;
  /** Every host outside GitHub the sandbox may reach, and how. */
  allow: AllowEntry[];
  /** EGRESS=open: the operator turned the host allowlist off (GitHub's rules still hold). */
  open: boolean;
  /** The repository's private registries this request may need, each with the credential the gateway attaches. */
  registries: RegistryGrant[];
  /** Why no push lands, said to git, when the run's policy gives a reason of its own. */
  pushRefusal?: string;
};

export type GrantFacts = {
  submissionId?: string;
  repo?: string;
  /** A pull request's head repository, when the run is on one. */
  headRepo?: string;
  /** The prepared write policy's branch; undefined: no policy is known yet (read-only). */
  pushBranch?: string | null;
  /** The repository's `network.allow`, as the run's egress policy keeps it (hosts, and hosts with their methods). */
  repositoryAllow?: readonly AllowRule[];
  readToken: string;
  writeToken: string;
  /** EGRESS and EGRESS_ALLOW. */
  egress?: string;
  egressAllow?: string;
  /** Other repositories of the owner the run may read (a `git` registry entry); only while a turn runs. */
  alsoRead?: readonly string[];
  /** The private registries' credentials for this request (registry-grants.ts); only while a turn runs. */
  registries?: readonly RegistryGrant[];
  pushRefusal?: string;
};

/** The grant for these facts: write only with a known push branch and a running turn. */
export function grantFor(facts: GrantFacts): EgressGrant {
  const repo = facts.repo?.toLowerCase();
  const running = facts.submissionId !== undefined && repo !== undefined;
  const pushBranch = running ? (facts.pushBranch ?? null) : null;
  const readRepos = running ? [repo, ...(facts.headRepo ? [facts.headRepo.toLowerCase()] : []), ...(facts.alsoRead ?? []).map((name) => name.toLowerCase())] : [];
  return {
    ...(running ? { submissionId: facts.submissionId, repo } : {}),
    readRepos: [...new Set(readRepos)],
    pushBranch,
    readToken: running ? facts.readToken : "",
    writeToken: pushBranch !== null ? facts.writeToken : "",
    allow: allowList(facts.repositoryAllow ?? [], parseAllowSetting(facts.egressAllow).entries),
    open: egressOpen(facts.egress),
    registries: running ? [...(facts.registries ?? [])] : [],
    ...(running && facts.pushRefusal ? { pushRefusal: facts.pushRefusal } : {})
  };
}

/** EGRESS=open turns the host allowlist off; anything else (blank, "allowlist", a typo) keeps it. */
export function egressOpen(value: string | undefined): boolean {
  return (value ?? "").trim().toLowerCase() === "open";
}
