/**
 * An eval case (`evals/cases/<id>.json`): one real bug report, written so it
 * can be replayed on a fork or a sandbox repository, with the outcome a good
 * run reaches and the limits it must keep. docs/eval.md documents every
 * field; `loadCases` refuses a bad file with its path and the field.
 */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { RESULT_OUTCOMES } from "../../../src/run/ending";

/**
 * What a case can need from its target: `container`, a sandbox that runs git and the project (a fix's proof re-runs a check there);
 * `pull-request`, the case's `pullRequest` opened beside its issue, as the App or as a person.
 */
export const CASE_NEEDS = ["container", "pull-request"] as const;
export type CaseNeed = (typeof CASE_NEEDS)[number];

const REPO = /^[A-Za-z0-9-]+\/[A-Za-z0-9._-]+$/;
const ID = /^[a-z0-9][a-z0-9-]{0,79}$/;
/** A case's report stays short: what a maintainer would read in one go (GitHub itself takes 65,536 characters). */
export const MAX_ISSUE_BODY_CHARS = 6_000;

export const caseSchema = z
  .object({
    /** The file's name without `.json`: lowercase letters, digits and dashes. */
    id: z.string().regex(ID, "must be lowercase letters, digits and dashes (at most 80), and the file's name"),
    /** The public bug report this case is built from. */
    source: z.url({ protocol: /^https$/ }),
    /** Where the bug lives, `owner/name`: the source repository a replay is pushed from. */
    repo: z.string().regex(REPO, 'must be "owner/name"'),
    /** The commit or tag a replay's `main` is pinned at: the default branch as it stood when the report was made, or the release it names (the source's default branch when absent). */
    ref: z.string().min(1).max(200).optional(),
    /** The release the report was made against, as the reporter named it or as it was the latest then (`3.0.0`). */
    version: z.string().min(1).max(100),
    /** The issue as it is opened for the replay: the report's title and body, inline (links to GitHub threads are taken out then: replay.ts). */
    issue: z.object({ title: z.string().min(1).max(256), body: z.string().min(1).max(MAX_ISSUE_BODY_CHARS) }).strict(),
    /**
     * A pull request for the case's issue, opened before the mention (docs/eval.md, "Pull requests"): by `app`, the App's bot,
     * from `agent-think/issue-<n>`, or by `user`, a person, from a branch of the repository. The maintainer's words go on the
     * `issue` (the App's pull request is then the one its run updates) or on the `pull-request` itself.
     */
    pullRequest: z
      .object({
        by: z.enum(["app", "user"]),
        mention: z.enum(["issue", "pull-request"]),
        title: z.string().min(1).max(256),
        body: z.string().min(1).max(MAX_ISSUE_BODY_CHARS)
      })
      .strict()
      .optional(),
    /** What the maintainer asks, after the mention: `@agent-think <instruction>`. */
    instruction: z.string().min(1).max(2_000),
    /** The outcome a good run reports. */
    expected: z.enum(RESULT_OUTCOMES),
    checks: z
      .object({
        /** The run must publish a reproduction page that answers 200. */
        reproductionPage: z.boolean().optional(),
        /** A command that fails on the reported ref and passes once the run's fix is applied (pr-opened). */
        command: z.object({ run: z.string().min(1).max(1_000), failsBefore: z.boolean().default(true), passesAfter: z.boolean().default(true) }).strict().optional()
      })
      .strict()
      .default({}),
    limits: z
      .object({
        /** Wall-clock minutes from the mention to the closing comment. */
        minutes: z.number().positive().max(240),
        /** US dollars the run may cost. */
        usd: z.number().positive().max(1_000)
      })
      .strict(),
    /**
     * What the offline scripted model does for this case (`--scripted`):
     * `TEST:` directive lines (src/model/script.ts), appended to the
     * instruction. A real model never sees them.
     */
    scripted: z.array(z.string().regex(/^TEST: [\w-]+/, 'must be a "TEST: <verb> ..." directive line')).min(1).max(50),
    /** What the target must have for the case to mean anything; a target without it skips the case, saying so. */
    needs: z.array(z.enum(CASE_NEEDS)).max(CASE_NEEDS.length).optional(),
    /** Why this case is in the set: what it exercises. */
    notes: z.string().max(2_000).optional()
  })
  .strict()
  // A target that cannot open the pull request skips the case by its need, as it skips one that needs a container.
  .refine((one) => (one.pullRequest !== undefined) === (one.needs ?? []).includes("pull-request"), {
    path: ["needs"],
    message: 'must include "pull-request" exactly when the case has a pullRequest'
  });

export type EvalCase = z.infer<typeof caseSchema>;

/** A case file that is not a valid case: which file, which field, what is wrong. */
export class CaseError extends Error {
  override readonly name = "CaseError";
  constructor(
    readonly file: string,
    readonly problems: string[]
  ) {
    super(`${file}: ${problems.join("; ")}`);
  }
}

/** Parses one case file's text; `file` names it in errors and must match the id. */
export function parseCase(file: string, text: string): EvalCase {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new CaseError(file, [`not JSON: ${(error as Error).message}`]);
  }
  const parsed = caseSchema.safeParse(json);
  if (!parsed.success) {
    throw new CaseError(
      file,
      parsed.error.issues.map((issue) => `${issue.path.length > 0 ? issue.path.join(".") : "(the case)"}: ${issue.message}`)
    );
  }
  const expectedId = file.replace(/^.*\//, "").replace(/\.json$/, "");
  if (parsed.data.id !== expectedId) throw new CaseError(file, [`id: is "${parsed.data.id}", the file is named "${expectedId}.json"`]);
  return parsed.data;
}

/**
 * Every `*.json` case of a directory, by id, or the named files; `only`
 * keeps the given ids (an unknown id is an error). All files are checked and
 * all problems reported together.
 */
export async function loadCases(paths: string[], only: string[] = []): Promise<EvalCase[]> {
  const files: string[] = [];
  for (const path of paths) {
    if (path.endsWith(".json")) files.push(path);
    else files.push(...(await readdir(path)).filter((name) => name.endsWith(".json")).sort().map((name) => join(path, name)));
  }
  const cases: EvalCase[] = [];
  const errors: string[] = [];
  for (const file of files) {
    try {
      cases.push(parseCase(file, await readFile(file, "utf8")));
    } catch (error) {
      if (!(error instanceof CaseError)) throw error;
      errors.push(error.message);
    }
  }
  const seen = new Set<string>();
  for (const one of cases) {
    if (seen.has(one.id)) errors.push(`${one.id}: two cases have this id`);
    seen.add(one.id);
  }
  for (const id of only) if (!seen.has(id)) errors.push(`--case ${id}: no such case`);
  if (errors.length > 0) throw new Error(`bad eval cases:\n  ${errors.join("\n  ")}`);
  return only.length > 0 ? cases.filter((one) => only.includes(one.id)) : cases;
}
