/**
 * The thread page's header: the run envelope as links and text (repo, issue,
 * instruction, who asked; on the GitHub the envelope names), the thread's
 * status, and its timing. Status comes from the command center's summary
 * when the dashboard has it, else from what the transcript socket says (a
 * turn streaming, a turn Think is recovering, a turn failed).
 * And what the latest run posted on its issue, or could not, and the link to
 * the issue's published reproduction page.
 * Pure: `now` is a parameter.
 */
import type { IssueMessageKind, ThreadSummary } from "../../shared/command-center";
import { GITHUB_WEB_URL } from "../../shared/github-urls";
import type { RunEnvelope } from "../../run/envelope";
import { formatCount, formatDuration, formatRelativeTime, formatTimestamp } from "./format";
import { couldNotPost, displayStatus, STATUS_LABEL, STATUS_TITLE, STATUS_TONE, type DisplayStatus, type Tone } from "./threads";
import { canContinue } from "./continue";
import { isActiveStatus } from "../../shared/thread-status";

/** Only http(s) links are rendered; anything else (javascript:, data:) is dropped. */
export function safeHref(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

const GITHUB_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The web origin of the GitHub the run worked on: the envelope's `github.web`
 * (the deploy's github.com, GHE.com tenant or Enterprise Server), or
 * github.com for an envelope written before it carried one, which all were.
 */
function githubWeb(envelope: RunEnvelope): string | undefined {
  const web = envelope.github?.web;
  if (web === undefined) return GITHUB_WEB_URL;
  try {
    const parsed = new URL(web);
    return parsed.protocol === "https:" && parsed.origin === web ? web : undefined;
  } catch {
    return undefined;
  }
}

function githubPath(web: string | undefined, path: string): string | undefined {
  return web !== undefined && path.split("/").every((segment) => GITHUB_NAME.test(segment)) ? `${web}/${path}` : undefined;
}

export type EnvelopeHeaderView = {
  repo: string;
  repoHref?: string;
  issueLabel: string;
  issueHref?: string;
  instruction: string;
  requestedBy?: string;
  requestedByHref?: string;
  commentHref?: string;
  submitted: string;
  submittedTitle: string;
  session: string;
};

export function envelopeHeaderView(envelope: RunEnvelope, now: number): EnvelopeHeaderView {
  const submittedAt = Date.parse(envelope.submittedAt);
  const login = envelope.requestedBy?.login;
  const web = githubWeb(envelope);
  return {
    repo: envelope.repository,
    repoHref: githubPath(web, envelope.repository),
    issueLabel: envelope.issue.title ? `#${envelope.issue.number} ${envelope.issue.title}` : `#${envelope.issue.number}`,
    issueHref: safeHref(envelope.issue.url),
    instruction: envelope.instruction,
    requestedBy: login ? `@${login}` : undefined,
    requestedByHref: login ? githubPath(web, login.replace(/\[bot\]$/, "")) : undefined,
    commentHref: safeHref(envelope.triggeringComment?.url),
    submitted: Number.isFinite(submittedAt) ? formatRelativeTime(submittedAt, now) : envelope.submittedAt,
    submittedTitle: Number.isFinite(submittedAt) ? formatTimestamp(submittedAt) : envelope.submittedAt,
    session: envelope.session
  };
}

export type ThreadStatusView = {
  /** "queued": running as the command center says, its turn not started yet (runs.ts: headerStatus). */
  status: DisplayStatus | "queued" | "idle" | "unknown";
  label: string;
  tone: Tone;
  /** The badge's tooltip, when the word needs one ("recovering", "stale"). */
  title?: string;
  /** The last error, when the thread failed. */
  detail?: string;
  canContinue: boolean;
};

export type LiveTurn = {
  /** A turn is streaming on the socket. */
  streaming: boolean;
  /** The socket reported a turn that ended in an error. */
  turnError: string | null;
  /** The server is recovering an interrupted turn. */
  recovering: boolean;
  hasMessages: boolean;
};

const shown = (status: DisplayStatus): Pick<ThreadStatusView, "status" | "label" | "tone" | "title"> => {
  const title = STATUS_TITLE[status];
  return { status, label: STATUS_LABEL[status], tone: STATUS_TONE[status], ...(title ? { title } : {}) };
};

/**
 * What the socket says of an active run, as the command center would say it:
 * a streaming turn is running (a resumed one too: the command center calls a
 * recovered run `running` again once its turn starts, while Think may keep
 * its recovering flag up until the recovery settles), else a turn Think is
 * recovering is recovering.
 */
function liveStatus(live: LiveTurn): "running" | "recovering" | null {
  if (live.streaming) return "running";
  if (live.recovering) return "recovering";
  return null;
}

export function threadStatusView(summary: ThreadSummary | undefined, live: LiveTurn): ThreadStatusView {
  const socket = liveStatus(live);
  if (summary) {
    const status = displayStatus(summary);
    // The socket can be ahead of the command center for a moment: a streaming
    // turn is running whatever the registry said last, and a running thread
    // whose turn Think is recovering is recovering. A recovering flag never
    // overrides stale (it is no sign of progress, and would hide Continue)
    // nor an ended run.
    if (socket === "running" && status !== "running") return { ...shown("running"), canContinue: false };
    if (socket === "recovering" && status === "running") return { ...shown("recovering"), canContinue: false };
    return {
      ...shown(status),
      detail: status === "error" ? summary.lastError : undefined,
      canContinue: canContinue(summary)
    };
  }
  if (socket !== null) return { ...shown(socket), canContinue: false };
  if (live.turnError) return { status: "error", label: STATUS_LABEL.error, tone: STATUS_TONE.error, detail: live.turnError, canContinue: false };
  if (live.hasMessages) return { status: "idle", label: "idle", tone: "neutral", canContinue: false };
  return { status: "unknown", label: "no runs yet", tone: "neutral", canContinue: false };
}

export type TimingItem = { id: string; label: string; value: string; title?: string };

/** The timing line under the header: started, last activity, duration, first tool call, counters. */
export function threadTiming(
  summary: ThreadSummary | undefined,
  fallback: { firstSubmittedAt: number | null; runs: number; toolCalls: number },
  now: number
): TimingItem[] {
  const items: TimingItem[] = [];
  const startedAt = summary?.startedAt ?? fallback.firstSubmittedAt;
  if (startedAt !== null && startedAt !== undefined) {
    items.push({ id: "started", label: "started", value: formatRelativeTime(startedAt, now), title: formatTimestamp(startedAt) });
  }
  if (summary) {
    items.push({
      id: "last-activity",
      label: "last activity",
      value: formatRelativeTime(summary.lastActivityAt, now),
      title: formatTimestamp(summary.lastActivityAt)
    });
    if (summary.durationMs !== undefined) items.push({ id: "duration", label: "duration", value: formatDuration(summary.durationMs) });
    else if (isActiveStatus(summary.status)) {
      items.push({ id: "duration", label: "running for", value: formatDuration(Math.max(0, now - summary.startedAt)) });
    }
    if (summary.recoveries !== undefined) {
      items.push({
        id: "recoveries",
        label: "recovered",
        value: `${formatCount(summary.recoveries)}×`,
        title: "How many times Think's chat recovery resumed this run's interrupted turn (an eviction, a restart, a deploy)"
      });
    }
    if (summary.firstToolMs !== undefined) items.push({ id: "first-tool", label: "first tool call", value: formatDuration(summary.firstToolMs) });
    items.push({ id: "runs", label: "runs", value: formatCount(summary.runCount) });
    items.push({ id: "tool-calls", label: "tool calls", value: formatCount(summary.toolCalls) });
    if (summary.toolErrors > 0) items.push({ id: "tool-errors", label: "tool errors", value: formatCount(summary.toolErrors) });
    if (summary.tokens) {
      items.push({ id: "tokens", label: "tokens", value: `${formatCount(summary.tokens.input)} in / ${formatCount(summary.tokens.output)} out` });
    }
  } else {
    if (fallback.runs > 0) items.push({ id: "runs", label: "runs", value: formatCount(fallback.runs) });
    items.push({ id: "tool-calls", label: "tool calls", value: formatCount(fallback.toolCalls) });
  }
  return items;
}

export type IssueMessageItem = { kind: IssueMessageKind; label: string; title: string; href?: string };
export type IssueMessagesView = {
  /** What is on the issue, for "On the issue:": 🚀, "comment posted ↗" links. */
  posted: IssueMessageItem[];
  /** "Could not post on the issue: …", one per message that failed, the closing comment first. */
  failed: Array<{ kind: IssueMessageKind; text: string }>;
};

/** In the order both lines read: the closing comment, the answer, first. A Record, so a new kind fails to compile until it is listed. */
const POSTED: Record<IssueMessageKind, { label: string; title: string }> = {
  closing: { label: "comment posted", title: "The run's closing comment on the issue" },
  rocket: { label: "🚀 reacted", title: "🚀 on the comment that asked for the run" },
  stale: { label: "stale notice posted", title: "The notice that the run went quiet" }
};
const ORDER = Object.keys(POSTED) as IssueMessageKind[];

/** The latest run's issue messages; null when none has settled (or the dashboard does not know the thread). */
export function issueMessagesView(summary: Pick<ThreadSummary, "issueMessages"> | undefined): IssueMessagesView | null {
  const messages = summary?.issueMessages;
  if (!messages) return null;
  const view: IssueMessagesView = { posted: [], failed: [] };
  for (const kind of ORDER) {
    const message = messages[kind];
    if (message?.state === "sent") {
      // A comment whose link does not read is still on the issue: shown, without a link.
      const href = kind === "rocket" ? undefined : safeHref(message.url);
      const { label, title } = POSTED[kind];
      view.posted.push(href ? { kind, label: `${label} ↗`, title, href } : { kind, label, title });
    } else if (message?.state === "failed") {
      view.failed.push({ kind, text: couldNotPost(message) });
    }
  }
  return view.posted.length > 0 || view.failed.length > 0 ? view : null;
}

export type ReproductionLinkView = { href: string; label: string; title: string };

/**
 * The link to the issue's latest reproduction page, opened in a new tab; null
 * without one, or when its URL is not http(s). A page of a private repository
 * (`/repro/private/…`) asks for a Cloudflare Access login, so the title says so.
 */
export function reproductionLinkView(summary: Pick<ThreadSummary, "reproductionUrl"> | undefined): ReproductionLinkView | null {
  const href = safeHref(summary?.reproductionUrl);
  if (!href) return null;
  const title = "The issue's published reproduction page";
  return {
    href,
    label: "Reproduction ↗",
    title: new URL(href).pathname.includes("/repro/private/") ? `${title} (behind Access)` : title
  };
}
