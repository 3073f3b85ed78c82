/**
 * Wire types of the AgentThink RPC surface, parsed with zod at the boundary.
 *
 * A bad input throws `InvalidInputError`, whose message names the field, before
 * anything is written anywhere. Unknown fields are rejected rather than
 * ignored: the agent Worker deploys before its callers, so a caller never
 * legitimately sends a field this version does not know. Pure.
 */
import { z } from "zod";
import { checkActorLogin, checkBotLogin, parseRepo } from "./repo";
import { isSessionName } from "./session-name";

export const MAX_INSTRUCTION_CHARS = 8_000;
export const MAX_TOKEN_CHARS = 4_096;
export const MAX_TITLE_CHARS = 1_024;
/** GitHub's `repository.visibility`; `internal` is visible to an enterprise's members only. */
export const REPO_VISIBILITIES = ["public", "private", "internal"] as const;
export type RepoVisibility = (typeof REPO_VISIBILITIES)[number];

const repoSchema = z.string().superRefine((value, ctx) => {
  const parsed = parseRepo(value);
  if (!parsed.ok) ctx.addIssue({ code: "custom", message: parsed.reason });
});

const positiveInt = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/**
 * The App's own identity as GitHub reports it (`GET /app` gives the slug,
 * `GET /users/<slug>[bot]` the bot user's id): who the run's commits and
 * comments are by. The webhook app learns it and sends it with every
 * dispatch, and the token broker with every token.
 */
export const botIdentitySchema = z.strictObject({
  login: z.string().superRefine((value, ctx) => {
    const checked = checkBotLogin(value);
    if (!checked.ok) ctx.addIssue({ code: "custom", message: checked.reason });
  }),
  id: positiveInt
});
export type BotIdentity = z.infer<typeof botIdentitySchema>;

export const MAX_GIT_REF_CHARS = 255;
export const MAX_PATH_CHARS = 1_024;
/** A review comment's diff hunk is cut to this many characters (the webhook app cuts it; the agent refuses more). */
export const MAX_DIFF_HUNK_CHARS = 4_096;
export const PULL_REQUEST_SIDES = ["LEFT", "RIGHT"] as const;

const lineNumber = z.number().int().positive().max(10_000_000);

/**
 * The pull request a run is about, when the mention was on one (a
 * conversation comment, a review comment or a review). The head and base
 * are absent only when the mention was on the conversation and GitHub could
 * not be asked for them (docs/contracts.md). `reviewComment` is the line
 * comment that mentioned the bot: its file, lines and diff hunk.
 */
export const pullRequestSchema = z.strictObject({
  number: positiveInt,
  headRepo: repoSchema.optional(),
  headRef: z.string().min(1).max(MAX_GIT_REF_CHARS).optional(),
  headSha: z
    .string()
    .regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/, "must be a full commit SHA")
    .optional(),
  baseRef: z.string().min(1).max(MAX_GIT_REF_CHARS).optional(),
  /** The head is in another repository than the base (or in a fork GitHub no longer has). */
  fork: z.boolean().optional(),
  /** Who opened the pull request: a run may push to its head only when this App did (src/run/write-policy.ts). */
  author: z
    .string()
    .superRefine((value, ctx) => {
      const checked = checkActorLogin(value);
      if (!checked.ok) ctx.addIssue({ code: "custom", message: checked.reason });
    })
    .optional(),
  /** The review that mentioned the bot (a review itself, not one of its line comments). */
  reviewId: positiveInt.optional(),
  reviewComment: z
    .strictObject({
      id: positiveInt,
      path: z.string().min(1).max(MAX_PATH_CHARS),
      startLine: lineNumber.optional(),
      line: lineNumber.optional(),
      side: z.enum(PULL_REQUEST_SIDES).optional(),
      diffHunk: z.string().max(MAX_DIFF_HUNK_CHARS)
    })
    .optional()
});
export type PullRequestRef = z.infer<typeof pullRequestSchema>;

const commitSha = z.string().regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/, "must be a full commit SHA");

/** The instruction of every CI follow-up run: the failures themselves travel in `ci`, as data. */
export const CI_FIX_INSTRUCTION = "fix the failing CI checks on this pull request";
/** GitHub's conclusions of a check run, a check suite, a workflow run or a job that count as a failure for a CI follow-up. */
export const CI_FAILING_CONCLUSIONS = ["failure", "timed_out", "startup_failure"] as const;
export type CiFailingConclusion = (typeof CI_FAILING_CONCLUSIONS)[number];
export const MAX_CI_FAILURES = 10;
export const MAX_CI_NAME_CHARS = 200;
export const MAX_CI_SUMMARY_CHARS = 1_000;
export const MAX_CI_EXCERPT_CHARS = 3_000;
export const MAX_CI_URL_CHARS = 2_048;

