/**
 * A `pull_request` delivery (opened, reopened, closed) read for its
 * repository's record: which pull request, how it stands now (open, merged,
 * or closed without merging) and since when, who opened it and from which
 * head; and what the payload alone decides: an action that changes nothing
 * kept, a fork's head, a branch that is not the App's. The route
 * (http/pull-request-event.ts) asks who the App's bot is. Pure.
 * docs/ingress.md, "The App's pull requests".
 */
import { z } from "zod";
import type { PullRequestEvent } from "../../src/shared/command-center-events";
import { appBranchIssue } from "./ci-trigger";
import { installationSchema, repositorySchema } from "./payload";

export const PULL_REQUEST_EVENT = "pull_request";
/** The actions that change how a pull request stands. */
const ACTIONS = ["opened", "reopened", "closed"] as const;

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
/** GitHub's ISO 8601 time, as epoch ms; anything else is a malformed payload. */
const time = z.string().transform((text, ctx) => {
  const at = Date.parse(text);
  if (Number.isFinite(at) && at >= 0) return at;
  ctx.addIssue({ code: "custom", message: "must be a time" });
  return z.NEVER;
});

const pullRequestDeliverySchema = z.object({
  action: z.enum(ACTIONS),
  pull_request: z.object({
    number: id,
    merged: z.boolean().nullable().optional(),
    created_at: time,
    updated_at: time,
    closed_at: time.nullable().optional(),
    merged_at: time.nullable().optional(),
    // Null for a deleted account ("ghost").
    user: z.object({ login: z.string(), type: z.string().optional() }).nullable(),
    // `head.repo` is null when the fork it came from was deleted.
    head: z.object({ ref: z.string(), repo: z.object({ full_name: z.string() }).nullable() })
  }),
  repository: repositorySchema,
  installation: installationSchema
});

/** The change, and what the route checks before it is kept: the author must be the App's bot. */
export type PullRequestChange = {
  event: PullRequestEvent;
  author: { login: string; type?: string | undefined } | null;
};

export type PullRequestRead =
  | { ok: true; change: PullRequestChange }
  | { ok: false; ignore: "action"; action?: string }
  | { ok: false; ignore: "fork" | "not_app_branch"; repo: string; number: number; headRef?: string }
  | { ok: false; ignore?: undefined; field: string };

export function readPullRequestChange(payload: unknown): PullRequestRead {
  const action = (payload as { action?: unknown } | null)?.action;
  if (typeof action !== "string" || !(ACTIONS as readonly string[]).includes(action)) {
    return { ok: false, ignore: "action", ...(typeof action === "string" ? { action } : {}) };
  }
  const parsed = pullRequestDeliverySchema.safeParse(payload);
  if (!parsed.success) return { ok: false, field: parsed.error.issues[0]?.path.join(".") ?? "" };
  const { pull_request: pull, repository } = parsed.data;
  const where = { repo: repository.fullName, number: pull.number };
  if ((pull.head.repo?.full_name ?? "").toLowerCase() !== repository.fullName.toLowerCase()) return { ok: false, ignore: "fork", ...where };
  const issueNumber = appBranchIssue(pull.head.ref);
  if (issueNumber === null) return { ok: false, ignore: "not_app_branch", ...where, headRef: pull.head.ref };
  const merged = parsed.data.action === "closed" && pull.merged === true;
  const state = parsed.data.action !== "closed" ? "open" : merged ? "merged" : "closed";
  // When it took this state: GitHub's own time of the merge or the close, else of the change.
  const at = (merged ? pull.merged_at : state === "closed" ? pull.closed_at : undefined) ?? pull.updated_at;
  return {
    ok: true,
    change: {
      event: { type: "pull-request", repo: repository.fullName, number: pull.number, issueNumber, state, openedAt: pull.created_at, at },
      author: pull.user
    }
  };
}
