/**
 * The parts of the deliveries the webhook app reads, parsed with zod after
 * the signature is verified (`issue_comment`, `pull_request_review_comment`,
 * `pull_request_review`, `issues`; unknown fields ignored). The repository's
 * three names must agree, so the allowlist, token, reactions and dispatch
 * are about one repository. Also each trigger's time (freshness.ts) and the
 * body (issue-body.ts). Names are checked by the agent's own rules
 * (src/shared/repo.ts), so a login it would refuse is refused before the
 * claim. Pure. docs/ingress.md, "Who can start a run".
 */
import { z } from "zod";
import { REPO_VISIBILITIES, type RepoVisibility } from "../../src/shared/dispatch";
import { checkActorLogin, parseRepo } from "../../src/shared/repo";

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

const userSchema = z.object({
  login: z.string().superRefine((login, ctx) => {
    const checked = checkActorLogin(login);
    // The message names the rule, never the value: the log shows the path only.
    if (!checked.ok) ctx.addIssue({ code: "custom", message: checked.reason });
  }),
  type: z.string(),
  // The account's id: the reporter tier holds the issue's author and the commenter to one account, not one login.
  id: id.optional(),
  avatar_url: z.string().optional()
});

export const repositorySchema = z
  .object({
    full_name: z.string(),
    owner: z.object({ login: z.string() }),
    name: z.string(),
    // Read leniently: an odd value means "unknown" (served as private), never a refused delivery.
    visibility: z.unknown().optional(),
    private: z.unknown().optional()
  })
  .transform((repository, ctx) => {
    const refuse = (path: string[], message: string) => {
      // The message names the rule, never the value: the log shows the path only.
      ctx.addIssue({ code: "custom", path, message });
      return z.NEVER;
    };
    const parsed = parseRepo(repository.full_name);
    if (!parsed.ok) return refuse(["full_name"], parsed.reason);
    const { owner, name } = parsed;
    // GitHub names are case-insensitive; full_name's spelling is the one kept.
    if (owner.toLowerCase() !== repository.owner.login.toLowerCase()) return refuse(["owner", "login"], "must be full_name's owner");
    if (name.toLowerCase() !== repository.name.toLowerCase()) return refuse(["name"], "must be full_name's name");
    return { owner, name, fullName: `${owner}/${name}`, visibility: visibilityOf(repository) };
  });

/** `visibility` when GitHub sent a known one, else what `private` implies, else unknown. */
function visibilityOf(repository: { visibility?: unknown; private?: unknown }): RepoVisibility | undefined {
  const known = REPO_VISIBILITIES.find((visibility) => visibility === repository.visibility);
  if (known !== undefined) return known;
  if (typeof repository.private !== "boolean") return undefined;
  return repository.private ? "private" : "public";
}

/** What every trigger (a comment, a review comment, a review) says about who wrote it and what. */
const authoredSchema = z.object({
  id,
  // GitHub sends null for a comment whose author was deleted ("ghost").
  user: userSchema.nullable(),
  body: z.string().nullable(),
  author_association: z.string()
});

/**
 * A comment's time as GitHub sends it (ISO 8601): when it was made. Read as
 * text; freshness.ts decides what an unreadable one means.
 */
const commentSchema = authoredSchema.extend({ created_at: z.string() });

/** An issue's or pull request's body: null when it has none; absent only from a payload GitHub did not write. */
const bodySchema = z.string().nullable().optional();

// The App's installation that sent this delivery (signed with the rest): the token is minted for it without looking it up.
export const installationSchema = z.object({ id }).optional();

export const issueCommentSchema = z.object({
  action: z.string(),
  // `pull_request` is there (links only, no head or base) when the comment is on a pull request's conversation.
  // `user`: the issue's author (null for a deleted account), who alone may ask for a reproduction under the reporter tier.
  issue: z.object({
    number: id,
    title: z.string(),
    body: bodySchema,
    user: z.object({ login: z.string(), id: id.optional() }).nullable().optional(),
    pull_request: z.object({}).nullable().optional()
  }),
  comment: commentSchema,
  repository: repositorySchema,
  installation: installationSchema
});
export type IssueCommentDelivery = z.infer<typeof issueCommentSchema>;

/**
 * A pull request as GitHub describes it in a review delivery and in
 * `GET /repos/{owner}/{repo}/pulls/{number}`. `head.repo` is null when the
 * fork it came from was deleted.
 */
export const pullRequestSchema = z.object({
  number: id,
  title: z.string(),
  body: bodySchema,
  // Null for a deleted account ("ghost").
  user: z.object({ login: z.string() }).nullable().optional(),
  head: z.object({ ref: z.string(), sha: z.string(), repo: z.object({ full_name: z.string() }).nullable() }),
  base: z.object({ ref: z.string(), repo: z.object({ full_name: z.string() }) })
});
export type PullRequestPayload = z.infer<typeof pullRequestSchema>;

export const reviewCommentSchema = z.object({
  action: z.string(),
  comment: commentSchema.extend({
    path: z.string(),
    // GitHub's line numbers: null for a comment on a whole file or an outdated line.
    line: z.number().int().nullable().optional(),
    start_line: z.number().int().nullable().optional(),
    side: z.string().nullable().optional(),
    diff_hunk: z.string()
  }),
  pull_request: pullRequestSchema,
  repository: repositorySchema,
  installation: installationSchema
});
export type ReviewCommentDelivery = z.infer<typeof reviewCommentSchema>;

export const reviewSchema = z.object({
  action: z.string(),
  // When the review was submitted: GitHub's schema allows null (a pending review), never sent for `submitted`.
  review: authoredSchema.extend({ submitted_at: z.string().nullable() }),
  pull_request: pullRequestSchema,
  repository: repositorySchema,
  installation: installationSchema
});
export type ReviewDelivery = z.infer<typeof reviewSchema>;

/**
 * `issues` / `assigned`, `unassigned`, `labeled`, `unlabeled`: who did it is
 * `sender`; `assignee` or `label` is what changed (GitHub's schema lets
 * either be absent or null). The event carries no time of its own, so the
 * issue's `updated_at`, which the change set, dates it (freshness.ts).
 */
export const issueEventSchema = z.object({
  action: z.string(),
  issue: z.object({ number: id, title: z.string(), body: bodySchema, updated_at: z.string() }),
  assignee: z.object({ login: z.string(), type: z.string().optional() }).nullable().optional(),
  label: z.object({ name: z.string() }).nullable().optional(),
  sender: userSchema,
  repository: repositorySchema,
  installation: installationSchema
});
export type IssueEventDelivery = z.infer<typeof issueEventSchema>;
export type Commenter = z.infer<typeof userSchema>;
