/**
 * The part of an `issue_comment` delivery the webhook app reads, parsed with
 * zod after the signature is verified. GitHub sends much more; unknown
 * fields are ignored (GitHub adds fields without notice). Comments on pull
 * requests arrive as issue_comment too and are handled the same way: a pull
 * request is an issue with the same number.
 *
 * The repository is named three times (`full_name`, `owner.login`, `name`);
 * the parse keeps one name, `full_name` split into owner and name, and
 * refuses a payload whose three disagree, so the allowlist, the token, the
 * reactions and the dispatch can never be about different repositories.
 *
 * Names are checked by GitHub's rules (src/shared/repo.ts), the same ones the
 * agent Worker's dispatch checks: an Enterprise Managed User's `mona_acme`
 * and `octocat_acme/widgets` pass, and a commenter's login the agent would
 * refuse is refused here, before the claim, instead of failing the dispatch.
 *
 * Pure.
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
  avatar_url: z.string().optional()
});

const repositorySchema = z
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
  repository: repositorySchema,
  // The App's installation that sent this delivery (signed with the rest): the token is minted for it without looking it up.
  installation: z.object({ id }).optional()
});
export type IssueCommentDelivery = z.infer<typeof issueCommentSchema>;
export type Commenter = z.infer<typeof userSchema>;

/** Only the action is needed to decide whether to read further. */
export const actionSchema = z.object({ action: z.string().optional() });
