/**
 * A completed check suite or workflow run that failed on one of the App's
 * own pull requests: a CI follow-up. Before the answer its gates, each a
 * 204 with its reason and nothing written, then the pull request's claim,
 * the marker `handled:ci:<o>/<r>#<n>:<sha>` and 202; after it the run's
 * token, the App's identity, the failures (ci-failures.ts) and the dispatch.
 * Nobody asked, so nothing is posted: every outcome is a marker and a log
 * line. The gates in order, and why: docs/ingress.md, "CI follow-ups".
 */
import { z } from "zod";
import { CI_FIX_INSTRUCTION, type BotIdentity, type CiFailure, type DispatchInput, type DispatchResult } from "../../../src/shared/dispatch";
import { ciRefusalCode, isCiRefusal } from "../../../src/shared/ci-refusal";
import { isMonthlyBudgetRefusal } from "../../../src/shared/monthly-budget";
import { readCiFailures } from "../ci-failures";
import { failingConclusion, isCommitSha, pickPull, readCiEvent, type CiEvent, type CiEventName } from "../ci-trigger";
import { acceptsCiFix, isAllowedRepo, type IngressConfig } from "../config";
import { checkFreshness } from "../freshness";
import type { CiFixClaim } from "../comment-claim";
import type { InstallationClient, RepoRef, RepoToken } from "../github/app-client";
import { issueBodySha256 } from "../issue-body";
import type { Logger } from "../log";
import { pullRequestSchema, type PullRequestPayload } from "../payload";
import { repoCiFixes, type RepoFile } from "../repo-triggers";
import { pullRequestRef } from "../trigger";
import { respond } from "./responses";
import { MARKER_TTL_SECONDS } from "./accepted";
import { errorMessage, expiryField, settle } from "./run-fields";

/** GitHub's pull request, with what the gates read besides head and base: its state and its author's type. */
const ciPullRequestSchema = pullRequestSchema.extend({
  state: z.string().optional(),
  user: z.object({ login: z.string(), type: z.string().optional() }).nullable().optional()
});
type CiPullRequest = z.infer<typeof ciPullRequestSchema>;

export type CiMarkerState = "claimed" | "dispatched" | "failed" | "refused";

/** The KV record of one CI follow-up: `handled:ci:<owner>/<name>#<n>:<head sha>`. */
export type CiMarker = {
  state: CiMarkerState;
  repo: string;
  issueNumber: number;
  ciEvent: CiEventName;
  headSha: string;
  deliveryId: string;
  claimedAt: string;
  updatedAt: string;
  session?: string;
  submissionId?: string;
  reason?: string;
};

export const ciMarkerKey = (repo: string, issueNumber: number, headSha: string) => `handled:ci:${repo.toLowerCase()}#${issueNumber}:${headSha}`;
/** The pull request's CI claim object: one per pull request, counting its follow-ups across heads. */
export const ciClaimName = (repo: RepoRef, issueNumber: number) => `ci-fix:${repo.owner}/${repo.name}#${issueNumber}`.toLowerCase();
export { MARKER_TTL_SECONDS as CI_MARKER_TTL_SECONDS };

export type CiEventDeps = {
  log: Logger;
  now(): number;
  /** The App's bot login as GitHub named it, if this isolate already learned it. */
  knownBotLogin(): string | undefined;
  appSlug(): Promise<{ ok: true; slug: string } | { ok: false; code: string; error: string }>;
  /** GitHub's description of the pull request, asked before the answer (a token minted once, one try each within 3 s); throws otherwise. */
  pullBeforeAnswer(repo: RepoRef, number: number, installationId: number | undefined): Promise<unknown>;
  /** `.github/agent-think.yml` on the default branch, read with the delivery's installation token; throws when GitHub would not say. */
  repoConfigFile(repo: RepoRef, installationId: number | undefined): Promise<RepoFile>;
  claimCiFix(repo: RepoRef, issueNumber: number, headSha: string, deliveryId: string, limit: number): Promise<CiFixClaim>;
  markCi(marker: CiMarker): Promise<void>;
  mintToken(repo: RepoRef, installationId?: number): Promise<RepoToken>;
  /** A token that may only read checks and actions (CI_READ_TOKEN_PERMISSIONS), to read the failures: never the run's. */
  mintCiReadToken(repo: RepoRef, installationId?: number): Promise<RepoToken>;
  github(token: string): InstallationClient;
  identity(token: string): Promise<BotIdentity>;
  dispatch(input: DispatchInput): Promise<DispatchResult>;
  /** Downloads a job's log from the address GitHub gave (no token). */
  download(url: string, init: RequestInit): Promise<Response>;
  waitUntil(promise: Promise<unknown>): void;
};

