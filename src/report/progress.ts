/**
 * The live progress comment's text, and the three notices that carry it:
 * its creation, its latest throttled edit and its last edit, the pointer to
 * the closing comment. Every body carries the creation's marker, and model
 * text (plan steps) is neutralized; nothing here mentions anyone
 * (docs/reporting.md, "The progress comment"). Pure. Used by
 * run-progress.ts and the outbox, which writes the pointer when it is
 * delivered, once the closing comment's address is known.
 */
import { z } from "zod";
import type { Cost } from "../shared/command-center";
import { formatCost } from "../shared/pricing";
import { capBody, cutText, MAX_NOTICE_TEXT_CHARS } from "./body-cap";
import { reproductionLink } from "./link-policy";
import { codeSpan, neutralize } from "./neutralize";
import { formatDuration } from "./message-parts";
import { noticeId, noticeMarker, type Notice } from "./notices";
import { type RunRef } from "./run-ref";
import { linkPolicy } from "./run-ref";

/** Steps a plan holds at most, and characters a step. */
export const MAX_PLAN_STEPS = 20;
export const MAX_PLAN_STEP_CHARS = 200;
export const PLAN_STATUSES = ["pending", "in_progress", "done"] as const;

export const planStepSchema = z.strictObject({
  text: z.string().trim().min(1, "must not be empty").max(MAX_PLAN_STEP_CHARS, `must be at most ${MAX_PLAN_STEP_CHARS} characters`),
  status: z.enum(PLAN_STATUSES)
});
export const planSchema = z.strictObject({
  steps: z.array(planStepSchema).max(MAX_PLAN_STEPS, `must hold at most ${MAX_PLAN_STEPS} steps`)
});
export type PlanStep = z.infer<typeof planStepSchema>;

/** The least time between two edits of one run's progress comment (GitHub's secondary limits count content writes). */
export const PROGRESS_EDIT_INTERVAL_MS = 10_000;

/** What a run's progress comment shows, kept per submission (run-progress.ts). */
export type ProgressState = {
  startedAt: number;
  /** False when `.github/agent-think.yml` says `progress: false`: nothing is posted. */
  enabled: boolean;
  plan: PlanStep[];
  /** The latest tool activity, in words (`describeActivity`). */
  now?: string;
  reproductionUrl?: string;
};

/** What the comment shows beside the state: the time it is written, and what the run has cost so far. */
export type ProgressFigures = { at: number; cost?: Cost; scripted?: boolean };

const MAX_ACTIVITY_DETAIL_CHARS = 120;

/** The progress comment while the run goes. */
export function progressText(state: ProgressState, run: RunRef, figures: ProgressFigures): string {
  const policy = linkPolicy(run);
  const elapsed = formatDuration(Math.max(0, figures.at - state.startedAt));
  // Before the first model step is priced there is no cost to show (not $0.00: nothing is known yet).
  const cost = figures.cost ? ` · cost so far ${formatCost(figures.cost)}${figures.scripted ? " (scripted demonstration: no model ran)" : ""}` : "";
  const lines = [`⏳ **agent-think is working on this.** ${elapsed} in${cost}`, ""];
  if (state.plan.length > 0) {
    lines.push("**Plan**", "");
    for (const step of state.plan) {
      const text = neutralize(oneLine(step.text), policy, { mode: "inline" });
      if (step.status === "done") lines.push(`- [x] ${text}`);
      else if (step.status === "in_progress") lines.push(`- [ ] **${text}** _(in progress)_`);
      else lines.push(`- [ ] ${text}`);
    }
    lines.push("");
  }
  lines.push(`**Now:** ${state.now ?? "Getting the repository ready."}`);
  if (state.reproductionUrl) {
    const link = reproductionLink(state.reproductionUrl, policy);
    if (link) lines.push("", `**Reproduction:** ${link}`);
  }
  lines.push("", `[Follow it live](${run.threadUrl}). This comment is updated as the run goes; the result will be a new comment below.`);
  return lines.join("\n");
}

