/**
 * What an issue event needs decided that a mention does not: whether the
 * assignee is the App's own bot (before anyone is asked about the sender),
 * and what the repository's `.github/agent-think.yml` says the event asks
 * (once the sender may ask, on the default branch, within 3 seconds).
 * Neither writes anything; webhook.ts gates the event as it gates a mention.
 * docs/ingress.md has the rules.
 */
import type { TriggerConfig } from "../../../src/run/repo-config";
import { DEFAULT_TRIGGER_LABEL } from "../../../src/run/repo-config";
import type { RepoRef } from "../github/app-client";
import type { Logger } from "../log";
import { issueEventAsk, repoTriggers, type RepoFile } from "../repo-triggers";
import type { IssueEventKind, Trigger } from "../trigger";

export type IssueEventDeps = {
  /** The App's bot login as GitHub named it, if this isolate already learned it. */
  knownBotLogin(): string | undefined;
  appSlug(): Promise<{ ok: true; slug: string } | { ok: false; code: string; error: string }>;
  /** `.github/agent-think.yml` on `repo`'s default branch, read with the delivery's installation token; throws when GitHub would not say. */
  repoConfigFile(repo: RepoRef, installationId: number | undefined): Promise<RepoFile>;
  log: Logger;
};

export type AssigneeCheck = { ok: true } | { ok: false; ignore: "not_the_bot"; assignee: string | null } | { ok: false; appUnknown: { code: string; error: string } };

/** For an assignment or unassignment: whether the assignee is the App's bot. A label event passes. */
export async function checkAssignee(trigger: Trigger, deps: IssueEventDeps): Promise<AssigneeCheck> {
  const kind = trigger.ref.kind;
  if (kind !== "assigned" && kind !== "unassigned") return { ok: true };
  const assignee = trigger.issueEvent?.assignee ?? null;
  const login = assignee?.login.toLowerCase() ?? "";
  // An App's bot is always `<slug>[bot]`: a person assigned needs no question to GitHub.
  if (assignee === null || !login.endsWith("[bot]") || (assignee.type !== undefined && assignee.type !== "Bot")) {
    return { ok: false, ignore: "not_the_bot", assignee: assignee?.login ?? null };
  }
  let bot = deps.knownBotLogin()?.toLowerCase();
  if (bot === undefined) {
    const app = await deps.appSlug();
    if (!app.ok) return { ok: false, appUnknown: { code: app.code, error: app.error } };
    bot = `${app.slug.toLowerCase()}[bot]`;
  }
  return login === bot ? { ok: true } : { ok: false, ignore: "not_the_bot", assignee: assignee.login };
}

export type IssueEventDecision =
  | { ok: true; instruction: string; triggers: TriggerConfig }
  | { ok: false; ignore: "trigger_off" | "other_label" | "repo_config_invalid"; errors?: string[] }
  /** The file does not parse, and the event was surely meant for the bot: claim it and say so on the issue. */
  | { ok: false; report: "repo_config_invalid"; errors: string[] };

/** What the event asks under the repository's triggers; a file GitHub would not give means the defaults (logged). */
export async function decideIssueEvent(trigger: Trigger, repo: RepoRef, deps: IssueEventDeps, where: Record<string, unknown>): Promise<IssueEventDecision> {
  const kind = trigger.ref.kind as IssueEventKind;
  let file: RepoFile;
  try {
    file = await deps.repoConfigFile(repo, trigger.installationId);
  } catch (error) {
    deps.log("repo-config:unreadable", { ...where, error: error instanceof Error ? error.message : String(error), using: "defaults" });
    file = { found: false };
  }
  const read = repoTriggers(file);
  const label = trigger.issueEvent?.label ?? null;
  if (!read.ok) {
    deps.log("repo-config:invalid", { ...where, errors: read.errors });
    // A stop, or a label the defaults do not name, may have nothing to do with the bot: only the log says so.
    const meantForTheBot = kind === "assigned" || (kind === "labeled" && label?.toLowerCase() === DEFAULT_TRIGGER_LABEL);
    return meantForTheBot ? { ok: false, report: "repo_config_invalid", errors: read.errors } : { ok: false, ignore: "repo_config_invalid", errors: read.errors };
  }
  const ask = issueEventAsk(kind, read.triggers, label);
  if (!ask.ok) return { ok: false, ignore: ask.reason };
  return { ok: true, instruction: ask.instruction, triggers: read.triggers };
}

/** How the not-started comments name what asked, and what to do again. */
export function askedBy(trigger: Trigger, handle: string, triggers: TriggerConfig | undefined): { what: string; again: string } {
  const label = triggers?.label?.name ?? DEFAULT_TRIGGER_LABEL;
  // The assignee is the App's bot (checkAssignee), as GitHub spells it.
  const bot = trigger.issueEvent?.assignee?.login;
  switch (trigger.ref.kind) {
    case "assigned":
    case "unassigned":
      return { what: "this assignment", again: `unassign ${bot ? `\`${bot}\`` : "the App's bot"} and assign it again` };
    case "labeled":
    case "unlabeled":
      return { what: "this label", again: `remove the label \`${label}\` and add it again` };
    default:
      return { what: "this comment", again: `mention \`${handle}\` again` };
  }
}