export async function handleCiEvent(event: CiEventName, payload: unknown, deliveryId: string, config: IngressConfig, deps: CiEventDeps): Promise<Response> {
  const { log } = deps;
  const ignore = (reason: string, fields: Record<string, unknown> = {}) => {
    log("delivery:ignored", { deliveryId, githubEvent: event, reason, ...fields });
    return respond(204, `ignored:${reason}`);
  };
  const read = readCiEvent(event, payload);
  if (!read.ok) {
    if (read.ignore) return ignore(read.ignore, read.action === undefined ? {} : { action: read.action });
    log("delivery:rejected", { deliveryId, status: 400, outcome: "bad_payload", field: read.field });
    return respond(400, "bad_payload");
  }
  const { ci } = read;
  const repo: RepoRef = { owner: ci.repository.owner, name: ci.repository.name };
  let where: Record<string, unknown> = { repo: ci.repository.fullName, ciId: ci.sourceId, headSha: ci.headSha };

  if (!failingConclusion(ci.conclusion)) return ignore("ci_not_failed", { ...where, conclusion: ci.conclusion });
  if (!isAllowedRepo(config, ci.repository.fullName)) return ignore("repo_not_allowed", where);
  const freshness = checkFreshness(ci.updatedAt, deps.now());
  if (!freshness.fresh) return ignore("stale_delivery", { ...where, updatedAt: ci.updatedAt, ageSeconds: freshness.ageSeconds });
  if (!ci.sameRepository) return ignore("fork", where);
  const pick = pickPull(ci);
  if (!pick.ok) return ignore(pick.ignore, { ...where, headBranch: ci.headBranch, pullRequests: ci.pulls.map((pull) => pull.number) });
  if (!isCommitSha(ci.headSha)) return ignore("bad_head_sha", where);
  const number = pick.pull.number;
  where = { ...where, issueNumber: number };
  // Whatever the repository's own file says: only the operator can accept what its CI does with its secrets.
  if (!acceptsCiFix(config, ci.repository.fullName)) return ignore("ci_fix_not_accepted", { ...where, why: "CI_FIX_REPOS does not list this repository" });

  // The App's bot as GitHub names it: this isolate's, else `<slug>[bot]` (never BOT_LOGIN).
  let bot = deps.knownBotLogin()?.toLowerCase();
  if (bot === undefined) {
    const app = await deps.appSlug();
    if (!app.ok) {
      log("handle:failed", { deliveryId, ...where, code: app.code, error: app.error });
      return respond(502, "app_unknown");
    }
    bot = `${app.slug.toLowerCase()}[bot]`;
  }
  let pull: CiPullRequest;
  try {
    pull = ciPullRequestSchema.parse(await deps.pullBeforeAnswer(repo, number, ci.installationId));
  } catch (error) {
    log("ci:pull-failed", { deliveryId, ...where, error: error instanceof Error && error.name === "ZodError" ? "GitHub's answer is not a pull request" : errorMessage(error) });
    return respond(502, "pull_check_failed");
  }
  const author = pull.user ?? null;
  if (pull.number !== number) return ignore("not_app_pull_request", { ...where, why: "GitHub answered with another pull request" });
  if (author === null || author.login.toLowerCase() !== bot || (author.type !== undefined && author.type !== "Bot")) {
    return ignore("not_app_pull_request", { ...where, author: author?.login ?? null });
  }
  if (pull.state !== undefined && pull.state !== "open") return ignore("pull_closed", { ...where, state: pull.state });
  if ((pull.head.repo?.full_name ?? "").toLowerCase() !== ci.repository.fullName.toLowerCase()) return ignore("fork", where);
  if (pull.head.ref !== pick.pull.headRef) return ignore("not_app_branch", { ...where, headBranch: pull.head.ref });
  if (pull.head.sha !== ci.headSha) return ignore("outdated_head", { ...where, pullHeadSha: pull.head.sha });

  let file: RepoFile;
  try {
    file = await deps.repoConfigFile(repo, ci.installationId);
  } catch (error) {
    log("repo-config:unreadable", { deliveryId, ...where, error: errorMessage(error), using: "ci off" });
    return ignore("ci_off", { ...where, why: "repo_config_unreadable" });
  }
  const fixes = repoCiFixes(file);
  if (!fixes.ok) {
    log("repo-config:invalid", { deliveryId, ...where, errors: fixes.errors });
    return ignore("repo_config_invalid", where);
  }
  if (fixes.fix === 0) return ignore("ci_off", where);

  const claim = await deps.claimCiFix(repo, number, ci.headSha, deliveryId, fixes.fix);
  if (!claim.ok) return ignore(claim.reason === "duplicate" ? "duplicate" : "ci_fix_limit", { ...where, count: claim.count, limit: fixes.fix });
  log("delivery:claimed", { deliveryId, ...where, githubEvent: event, trustedBy: "ci", fix: claim.count, limit: fixes.fix });

  const claimedAt = new Date(deps.now()).toISOString();
  const mark = (state: CiMarkerState, extra: Partial<CiMarker> = {}) =>
    deps.markCi({
      state,
      repo: ci.repository.fullName,
      issueNumber: number,
      ciEvent: event,
      headSha: ci.headSha,
      deliveryId,
      claimedAt,
      updatedAt: new Date(deps.now()).toISOString(),
      ...extra
    });
  await mark("claimed");
  const context = { ci, repo, pull, deliveryId, where: { deliveryId, ...where } };
  deps.waitUntil(handOverCi(context, deps, mark).catch((error: unknown) => log("delivery:error", { ...context.where, error: errorMessage(error) })));
  log("delivery:accepted", context.where);
  return respond(202, "accepted");
}

