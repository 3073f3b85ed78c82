/**
 * What started a delivery's run, whichever event carried it: an issue or
 * pull request conversation comment, a line comment in a diff, a review's
 * body, or an `issues` change (the bot assigned or unassigned, a label).
 * The route gates, claims and starts every kind the same way; the kind
 * decides the claim's and marker's key (every key names the kind; an issue
 * event's names GitHub's delivery id), where 👀 goes and the dispatch's
 * `pullRequest`. Pure. docs/ingress.md, "Pull requests" and "Assigning the
 * bot, or a label".
 */
import { MAX_DIFF_HUNK_CHARS, MAX_GIT_REF_CHARS, MAX_PATH_CHARS, PULL_REQUEST_SIDES, type PullRequestRef } from "../../src/shared/dispatch";
import { checkActorLogin, parseRepo } from "../../src/shared/repo";
import {
  issueCommentSchema,
  issueEventSchema,
  reviewCommentSchema,
  reviewSchema,
  type Commenter,
  type IssueCommentDelivery,
  type PullRequestPayload,
  type ReviewCommentDelivery
} from "./payload";

/** What a mention is written in. */
export type CommentKind = "comment" | "review_comment" | "review";
/** A change to an issue: the first two name the App's bot, the last two a label. */
export type IssueEventKind = "assigned" | "unassigned" | "labeled" | "unlabeled";
export type TriggerKind = CommentKind | IssueEventKind;
export type TriggerRef =
  | { kind: CommentKind; id: number }
  /** `repo` as `owner/name`; `deliveryId` is GitHub's `X-GitHub-Delivery`, the same on a redelivery. */
  | { kind: IssueEventKind; repo: string; issueNumber: number; deliveryId: string };

/** The events and actions that may start (or, unassigned and unlabeled, stop) a run. */
export const TRIGGER_EVENTS: Record<string, Record<string, TriggerKind>> = {
  issue_comment: { created: "comment" },
  pull_request_review_comment: { created: "review_comment" },
  pull_request_review: { submitted: "review" },
  issues: { assigned: "assigned", unassigned: "unassigned", labeled: "labeled", unlabeled: "unlabeled" }
};

export const isIssueEvent = (ref: TriggerRef): ref is Extract<TriggerRef, { kind: IssueEventKind }> => !("id" in ref);

const KEY_PARTS: Record<CommentKind, string> = { comment: "comments", review_comment: "review-comments", review: "reviews" };
const CLAIM_PARTS: Record<CommentKind, string> = { comment: "comment", review_comment: "review-comment", review: "review" };
/** `issues-assigned:acme/widgets#7:<delivery id>`, lowercase but for GitHub's id. */
const issueEventKey = (ref: Extract<TriggerRef, { kind: IssueEventKind }>) =>
  `issues-${ref.kind}:${ref.repo.toLowerCase()}#${ref.issueNumber}:${ref.deliveryId}`;

/**
 * The KV marker's key: `handled:comments:<id>`, `handled:review-comments:<id>`,
 * `handled:reviews:<id>`, or `handled:issues-<action>:<owner>/<name>#<n>:<delivery id>`.
 */
export const markerKey = (ref: TriggerRef) => (isIssueEvent(ref) ? `handled:${issueEventKey(ref)}` : `handled:${KEY_PARTS[ref.kind]}:${ref.id}`);
/** The CommentClaim object's name: `comment:<id>`, `review-comment:<id>`, `review:<id>`, or `issues-<action>:<owner>/<name>#<n>:<delivery id>`. */
export const claimName = (ref: TriggerRef) => (isIssueEvent(ref) ? issueEventKey(ref) : `${CLAIM_PARTS[ref.kind]}:${ref.id}`);
/** The trigger as the marker and log lines name it: `commentId`, `reviewCommentId`, `reviewId`, or `issueEvent` (the action). */
export const idField = (ref: TriggerRef): Record<string, number | string> => {
  if (isIssueEvent(ref)) return { issueEvent: ref.kind };
  return ({ comment: { commentId: ref.id }, review_comment: { reviewCommentId: ref.id }, review: { reviewId: ref.id } })[ref.kind];
};

