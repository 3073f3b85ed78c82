/**
 * A completed check suite or workflow run, read from its delivery
 * (`check_suite.completed`, `workflow_run.completed`), and the decisions
 * that need nothing but the payload: did it fail, is its head in the
 * repository itself (a fork's CI never starts a run), and which of the
 * pull requests it names is on one of the App's branches
 * (`agent-think/issue-<n>`). The route (http/ci-event.ts) asks GitHub the
 * rest. Why and what it starts: docs/ingress.md, "CI follow-ups". Pure.
 */
import { z } from "zod";
import { CI_FAILING_CONCLUSIONS, type CiFailingConclusion } from "../../src/shared/dispatch";
import { issueBranch } from "../../src/run/write-policy";
import { installationSchema, repositorySchema } from "./payload";

/** The events and the one action of each that may start a CI follow-up. */
export const CI_EVENTS: Record<string, string> = { check_suite: "completed", workflow_run: "completed" };
export type CiEventName = "check_suite" | "workflow_run";
export const isCiEvent = (event: string): event is CiEventName => Object.hasOwn(CI_EVENTS, event);

const id = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** A pull request as a check suite or a workflow run lists it: number, head and base, the repositories by id only. */
const ciPullSchema = z.object({
  number: id,
  head: z.object({ ref: z.string(), sha: z.string(), repo: z.object({ id }).nullable().optional() }),
  base: z.object({ ref: z.string(), repo: z.object({ id }).nullable().optional() })
});

const common = {
  action: z.string(),
  repository: repositorySchema,
  installation: installationSchema
};
/** The repository's id: a pull request's head is compared with it (check suites name repositories by id only). */
const repositoryIdSchema = z.object({ repository: z.object({ id }) });

const checkSuiteSchema = z.object({
  ...common,
  check_suite: z.object({
    id,
    head_branch: z.string().nullable(),
    head_sha: z.string(),
    conclusion: z.string().nullable(),
    pull_requests: z.array(ciPullSchema),
    updated_at: z.string().nullable().optional(),
    // The App whose checks these are: GitHub Actions' check runs are its jobs, whose logs can be read.
    app: z.object({ slug: z.string().optional(), name: z.string().optional() }).nullable().optional()
  })
});

const workflowRunSchema = z.object({
  ...common,
  workflow_run: z.object({
    id,
    name: z.string().nullable().optional(),
    head_branch: z.string().nullable(),
    head_sha: z.string(),
    conclusion: z.string().nullable(),
    pull_requests: z.array(ciPullSchema),
    updated_at: z.string().nullable().optional(),
    html_url: z.string().optional(),
    // Null when the fork it ran for was deleted: no repository of ours.
    head_repository: z.object({ id, full_name: z.string() }).nullable().optional()
  })
});

export type CiPull = { number: number; headRef: string; headSha: string; baseRef: string };

export type CiEvent = {
  event: CiEventName;
  /** The check suite's or the workflow run's id: where its failures are read (ci-failures.ts). */
  sourceId: number;
  /** The workflow's name, or the checks' App's name, for a failure GitHub would not describe. */
  sourceName: string;
  /** The workflow run's page; a check suite has none of its own. */
  sourceUrl?: string;
  /** `github-actions` when the checks are GitHub Actions' jobs (their logs can be read by the check run's id). */
  appSlug?: string;
  conclusion: string | null;
  headBranch: string | null;
  headSha: string;
  /** The head is in the repository itself, by the payload: a workflow run's `head_repository`, a check suite's pull requests' head repositories. */
  sameRepository: boolean;
  pulls: CiPull[];
  updatedAt: string | null;
  repository: z.infer<typeof repositorySchema>;
  installationId: number | undefined;
};

export type CiEventRead = { ok: true; ci: CiEvent } | { ok: false; ignore: "action"; action?: string } | { ok: false; ignore?: undefined; field: string };

