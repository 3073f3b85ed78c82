/**
 * The part of an `issue_comment` delivery the webhook app reads, parsed with
 * zod after the signature is verified. GitHub sends much more; unknown
 * fields are ignored (GitHub adds fields without notice). Comments on pull
 * requests arrive as issue_comment too and are handled the same way: a pull
 * request is an issue with the same number.
 *
 * Pure.
 */
import { z } from "zod";

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

const userSchema = z.object({
  login: z.string().min(1),
  type: z.string(),
  avatar_url: z.string().optional()
});

export const issueCommentSchema = z.object({
  action: z.string(),
  issue: z.object({ number: id, title: z.string() }),
  comment: z.object({
    id,
    // GitHub sends null for a comment whose author was deleted ("ghost").
    user: userSchema.nullable(),
    body: z.string().nullable(),
    author_association: z.string()
  }),
  repository: z.object({ name: z.string().min(1), full_name: z.string().min(3), owner: z.object({ login: z.string().min(1) }) })
});
export type IssueCommentDelivery = z.infer<typeof issueCommentSchema>;
export type Commenter = z.infer<typeof userSchema>;

/** Only the action is needed to decide whether to read further. */
export const actionSchema = z.object({ action: z.string().optional() });