export type Trigger = {
  ref: TriggerRef;
  user: Commenter | null;
  body: string;
  association: string;
  /** When the comment was made or the review submitted, as the payload says (freshness.ts); null when it says nothing. */
  createdAt: string | null;
  issueNumber: number;
  issueTitle: string;
  /**
   * The issue's (or pull request's) body as the payload had it at the
   * mention: null when it has none, undefined when the payload did not say.
   */
  issueBody: string | null | undefined;
  repository: IssueCommentDelivery["repository"];
  installationId: number | undefined;
  /**
   * The pull request from the payload; "fetch" for a conversation comment,
   * whose payload names the pull request but not its head or base.
   */
  pullRequest: PullRequestRef | "fetch" | undefined;
  /** The issue's author, for a conversation comment only (the reporter tier: reporter-tier.ts); null for a deleted account. */
  issueAuthor?: { login: string; id?: number | undefined } | null;
  /** An issue event's change: the assignee (assigned, unassigned) or the label's name (labeled, unlabeled); absent for a comment. */
  issueEvent?: { assignee: { login: string; type?: string } | null; label: string | null };
};

export type TriggerRead =
  | { ok: true; trigger: Trigger }
  | { ok: false; ignore: "event" | "action"; action?: string }
  | { ok: false; ignore?: undefined; field: string };

/** GitHub's delivery GUID, or anything as plain (a GHES delivery id), short enough for a key. */
const DELIVERY_ID = /^[0-9A-Za-z-]{1,64}$/;

/** `deliveryId`: GitHub's `X-GitHub-Delivery`, which keys an issue event. */
export function readTrigger(event: string, payload: unknown, deliveryId: string): TriggerRead {
  const actions = TRIGGER_EVENTS[event];
  if (!actions) return { ok: false, ignore: "event" };
  const action = (payload as { action?: unknown } | null)?.action;
  const kind = typeof action === "string" && Object.hasOwn(actions, action) ? actions[action] : undefined;
  if (kind === undefined) return { ok: false, ignore: "action", ...(typeof action === "string" ? { action } : {}) };
  const bad = (issues: { path: PropertyKey[] }[]): TriggerRead => ({ ok: false, field: issues[0]?.path.join(".") ?? "" });

  if (kind === "assigned" || kind === "unassigned" || kind === "labeled" || kind === "unlabeled") {
    const parsed = issueEventSchema.safeParse(payload);
    if (!parsed.success) return bad(parsed.error.issues);
    // The delivery id is the event's key: without one (GitHub always sends a GUID), every assignment would be one claim.
    if (!DELIVERY_ID.test(deliveryId)) return { ok: false, field: "X-GitHub-Delivery" };
    const { issue, sender, repository, installation, assignee, label } = parsed.data;
    return {
      ok: true,
      trigger: {
        ref: { kind, repo: repository.fullName, issueNumber: issue.number, deliveryId },
        user: sender,
        body: "",
        // An issue event says nothing of the sender's association; it decides nothing anyway (gates.ts).
        association: "",
        createdAt: issue.updated_at,
        issueNumber: issue.number,
        issueTitle: issue.title,
        issueBody: issue.body,
        repository,
        installationId: installation?.id,
        pullRequest: undefined,
        issueEvent: { assignee: assignee ?? null, label: label?.name ?? null }
      }
    };
  }
  if (kind === "comment") {
    const parsed = issueCommentSchema.safeParse(payload);
    if (!parsed.success) return bad(parsed.error.issues);
    const { comment, issue, repository, installation } = parsed.data;
    return {
      ok: true,
      trigger: {
        ref: { kind: "comment", id: comment.id },
        user: comment.user,
        body: comment.body ?? "",
        association: comment.author_association,
        createdAt: comment.created_at,
        issueNumber: issue.number,
        issueTitle: issue.title,
        issueBody: issue.body,
        issueAuthor: issue.user ?? null,
        repository,
        installationId: installation?.id,
        pullRequest: issue.pull_request ? "fetch" : undefined
      }
    };
  }
  if (kind === "review_comment") {
    const parsed = reviewCommentSchema.safeParse(payload);
    if (!parsed.success) return bad(parsed.error.issues);
    const { comment, pull_request, repository, installation } = parsed.data;
    return {
      ok: true,
      trigger: {
        ref: { kind: "review_comment", id: comment.id },
        user: comment.user,
        body: comment.body ?? "",
        association: comment.author_association,
        createdAt: comment.created_at,
        issueNumber: pull_request.number,
        issueTitle: pull_request.title,
        issueBody: pull_request.body,
        repository,
        installationId: installation?.id,
        pullRequest: { ...pullRequestRef(pull_request), reviewComment: reviewCommentRef(comment) }
      }
    };
  }
  const parsed = reviewSchema.safeParse(payload);
  if (!parsed.success) return bad(parsed.error.issues);
  const { review, pull_request, repository, installation } = parsed.data;
  return {
    ok: true,
    trigger: {
      ref: { kind: "review", id: review.id },
      user: review.user,
      body: review.body ?? "",
      association: review.author_association,
      createdAt: review.submitted_at,
      issueNumber: pull_request.number,
      issueTitle: pull_request.title,
      issueBody: pull_request.body,
      repository,
      installationId: installation?.id,
      pullRequest: { ...pullRequestRef(pull_request), reviewId: review.id }
    }
  };
}