export function readCiEvent(event: CiEventName, payload: unknown): CiEventRead {
  const action = (payload as { action?: unknown } | null)?.action;
  if (action !== CI_EVENTS[event]) return { ok: false, ignore: "action", ...(typeof action === "string" ? { action } : {}) };
  const bad = (issues: { path: PropertyKey[] }[]): CiEventRead => ({ ok: false, field: issues[0]?.path.join(".") ?? "" });
  const repoId = repositoryIdSchema.safeParse(payload);
  if (!repoId.success) return bad(repoId.error.issues);
  const ownId = repoId.data.repository.id;
  const pullsOf = (pulls: z.infer<typeof ciPullSchema>[]): CiPull[] =>
    pulls
      // A pull request whose head is elsewhere (a fork) is no pull request of the App's.
      .filter((pull) => pull.head.repo?.id === ownId)
      .map((pull) => ({ number: pull.number, headRef: pull.head.ref, headSha: pull.head.sha, baseRef: pull.base.ref }));

  if (event === "check_suite") {
    const parsed = checkSuiteSchema.safeParse(payload);
    if (!parsed.success) return bad(parsed.error.issues);
    const { check_suite: suite, repository, installation } = parsed.data;
    // GitHub: a check suite whose head branch is in a fork has head_branch null and no pull requests.
    const sameRepository = suite.head_branch !== null && suite.pull_requests.every((pull) => pull.head.repo?.id === ownId);
    return {
      ok: true,
      ci: {
        event,
        sourceId: suite.id,
        sourceName: suite.app?.name ?? suite.app?.slug ?? "check suite",
        ...(suite.app?.slug ? { appSlug: suite.app.slug } : {}),
        conclusion: suite.conclusion,
        headBranch: suite.head_branch,
        headSha: suite.head_sha,
        sameRepository,
        pulls: pullsOf(suite.pull_requests),
        updatedAt: suite.updated_at ?? null,
        repository,
        installationId: installation?.id
      }
    };
  }
  const parsed = workflowRunSchema.safeParse(payload);
  if (!parsed.success) return bad(parsed.error.issues);
  const { workflow_run: run, repository, installation } = parsed.data;
  const head = run.head_repository;
  return {
    ok: true,
    ci: {
      event,
      sourceId: run.id,
      sourceName: run.name ?? "workflow run",
      ...(run.html_url ? { sourceUrl: run.html_url } : {}),
      appSlug: "github-actions",
      conclusion: run.conclusion,
      headBranch: run.head_branch,
      headSha: run.head_sha,
      sameRepository: head !== null && head !== undefined && head.id === ownId && head.full_name.toLowerCase() === repository.fullName.toLowerCase(),
      pulls: pullsOf(run.pull_requests),
      updatedAt: run.updated_at ?? null,
      repository,
      installationId: installation?.id
    }
  };
}

/** Whether GitHub's conclusion is a failure a follow-up may fix; success, neutral, cancelled, skipped, stale and action_required are not. */
export function failingConclusion(conclusion: string | null): conclusion is CiFailingConclusion {
  return CI_FAILING_CONCLUSIONS.some((failing) => failing === conclusion);
}

/** The issue an App branch is for (`agent-think/issue-<n>` → n), or null for any other branch. */
export function appBranchIssue(ref: string): number | null {
  const match = /^agent-think\/issue-([1-9][0-9]{0,15})$/.exec(ref);
  if (!match) return null;
  const issue = Number(match[1]);
  return Number.isSafeInteger(issue) && issueBranch(issue) === ref ? issue : null;
}

export type PullPick = { ok: true; pull: CiPull } | { ok: false; ignore: "not_app_branch" | "no_pull_request" | "ambiguous_pull_request" };

/**
 * The one pull request the follow-up is about: on the suite's own head
 * (branch and commit), and on one of the App's branches. None, or more than
 * one, starts nothing.
 */
export function pickPull(ci: CiEvent): PullPick {
  if (ci.headBranch === null || appBranchIssue(ci.headBranch) === null) return { ok: false, ignore: "not_app_branch" };
  const pulls = ci.pulls.filter((pull) => pull.headRef === ci.headBranch && pull.headSha === ci.headSha);
  if (pulls.length === 0) return { ok: false, ignore: "no_pull_request" };
  if (pulls.length > 1) return { ok: false, ignore: "ambiguous_pull_request" };
  return { ok: true, pull: pulls[0]! };
}

/** A full commit SHA, as the dispatch's `headSha` takes it. */
export const isCommitSha = (sha: string) => /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(sha);