type CiContext = { ci: CiEvent; repo: RepoRef; pull: PullRequestPayload; deliveryId: string; where: Record<string, unknown> };

/** After the answer: token, identity, the failures, the dispatch; every outcome is the marker and a log line. */
async function handOverCi(context: CiContext, deps: CiEventDeps, mark: (state: CiMarkerState, extra?: Partial<CiMarker>) => Promise<void>): Promise<void> {
  const { log } = deps;
  const { ci, repo, pull, where } = context;
  let token: RepoToken;
  try {
    token = await deps.mintToken(repo, ci.installationId);
  } catch (error) {
    log("token:failed", { ...where, code: (error as { code?: unknown }).code, error: errorMessage(error) });
    await settle(mark("failed", { reason: "token" }), log, where);
    return;
  }
  log.addSecret(token.token);
  log("token:minted", { ...where, expiresAt: token.expiresAt });
  let bot: BotIdentity;
  try {
    bot = await deps.identity(token.token);
  } catch (error) {
    log("identity:failed", { ...where, code: (error as { code?: unknown }).code, error: errorMessage(error) });
    await settle(mark("failed", { reason: "identity" }), log, where);
    return;
  }
  // Checks and actions are read with a token of their own: the run's token never gets those permissions.
  let reader: InstallationClient | null = null;
  try {
    const readToken = await deps.mintCiReadToken(repo, ci.installationId);
    log.addSecret(readToken.token);
    reader = deps.github(readToken.token);
  } catch (error) {
    log("ci:token-failed", { ...where, code: (error as { code?: unknown }).code, error: errorMessage(error) });
  }
  const failures: CiFailure[] = await readCiFailures(ci, repo, reader, { log, fetch: deps.download }, where);
  log("ci:failures", { ...where, failures: failures.map((failure) => ({ name: failure.name, conclusion: failure.conclusion, excerptChars: failure.excerpt?.length ?? 0 })) });
  const bodyDigest = await issueBodySha256(pull.body);
  const visibility = ci.repository.visibility;
  const input: DispatchInput = {
    repo: ci.repository.fullName,
    issueNumber: pull.number,
    instruction: CI_FIX_INSTRUCTION,
    installationToken: token.token,
    ...expiryField(token.expiresAt),
    issueTitle: pull.title.slice(0, 1024),
    ...(bodyDigest === undefined ? {} : { issueBodySha256: bodyDigest }),
    ...(visibility ? { repoVisibility: visibility } : {}),
    bot,
    // As GitHub described it before the answer: the App's, its head in this repository, at the failing commit.
    pullRequest: pullRequestRef(pull),
    ci: { headSha: ci.headSha, failures }
  };
  let result: DispatchResult;
  try {
    result = await deps.dispatch(input);
  } catch (error) {
    const reason = isCiRefusal(error) ? ciRefusalCode(error) : isMonthlyBudgetRefusal(error) ? "monthly_budget" : undefined;
    if (reason !== undefined) {
      log("delivery:refused", { ...where, reason, error: errorMessage(error) });
      await settle(mark("refused", { reason }), log, where);
      return;
    }
    log("dispatch:failed", { ...where, error: errorMessage(error) });
    await settle(mark("failed", { reason: "dispatch" }), log, where);
    return;
  }
  log("dispatch:done", { ...where, session: result.session, submissionId: result.submissionId, threadUrl: result.threadUrl });
  await settle(mark("dispatched", { session: result.session, submissionId: result.submissionId }), log, where);
}
