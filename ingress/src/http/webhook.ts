/**
 * `POST /webhooks/github`: from a GitHub delivery to a started run. A
 * verified delivery (delivery.ts) passes the gates in order (event and
 * action, payload, allowlist, mention, freshness, a human with write access
 * or the reporter tier, an issue event's triggers), then the atomic claim;
 * start-run.ts writes the marker and answers 202. A CI follow-up goes its
 * own way (ci-event.ts), as does a change to one of the App's pull requests
 * (pull-request-event.ts). Nothing is written before the claim. Each gate,
 * its answer and why: docs/ingress.md. Its deps are wired by index.ts.
 */
import { ConfigError, isAllowedRepo, type IngressConfig } from "../config";
import { checkFreshness } from "../freshness";
import type { RepoRef } from "../github/app-client";
import { gateCommenter, gatePermission } from "../gates";
import type { Logger } from "../log";
import { parseMention, type MentionParse } from "../mention";
import { REPO_CONFIG_PATH, type RepoFile } from "../repo-triggers";
import { decideReporter, isIssueAuthor, reportersOn } from "../reporter-tier";
import type { TriggerConfig } from "../../../src/run/repo-config";
import { askedBy, checkAssignee, decideIssueEvent, type IssueEventDeps } from "./issue-event";
import type { PermissionLookup } from "../permission";
import { readTrigger, type TriggerRef } from "../trigger";
import { readDelivery } from "./delivery";
import { respond } from "./responses";
import { triggerFields } from "./run-fields";
import type { AcceptedComment, StartRunDeps } from "./accepted";
import { startRun } from "./start-run";
import { isCiEvent } from "../ci-trigger";
import { handleCiEvent, type CiEventDeps } from "./ci-event";
import { PULL_REQUEST_EVENT } from "../pull-request-change";
import { handlePullRequestEvent, type PullRequestEventDeps } from "./pull-request-event";

export const WEBHOOK_PATH = "/webhooks/github";

export type WebhookDeps = StartRunDeps & IssueEventDeps & CiEventDeps & PullRequestEventDeps & {
  /** Throws ConfigError when a var is unusable. */
  config(): IngressConfig;
  /** The webhook secret, or "" when it is not set. */
  webhookSecret: string;
  verify(payload: string, signature: string): Promise<boolean>;
  /** True for the first claim of this comment, review comment or review (within the claim's retention); false for every later one. */
  claim(ref: TriggerRef, deliveryId: string): Promise<boolean>;
  /**
   * GitHub's word on `login`'s permission on `repo`, cached (permission.ts),
   * asked with a token for the payload's installation; a failure is a result.
   */
  permission(repo: RepoRef, login: string, installationId: number | undefined): Promise<PermissionLookup>;
  /** The App's bot login as GitHub named it, if this isolate already learned it (no I/O: the answer is waiting). */
  knownBotLogin(): string | undefined;
  /**
   * `.github/agent-think.yml` for a commenter GitHub refused write access
   * (the reporter tier), before the answer: read with the token the
   * permission check minted, else with the reporter run's read-only one
   * (minted now and kept for the run), never a write token minted for it.
   * Throws when GitHub would not say.
   */
  reporterConfigFile(repo: RepoRef, installationId: number | undefined): Promise<RepoFile>;
  /** The App's slug, for the handle when MENTION_HANDLE is unset: kept (isolate, KV), else `GET /app` within a second; a failure is a result. */
  appSlug(): Promise<{ ok: true; slug: string } | { ok: false; code: string; error: string }>;
  log: Logger;
};