/**
 * What failed on a pull request's head, as the webhook app read it from
 * GitHub (check runs, or a workflow run's jobs, and their logs' last
 * lines). Every string is written by the repository's CI, and so by whoever
 * can change its workflows or its tests' output: the run shows it as
 * untrusted data (src/steps/workspace-block.ts), bounded here.
 */
export const ciFailuresSchema = z.strictObject({
  headSha: commitSha,
  failures: z
    .array(
      z.strictObject({
        name: z.string().min(1).max(MAX_CI_NAME_CHARS),
        conclusion: z.enum(CI_FAILING_CONCLUSIONS),
        url: z.url({ protocol: /^https?$/ }).max(MAX_CI_URL_CHARS).optional(),
        /** A check run's output title and summary, or a job's failed steps. */
        summary: z.string().max(MAX_CI_SUMMARY_CHARS).optional(),
        /** The last lines of its log. */
        excerpt: z.string().max(MAX_CI_EXCERPT_CHARS).optional()
      })
    )
    .min(1, "must name at least one failure")
    .max(MAX_CI_FAILURES, `must have at most ${MAX_CI_FAILURES} failures`)
});
export type CiFailures = z.infer<typeof ciFailuresSchema>;
export type CiFailure = CiFailures["failures"][number];

/** Who a run answers to: absent, a maintainer (write access); `reporter`, the issue's author under the reporter tier. */
export const RUN_TIERS = ["reporter"] as const;
export type RunTier = (typeof RUN_TIERS)[number];
/** Who recorded a reproduction's check: a run of the maintainers' tier or the reporter's. */
export type RecordingTier = "maintainer" | "reporter";

export const dispatchInputSchema = z.strictObject({
  repo: repoSchema,
  issueNumber: positiveInt,
  instruction: z
    .string()
    .max(MAX_INSTRUCTION_CHARS, `must be at most ${MAX_INSTRUCTION_CHARS} characters`)
    .refine((value) => value.trim().length > 0, "must not be empty"),
  // Empty means "no GitHub access" (local dev); callers in production always
  // send a short-lived installation token.
  installationToken: z.string().max(MAX_TOKEN_CHARS),
  // When that token expires (GitHub's `expires_at`). Without it the agent
  // counts GitHub's one-hour lifetime from when the token arrived.
  installationTokenExpiresAt: z.iso
    .datetime({ offset: true, message: "must be an ISO 8601 date-time with a time zone, such as 2025-01-01T12:00:00Z" })
    .optional(),
  commentId: positiveInt.optional(),
  issueTitle: z.string().max(MAX_TITLE_CHARS).optional(),
  // SHA-256 (hex) of the issue's (or pull request's) body as the webhook
  // payload had it at the mention: a body edited since is flagged to the model.
  issueBodySha256: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits (a SHA-256)").optional(),
  requestedBy: z
    .strictObject({
      // Any login GitHub gives out, an Enterprise Managed User's or an App's bot's included (repo.ts).
      login: z.string().superRefine((value, ctx) => {
        const checked = checkActorLogin(value);
        if (!checked.ok) ctx.addIssue({ code: "custom", message: checked.reason });
      }),
      avatarUrl: z.url({ protocol: /^https?$/ }).optional()
    })
    .optional(),
  // The repository's visibility from the webhook payload. A reproduction of
  // a repository that is not known to be public is served only behind Access.
  repoVisibility: z.enum(REPO_VISIBILITIES).optional(),
  // The App's bot, learned from GitHub by the webhook app. Required with a
  // token outside local dev unless BOT_LOGIN is configured (service.ts).
  bot: botIdentitySchema.optional(),
  // Set when the mention was on a pull request; `issueNumber` is then its number too.
  pullRequest: pullRequestSchema.optional(),
  // "reporter": the issue's own author asked without write access, on a
  // repository whose .github/agent-think.yml says `reporters: reproduce`.
  // The run is then read-only throughout (docs/security.md, Reporter tier).
  tier: z.enum(RUN_TIERS).optional(),
  // A CI follow-up: the App's own pull request's checks failed on `ci.headSha` (docs/ingress.md, CI follow-ups).
  ci: ciFailuresSchema.optional()
})
  .refine((input) => input.pullRequest === undefined || input.pullRequest.number === input.issueNumber, {
    path: ["pullRequest", "number"],
    message: "must be issueNumber"
  })
  .refine((input) => input.ci === undefined || input.pullRequest !== undefined, { path: ["ci"], message: "needs pullRequest: a CI follow-up is about a pull request" })
  .refine((input) => input.ci === undefined || input.pullRequest?.headSha === undefined || input.pullRequest.headSha === input.ci.headSha, {
    path: ["ci", "headSha"],
    message: "must be pullRequest.headSha"
  })
  .refine((input) => input.ci === undefined || input.tier === undefined, { path: ["ci"], message: "is never a reporter-tier run" });