/** The pointer the comment ends as: to the closing comment, or to the thread when that could not be posted. */
export function progressPointerText(closingUrl: string | undefined, threadUrl: string): string {
  return closingUrl
    ? `✔️ **agent-think finished.** See the result below: [the result comment](${closingUrl}).\n\n<sub>[thread](${threadUrl})</sub>`
    : `✔️ **agent-think finished.** Its result could not be posted here; it is in [the run's thread](${threadUrl}).`;
}

/** The creation of the progress comment. */
export function progressNotice(run: RunRef, text: string): Notice {
  return progressMessage(run, "progress", text);
}

/** Its next edit: one entry per run, its body replaced by each change (the outbox throttles it). */
export function progressEditNotice(run: RunRef, text: string, minIntervalMs: number): Notice {
  return { ...progressMessage(run, "progress-edit", text), minIntervalMs };
}

/** Its last edit, written when delivered: `progressPointerText` with the closing comment's address. */
export function progressFinalNotice(run: RunRef): Notice {
  return { ...progressMessage(run, "progress-final", ""), threadUrl: run.threadUrl };
}

/** Every body the progress comment has, the pointer included, with the creation's marker. */
export function progressBody(submissionId: string, text: string): string {
  return `${noticeMarker(noticeId(submissionId, "progress"))}\n${capBody(text, MAX_NOTICE_TEXT_CHARS)}`;
}

function progressMessage(run: RunRef, kind: "progress" | "progress-edit" | "progress-final", text: string): Notice {
  return {
    id: noticeId(run.submissionId, kind),
    kind,
    submissionId: run.submissionId,
    repo: run.repo,
    issueNumber: run.issueNumber,
    body: progressBody(run.submissionId, text)
  };
}

/**
 * A tool call in a maintainer's words: "Running `npm test` in the
 * container", "Editing `src/app.ts`". Commands and paths are code (nothing
 * in them notifies or links); the whole comment is redacted as it is queued.
 * Null for a call that says nothing about the work (update_plan).
 */
export function describeActivity(toolName: string, input: unknown): string | null {
  const field = (name: string): string | undefined => {
    const value = (input as Record<string, unknown> | null | undefined)?.[name];
    return typeof value === "string" && value.trim() ? detail(value) : undefined;
  };
  switch (toolName) {
    case "update_plan":
      return null;
    case "bash": {
      const command = field("command");
      const where = (input as { backend?: unknown } | null)?.backend === "shell" ? "in the shell" : "in the container";
      return command ? `Running ${codeSpan(command)} ${where}.` : `Running a command ${where}.`;
    }
    case "read":
      return withPath("Reading", field("path"));
    case "write":
      return withPath("Writing", field("path"));
    case "edit":
      return withPath("Editing", field("path"));
    case "ls":
    case "find":
    case "grep":
      return "Looking through the repository's files.";
    case "activate_skill": {
      const name = field("name");
      return name ? `Following the ${codeSpan(name)} skill.` : "Choosing a skill.";
    }
    case "publish_reproduction":
      return "Publishing the reproduction page.";
    case "open_pull_request": {
      // The proof runs first and may take minutes: say so, with the check as code.
      const check = field("check");
      return check ? `Re-running the reproduction's check ${codeSpan(check)} on the base and on the head, then opening the pull request.` : "Opening the pull request.";
    }
    case "report_result":
      return "Writing up the result.";
    default:
      return `Using ${codeSpan(detail(toolName))}.`;
  }
}

function withPath(verb: string, path: string | undefined): string {
  return path ? `${verb} ${codeSpan(path)}.` : `${verb} a file.`;
}

function detail(text: string): string {
  const flat = oneLine(text);
  const cut = cutText(flat, MAX_ACTIVITY_DETAIL_CHARS);
  return cut.length < flat.length ? `${cut}…` : cut;
}

function oneLine(text: string): string {
  return text.replace(/<!--[\s\S]*?(-->|$)/g, "").replace(/\s*\n\s*/g, " ").trim();
}
