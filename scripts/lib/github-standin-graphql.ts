/**
 * The GitHub stand-in's GraphQL endpoint (`POST /graphql`, `/api/graphql` where it plays an
 * Enterprise Server): every request judged against GitHub's published schema first
 * (github-graphql.ts; an invalid one answered as GitHub answers it and recorded as a refusal),
 * then run by graphql-js over what the stand-in models: `repository { defaultBranchRef, ref }`
 * and `createCommitOnBranch` (github-standin-branches.ts). A field outside that is the stand-in's
 * gap: a 501, recorded as a refusal, as a REST call it does not model is. What GitHub refuses
 * when it runs a request (a stale head, a missing branch) is its 200 with `errors` and a `type`,
 * also a refusal.
 */
import { execute, getLocation, type GraphQLFieldResolver } from "graphql";
import { checkGraphqlRequest, githubGraphqlSchema, type GraphqlErrorEntry } from "./github-graphql";
import type { StandinBranches } from "./github-standin-branches";

export type GraphqlAnswer = { status: number; body: unknown; operation: string; refusal?: string };

/** Where GitHub serves GraphQL beside its REST root: `/graphql` on github.com, `/api/graphql` beside an Enterprise Server's `/api/v3`. */
export function graphqlPath(apiRoot: string): string {
  return apiRoot ? apiRoot.replace(/\/v3$/, "/graphql") : "/graphql";
}
/** A GraphQL body may carry a commit's files, base64: far more than a REST body's MiB. */
export const MAX_GRAPHQL_BODY_BYTES = 96 * 1024 * 1024;

const DOCS_URL = "https://docs.github.com/graphql";

export function answerGraphql(body: unknown, deps: { branches: StandinBranches; login: string }): GraphqlAnswer {
  const check = checkGraphqlRequest(body);
  if (!check.ok) return { status: 200, body: { errors: check.errors }, operation: "graphql", refusal: check.reason };
  const { operation } = check;
  const fields = operation.selectionSet.selections.flatMap((selection) => (selection.kind === "Field" ? [selection.name.value] : []));
  const name = `graphql ${operation.operation} ${fields.join(",")}`;
  const unmodelled = new Set<string>();
  // GitHub's refusals are collected, not thrown (github-standin-branches.ts says why); the field resolves to null, as GitHub answers it.
  const refused: GraphqlErrorEntry[] = [];
  const rootValue =
    operation.operation === "mutation"
      ? {
          createCommitOnBranch: (args: { input: Parameters<StandinBranches["createCommit"]>[0] }, _context: unknown, info: { fieldNodes: ReadonlyArray<{ loc?: { start: number; source: Parameters<typeof getLocation>[0] } }>; path: { key: string | number } }) => {
            const outcome = deps.branches.createCommit(args.input, deps.login);
            if ("payload" in outcome) return outcome.payload;
            if ("unmodelled" in outcome) unmodelled.add(outcome.unmodelled);
            else {
              const loc = info.fieldNodes[0]?.loc;
              refused.push({ type: outcome.failure.type, message: outcome.failure.message, ...(loc ? { locations: [getLocation(loc.source, loc.start)] } : {}), path: [info.path.key] });
            }
            return null;
          }
        }
      : { repository: ({ owner, name: repo }: { owner: string; name: string }) => deps.branches.repository(owner, repo) };
  // A field the stand-in's objects do not have is not modelled, never silently null.
  const fieldResolver: GraphQLFieldResolver<unknown, unknown> = (source, args, _context, info) => {
    const object = source as Record<string, unknown>;
    if (object === null || typeof object !== "object" || !(info.fieldName in object)) {
      unmodelled.add(`${info.parentType.name}.${info.fieldName}`);
      return null;
    }
    const value = object[info.fieldName];
    return typeof value === "function" ? (value as (args: unknown, context: unknown, info: unknown) => unknown)(args, _context, info) : value;
  };
  const result = execute({ schema: githubGraphqlSchema(), document: check.document, operationName: operation.name?.value, variableValues: check.variables, rootValue, fieldResolver });
  if (result instanceof Promise) throw new Error("the stand-in's GraphQL resolvers are synchronous");
  if (unmodelled.size > 0) {
    const gaps = [...unmodelled].map((gap) => (gap.includes(" ") ? gap : `The GitHub stand-in does not model ${gap}`));
    const message = gaps.join("; ");
    return { status: 501, body: { message, documentation_url: DOCS_URL, status: "501" }, operation: name, refusal: message };
  }
  if (result.errors?.length) {
    // The stand-in's own failure (its git, a resolver), not an answer GitHub would give.
    const message = `The GitHub stand-in failed: ${result.errors.map((error) => error.message).join("; ")}`;
    return { status: 500, body: { message, documentation_url: DOCS_URL, status: "500" }, operation: name, refusal: message };
  }
  if (refused.length === 0) return { status: 200, body: { data: result.data }, operation: name };
  const refusal = refused.map((entry) => `${entry.type}: ${entry.message}`).join("; ");
  return { status: 200, body: { data: result.data, errors: refused }, operation: name, refusal };
}

/** A GraphQL body as records keep it: each added file's contents replaced by its size, so a commit of large files stays small. */
export function recordedGraphqlBody(body: unknown): unknown {
  const input = (body as { variables?: { input?: { fileChanges?: { additions?: unknown } } } } | undefined)?.variables?.input;
  const additions = input?.fileChanges?.additions;
  if (!Array.isArray(additions)) return body;
  const shown = additions.map((addition: { path?: unknown; contents?: unknown }) => ({
    path: addition.path,
    contents: typeof addition.contents === "string" ? `<base64 of ${Buffer.from(addition.contents, "base64").length} bytes>` : addition.contents
  }));
  const request = body as { variables: { input: { fileChanges: Record<string, unknown> } } };
  return { ...request, variables: { ...request.variables, input: { ...request.variables.input, fileChanges: { ...request.variables.input.fileChanges, additions: shown } } } };
}