export type DispatchInput = z.infer<typeof dispatchInputSchema>;

export type DispatchResult = { session: string; threadUrl: string; submissionId: string };

const sessionSchema = z.string().refine(isSessionName, "must be a session name such as owner-repo-123");

export const submissionStatusInputSchema = z.strictObject({
  session: sessionSchema,
  submissionId: z.string().min(1).max(200)
});
export type SubmissionStatusInput = z.infer<typeof submissionStatusInputSchema>;

export const SUBMISSION_STATUSES = ["pending", "running", "completed", "aborted", "skipped", "error"] as const;
export type SubmissionStatusValue = (typeof SUBMISSION_STATUSES)[number];

export type SubmissionStatus = {
  status: SubmissionStatusValue;
  error?: string;
  createdAt: number;
  startedAt?: number;
  completedAt?: number;
};

export const resetSessionInputSchema = z.strictObject({ session: sessionSchema });
export const cancelInputSchema = z.strictObject({ session: sessionSchema });
export type CancelInput = z.infer<typeof cancelInputSchema>;
export type CancelResult = { session: string; cancelled: number };

/** The plainest stop; `isStopInstruction` takes more (docs/contracts.md, "Stop"). */
export const STOP_INSTRUCTION = "stop";
/**
 * The stop grammar: the instruction's first non-blank line is `stop`,
 * `cancel` or `abort`, optionally after `please`, in any case, with any
 * trailing `.` or `!`. Whatever follows on later lines is ignored (a reason,
 * a signature). Anything else is an instruction: "stop the server from
 * crashing on empty input" is work to do, not a stop.
 */
const STOP_LINE = /^(?:please\s+)?(?:stop|cancel|abort)\s*[.!]*$/i;
export function isStopInstruction(instruction: string): boolean {
  const first = instruction.split(/\r?\n/).find((line) => line.trim() !== "") ?? "";
  return STOP_LINE.test(first.trim());
}

/** The plainest continue; `isContinueInstruction` takes more (docs/contracts.md, "Continue"). */
export const CONTINUE_INSTRUCTION = "continue";
/**
 * The continue grammar, the stop's twin: the first non-blank line is
 * `continue`, optionally after `please`, in any case, with any trailing `.`
 * or `!`; later lines are ignored. "continue with the fix" is an
 * instruction: it asks for new work, which a continuation (the failed run's
 * own instruction, again) would not do.
 */
const CONTINUE_LINE = /^(?:please\s+)?continue\s*[.!]*$/i;
export function isContinueInstruction(instruction: string): boolean {
  const first = instruction.split(/\r?\n/).find((line) => line.trim() !== "") ?? "";
  return CONTINUE_LINE.test(first.trim());
}
export type ResetSessionInput = z.infer<typeof resetSessionInputSchema>;
export type ResetSessionResult = { session: string; cancelled: number };

/** A rejected input. `field` is the dotted path of the first bad field. */
export class InvalidInputError extends Error {
  override readonly name = "InvalidInputError";
  readonly code = "invalid_input";
  constructor(
    readonly field: string,
    detail: string
  ) {
    super(`invalid input: ${field}: ${detail}`);
  }
}

export function parseInput<T>(schema: z.ZodType<T>, input: unknown, what: string): T {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  let field = issue.path.join(".");
  // zod's own messages open with "Invalid input: ", which the prefix already says.
  let detail = issue.message.replace(/^Invalid input: /, "");
  if (issue.code === "unrecognized_keys") {
    field = [...issue.path, issue.keys[0]].join(".");
    detail = "unknown field";
  }
  throw new InvalidInputError(field || what, detail);
}

/**
 * A transcript message as it crosses RPC and HTTP: the AI SDK's UIMessage,
 * loosened to plain data (over a Durable Object stub UIMessage's own type
 * does not survive).
 */
export type TranscriptMessage = {
  id: string;
  role: "system" | "user" | "assistant";
  // Part fields vary by part type (text, tool-*, step-start, ...); readers
  // narrow on `type`. A recursive JSON type here is too deep for the RPC types.
  // biome-ignore lint/suspicious/noExplicitAny: see above
  metadata?: any;
  // biome-ignore lint/suspicious/noExplicitAny: see above
  parts: Array<{ type: string; [field: string]: any }>;
};
