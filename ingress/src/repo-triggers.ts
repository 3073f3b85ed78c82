/**
 * The ways of asking a repository turns on besides a mention: `triggers` in
 * `.github/agent-think.yml` on its default branch, parsed by the agent's own
 * reader (src/run/repo-config.ts), and `issueEventAsk`, which decides whether
 * an assignment or a label starts a run, stops one, or is nothing to the
 * bot. No file, or one GitHub would not give: DEFAULT_TRIGGERS; a file that
 * does not parse starts nothing. Pure. docs/ingress.md, "Assigning the bot,
 * or a label".
 */
import { DEFAULT_TRIGGERS, MAX_REPO_CONFIG_BYTES, parseRepoConfig, type TriggerConfig } from "../../src/run/repo-config";
import { STOP_INSTRUCTION } from "../../src/shared/dispatch";
import type { IssueEventKind } from "./trigger";

export { MAX_REPO_CONFIG_BYTES, REPO_CONFIG_PATH } from "../../src/run/repo-config";

/** The file as GitHub gave it: absent, its text, or only its size when that is over the limit (never downloaded then). */
export type RepoFile = { found: false } | { found: true; text: string } | { found: true; tooLargeBytes: number };

export type RepoTriggersRead = { ok: true; triggers: TriggerConfig; source: "file" | "default" } | { ok: false; errors: string[] };

export function repoTriggers(file: RepoFile): RepoTriggersRead {
  if (!file.found) return { ok: true, triggers: DEFAULT_TRIGGERS, source: "default" };
  if ("tooLargeBytes" in file) return { ok: false, errors: [`the file is larger than ${MAX_REPO_CONFIG_BYTES / 1024} KB`] };
  const parsed = parseRepoConfig(file.text);
  return parsed.ok ? { ok: true, triggers: parsed.config.triggers, source: "file" } : { ok: false, errors: parsed.errors };
}

export type RepoCiFixes = { ok: true; fix: number } | { ok: false; errors: string[] };

/** `ci.fix` of the file: how many CI follow-ups one of the App's pull requests may have; no file, none (0). */
export function repoCiFixes(file: RepoFile): RepoCiFixes {
  if (!file.found) return { ok: true, fix: 0 };
  if ("tooLargeBytes" in file) return { ok: false, errors: [`the file is larger than ${MAX_REPO_CONFIG_BYTES / 1024} KB`] };
  const parsed = parseRepoConfig(file.text);
  return parsed.ok ? { ok: true, fix: parsed.config.ci.fix } : { ok: false, errors: parsed.errors };
}

export type IssueEventAsk =
  | { ok: true; instruction: string }
  /** `trigger_off`: the repository turned this way of asking off; `other_label`: not the label it names. */
  | { ok: false; reason: "trigger_off" | "other_label" };

/**
 * What the event asks under `triggers`: an assignment or the label, the
 * configured instruction; an unassignment or the label's removal, a stop
 * (STOP_INSTRUCTION, as `@<bot> stop` asks). A trigger turned off neither
 * starts nor stops. Label names compare as GitHub compares them, without case.
 */
export function issueEventAsk(kind: IssueEventKind, triggers: TriggerConfig, label: string | null): IssueEventAsk {
  if (kind === "assigned" || kind === "unassigned") {
    if (triggers.assign === null) return { ok: false, reason: "trigger_off" };
    return { ok: true, instruction: kind === "assigned" ? triggers.assign : STOP_INSTRUCTION };
  }
  if (triggers.label === null) return { ok: false, reason: "trigger_off" };
  if (label === null || label.toLowerCase() !== triggers.label.name.toLowerCase()) return { ok: false, reason: "other_label" };
  return { ok: true, instruction: kind === "labeled" ? triggers.label.instruction : STOP_INSTRUCTION };
}
