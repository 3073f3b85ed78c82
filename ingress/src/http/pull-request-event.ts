/**
 * A `pull_request` delivery about one of the App's own pull requests
 * (opened, reopened, merged, closed): after the same signature check as
 * every delivery, its gates (the action, the payload, the allowlist, the
 * head in the repository on an `agent-think/issue-<n>` branch, the App's
 * bot as its author), then the change handed to the agent Worker for the
 * repository's record, before the answer. It starts no run and posts
 * nothing. docs/ingress.md, "The App's pull requests".
 */
import type { PullRequestEvent, PullRequestRecordResult } from "../../../src/shared/command-center-events";
import { isAllowedRepo, type IngressConfig } from "../config";
import type { Logger } from "../log";
import { readPullRequestChange } from "../pull-request-change";
import { respond } from "./responses";
import { errorMessage } from "./run-fields";

export type PullRequestEventDeps = {
  log: Logger;
  /** The App's bot login as GitHub named it, if this isolate already learned it. */
  knownBotLogin(): string | undefined;
  appSlug(): Promise<{ ok: true; slug: string } | { ok: false; code: string; error: string }>;
  /** The agent Worker's `recordPullRequest`: the change kept in its repository's record. */
  recordPullRequest(event: PullRequestEvent): Promise<PullRequestRecordResult>;
};

export async function handlePullRequestEvent(payload: unknown, deliveryId: string, config: IngressConfig, deps: PullRequestEventDeps): Promise<Response> {
  const { log } = deps;
  const ignore = (reason: string, fields: Record<string, unknown> = {}) => {
    log("delivery:ignored", { deliveryId, githubEvent: "pull_request", reason, ...fields });
    return respond(204, `ignored:${reason}`);
  };
  const read = readPullRequestChange(payload);
  if (!read.ok) {
    if (read.ignore === "action") return ignore("action", read.action === undefined ? {} : { action: read.action });
    if (read.ignore !== undefined) {
      if (!isAllowedRepo(config, read.repo)) return ignore("repo_not_allowed", { repo: read.repo, number: read.number });
      return ignore(read.ignore, { repo: read.repo, number: read.number, ...(read.headRef === undefined ? {} : { headBranch: read.headRef }) });
    }
    log("delivery:rejected", { deliveryId, status: 400, outcome: "bad_payload", field: read.field });
    return respond(400, "bad_payload");
  }
  const { event, author } = read.change;
  const where = { deliveryId, repo: event.repo, number: event.number, state: event.state };
  if (!isAllowedRepo(config, event.repo)) return ignore("repo_not_allowed", where);

  // The App's bot as GitHub names it: this isolate's, else `<slug>[bot]` (never BOT_LOGIN).
  let bot = deps.knownBotLogin()?.toLowerCase();
  if (bot === undefined) {
    const app = await deps.appSlug();
    if (!app.ok) {
      log("handle:failed", { ...where, code: app.code, error: app.error });
      return respond(502, "app_unknown");
    }
    bot = `${app.slug.toLowerCase()}[bot]`;
  }
  if (author === null || author.login.toLowerCase() !== bot || (author.type !== undefined && author.type !== "Bot")) {
    return ignore("not_app_pull_request", { ...where, author: author?.login ?? null });
  }

  let result: PullRequestRecordResult;
  try {
    result = await deps.recordPullRequest(event);
  } catch (error) {
    // Nothing was kept: GitHub's redelivery of this delivery tries again.
    log("pull-request:record-failed", { ...where, error: errorMessage(error) });
    return respond(502, "record_failed");
  }
  if (!result.applied) return ignore(result.reason, { ...where, ...("field" in result ? { field: result.field } : {}) });
  log("pull-request:recorded", where);
  return respond(200, "recorded");
}