export async function handleWebhook(request: Request, deps: WebhookDeps): Promise<Response | null> {
  if (new URL(request.url).pathname !== WEBHOOK_PATH) return null;
  if (request.method !== "POST") {
    return respond(405, "method_not_allowed", { allow: "POST" });
  }
  const { log } = deps;
  let config: IngressConfig;
  try {
    config = deps.config();
    if (deps.webhookSecret === "") throw new ConfigError("GITHUB_WEBHOOK_SECRET", "is not set");
  } catch (error) {
    // Refuse everything rather than run without a signature check or an allowlist.
    if (!(error instanceof ConfigError)) throw error;
    log("config:invalid", { variable: error.variable, error: error.message });
    return respond(500, "config_error");
  }

  const deliveryId = request.headers.get("x-github-delivery") ?? "";
  const delivery = await readDelivery(request, { maxBodyBytes: config.maxBodyBytes, verify: deps.verify });
  if (!delivery.ok) {
    log("delivery:rejected", { deliveryId, status: delivery.status, outcome: delivery.outcome });
    return respond(delivery.status, delivery.outcome);
  }
  const { event, payload } = delivery.delivery;
  const ignore = (reason: string, fields: Record<string, unknown> = {}) => {
    log("delivery:ignored", { deliveryId, githubEvent: event, reason, ...fields });
    return respond(204, `ignored:${reason}`);
  };

  // A completed check suite or workflow run: a CI follow-up's own gates (ci-event.ts).
  if (isCiEvent(event)) return handleCiEvent(event, payload, deliveryId, config, deps);
  // One of the App's pull requests opened, merged or closed: its repository's record (pull-request-event.ts).
  if (event === PULL_REQUEST_EVENT) return handlePullRequestEvent(payload, deliveryId, config, deps);
  const read = readTrigger(event, payload, deliveryId);
  if (!read.ok) {
    if (read.ignore) return ignore(read.ignore, read.action === undefined ? {} : { action: read.action });
    log("delivery:rejected", { deliveryId, status: 400, outcome: "bad_payload", field: read.field });
    return respond(400, "bad_payload");
  }
  const { trigger } = read;
  const { repository } = trigger;
  const repo = { owner: repository.owner, name: repository.name };
  const where = { repo: repository.fullName, issueNumber: trigger.issueNumber, ...triggerFields(trigger.ref) };

  if (!isAllowedRepo(config, repository.fullName)) return ignore("repo_not_allowed", where);
  // MENTION_HANDLE, else the App's own @<slug>: never a default GitHub did not give.
  let handle = config.handle;
  let mention: MentionParse | undefined;
  if (trigger.issueEvent === undefined) {
    // A comment with no `@` mentions no one: GitHub is not asked the slug for it.
    if (handle === "" && !trigger.body.includes("@")) return ignore("no_mention", where);
    if (handle === "") {
      const app = await deps.appSlug();
      if (!app.ok) {
        log("handle:failed", { deliveryId, ...where, code: app.code, error: app.error });
        return respond(502, "app_unknown");
      }
      handle = `@${app.slug.toLowerCase()}`;
    }
    mention = parseMention(trigger.body, handle);
    if (mention.kind === "none") return ignore("no_mention", where);
  } else {
    // An issue event: the App's bot assigned or unassigned, or a label added or removed.
    if (trigger.issueEvent.label === null && (trigger.ref.kind === "labeled" || trigger.ref.kind === "unlabeled")) return ignore("no_label", where);
    const assignee = await checkAssignee(trigger, deps);
    if (!assignee.ok && "appUnknown" in assignee) {
      log("handle:failed", { deliveryId, ...where, ...assignee.appUnknown });
      return respond(502, "app_unknown");
    }
    if (!assignee.ok) return ignore(assignee.ignore, { ...where, assignee: assignee.assignee });
  }
  // The signature has no timestamp: an old delivery is refused before anyone is asked about it.
  const freshness = checkFreshness(trigger.createdAt, deps.now());
  if (!freshness.fresh) return ignore("stale_delivery", { ...where, createdAt: trigger.createdAt, ageSeconds: freshness.ageSeconds });
  const { user, association } = trigger;
  // GitHub's word on the App's own login wins over BOT_LOGIN; before it is learned, BOT_LOGIN (if set) stands in.
  const commenter = gateCommenter(user, deps.knownBotLogin()?.toLowerCase() ?? config.botLogin);
  if (commenter.verdict === "refused") {
    return ignore(commenter.reason, { ...where, login: user?.login, association });
  }
  if (mention?.kind === "empty") return ignore("empty_instruction", { ...where, login: commenter.login });

  // Whatever the association says (logged as a hint only), GitHub is asked what this person may do.
  const who = { ...where, login: commenter.login, association };
  const lookup = await deps.permission(repo, commenter.login, trigger.installationId);
  if (!lookup.ok) {
    log("permission:failed", { deliveryId, ...who, error: lookup.error });
    return respond(502, "permission_check_failed");
  }
  const answer = { permission: lookup.answer?.permission ?? null, roleName: lookup.answer?.roleName ?? null, source: lookup.source };
  const allowed = gatePermission(lookup.answer);
  let reporter: AcceptedComment["reporter"];
  if (!allowed.ok) {
    // Without write access only the issue's own author, in a conversation comment on an issue, is answered at all.
    if (!isIssueAuthor(trigger) || mention?.kind !== "instruction") return ignore("not_trusted", { ...who, check: allowed.reason, ...answer });
    const decision = decideReporter(mention.instruction, await readReportersOn(repo, trigger.installationId, deps, { deliveryId, ...where }));
    reporter = decision.ok ? { run: true } : { run: false, reason: decision.reason };
    log("reporter:asked", { deliveryId, ...who, check: allowed.reason, run: reporter.run, ...(reporter.run ? {} : { reason: reporter.reason }) });
  }

  // An assignment or a label asks what the repository's config says it asks (read only for a sender who may ask).
  let instruction = mention?.kind === "instruction" ? mention.instruction : "";
  let triggers: TriggerConfig | undefined;
  let refusal: AcceptedComment["refusal"];
  if (trigger.issueEvent !== undefined) {
    const decision = await decideIssueEvent(trigger, repo, deps, { deliveryId, ...where });
    if (!decision.ok && "ignore" in decision) return ignore(decision.ignore, { ...where, login: commenter.login });
    if (decision.ok) ({ instruction, triggers } = decision);
    else refusal = { reason: decision.report, body: invalidConfigBody(decision.errors) };
  }

  if (!(await deps.claim(trigger.ref, deliveryId))) return ignore("duplicate", where);
  log("delivery:claimed", { deliveryId, ...who, trustedBy: reporter ? "reporter" : "permission", ...answer });
  return startRun(
    {
      deliveryId,
      repo,
      installationId: trigger.installationId,
      repoVisibility: repository.visibility,
      issueNumber: trigger.issueNumber,
      issueTitle: trigger.issueTitle,
      issueBody: trigger.issueBody,
      trigger: trigger.ref,
      pullRequest: trigger.pullRequest,
      instruction,
      requestedBy: { login: commenter.login, avatarUrl: user?.avatar_url },
      ...askedBy(trigger, handle, triggers),
      ...(refusal ? { refusal } : {}),
      ...(reporter ? { reporter } : {})
    },
    deps
  );
}

/** Whether `.github/agent-think.yml` on the default branch says `reporters: reproduce`; a file GitHub would not give is off (logged). */
async function readReportersOn(repo: RepoRef, installationId: number | undefined, deps: WebhookDeps, where: Record<string, unknown>): Promise<boolean> {
  try {
    return reportersOn(await deps.reporterConfigFile(repo, installationId));
  } catch (error) {
    deps.log("repo-config:unreadable", { ...where, error: error instanceof Error ? error.message : String(error), using: "reporters off" });
    return false;
  }
}

/** Why an assignment (or the default label) started nothing: the file's own errors, in a code block, so nothing in them renders or mentions anyone. */
function invalidConfigBody(errors: string[]): string {
  const listed = errors.slice(0, MAX_LISTED_ERRORS).map((error) => error.replaceAll("```", "` ` `"));
  const more = errors.length > MAX_LISTED_ERRORS ? `\n(and ${errors.length - MAX_LISTED_ERRORS} more)` : "";
  return `\`${REPO_CONFIG_PATH}\` on the default branch is not valid, so it cannot say what to do:\n\n\`\`\`text\n${listed.join("\n")}${more}\n\`\`\``;
}
const MAX_LISTED_ERRORS = 10;