/**
 * The dispatch's `pullRequest` from GitHub's description of one. A field
 * the agent's schema would refuse (a ref longer than a ref can be, a SHA
 * that is not one) is left out rather than cut: a cut ref names another
 * branch. A head whose fork was deleted is named by the base repository
 * (GitHub keeps its commits there as `refs/pull/<n>/head`) and is a fork.
 */
export function pullRequestRef(pull: PullRequestPayload): PullRequestRef {
  const base = pull.base.repo.full_name;
  const head = pull.head.repo?.full_name;
  const headRepo = head !== undefined && parseRepo(head).ok ? head : base;
  const ref = (value: string) => (value !== "" && value.length <= MAX_GIT_REF_CHARS ? value : undefined);
  return {
    number: pull.number,
    ...(parseRepo(headRepo).ok ? { headRepo } : {}),
    ...optional("headRef", ref(pull.head.ref)),
    ...optional("headSha", /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(pull.head.sha) ? pull.head.sha : undefined),
    ...optional("baseRef", ref(pull.base.ref)),
    fork: head === undefined || head.toLowerCase() !== base.toLowerCase(),
    // Who opened it: the agent lets a run push only to a pull request its own App opened.
    ...optional("author", pull.user && checkActorLogin(pull.user.login).ok ? pull.user.login : undefined)
  };
}

type ReviewComment = ReviewCommentDelivery["comment"];

/**
 * The line comment's place in the diff. Its diff hunk ends at the commented
 * line, so a hunk over MAX_DIFF_HUNK_CHARS keeps its last characters.
 */
function reviewCommentRef(comment: ReviewComment): NonNullable<PullRequestRef["reviewComment"]> {
  const line = (value: number | null | undefined) => (typeof value === "number" && value > 0 ? value : undefined);
  const side = PULL_REQUEST_SIDES.find((known) => known === comment.side);
  return {
    id: comment.id,
    path: comment.path.slice(0, MAX_PATH_CHARS),
    ...optional("startLine", line(comment.start_line)),
    ...optional("line", line(comment.line)),
    ...optional("side", side),
    diffHunk: comment.diff_hunk.length > MAX_DIFF_HUNK_CHARS ? comment.diff_hunk.slice(-MAX_DIFF_HUNK_CHARS) : comment.diff_hunk
  };
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
