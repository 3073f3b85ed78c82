/**
 * GitHub's published GraphQL schema as a judge (docs/github-standin.md, "GraphQL"): a request's
 * body (`{ query, variables, operationName }`) is parsed, validated against the schema from
 * `@octokit/graphql-schema` with graphql-js's rules, and its variables coerced to their types,
 * with GitHub's own scalars checked as its schema describes them (RFC 4648 base64, a git object
 * id, a URI). An invalid request gets errors shaped as GitHub's answer to one: HTTP 200 and
 * `{ errors: [{ message, locations? }] }`, in graphql-js's words (GitHub's server is graphql-ruby,
 * which words them otherwise). The schema is built once per process (about half a second).
 */
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { buildSchema, getVariableValues, GraphQLError, GraphQLScalarType, Kind, parse, validate, type DocumentNode, type GraphQLSchema, type OperationDefinitionNode } from "graphql";

/** GitHub's error entry: a message, and where in the document when it is about a place. */
export type GraphqlErrorEntry = { message: string; locations?: Array<{ line: number; column: number }>; path?: Array<string | number>; type?: string };

export type GraphqlCheck =
  | { ok: true; document: DocumentNode; operation: OperationDefinitionNode; variables: Record<string, unknown> }
  | { ok: false; errors: GraphqlErrorEntry[]; reason: string };

let schema: GraphQLSchema | undefined;

/** The schema, built from the package's `schema.graphql` on first use. */
export function githubGraphqlSchema(): GraphQLSchema {
  if (schema) return schema;
  // The package exports only its ES module, so its directory is found where Node would look for it.
  const file = (createRequire(import.meta.url).resolve.paths("@octokit/graphql-schema") ?? [])
    .map((modules) => join(modules, "@octokit", "graphql-schema", "schema.graphql"))
    .find((candidate) => existsSync(candidate));
  if (!file) throw new Error("@octokit/graphql-schema is not installed (npm install)");
  // The published SDL defines a few fields twice (EnterpriseOwnerInfo's), which graphql-js's SDL check refuses; the types are sound.
  const built = buildSchema(readFileSync(file, "utf8"), { assumeValidSDL: true });
  checkScalar(built, "Base64String", "RFC 4648 base64, padded, in the standard alphabet", (value) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(value));
  checkScalar(built, "GitObjectID", "a git object id (40 or 64 hexadecimal digits)", (value) => /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(value));
  checkScalar(built, "URI", "an absolute URI", (value) => URL.canParse(value));
  schema = built;
  return built;
}

/** Custom scalars built from SDL take anything; GitHub's refuse a value that is not what their description says. */
function checkScalar(built: GraphQLSchema, name: string, what: string, valid: (value: string) => boolean): void {
  const type = built.getType(name);
  if (!(type instanceof GraphQLScalarType)) return;
  const parse = (value: unknown) => {
    if (typeof value !== "string" || !valid(value)) throw new GraphQLError(`${JSON.stringify(value)?.slice(0, 80) ?? "undefined"} is not ${what}`);
    return value;
  };
  Object.assign(type, {
    parseValue: parse,
    parseLiteral: (node: { kind: string; value?: string }) => parse(node.kind === Kind.STRING ? node.value : undefined)
  });
}

/** The request's body judged: its document and variables when GitHub would run it, else GitHub's errors. */
export function checkGraphqlRequest(body: unknown): GraphqlCheck {
  const request = (typeof body === "object" && body !== null && !Array.isArray(body) ? body : {}) as { query?: unknown; variables?: unknown; operationName?: unknown };
  if (typeof request.query !== "string" || request.query.trim() === "") {
    return refused([{ message: "A query attribute must be specified and must be a string." }], "no query");
  }
  if (request.variables !== undefined && request.variables !== null && (typeof request.variables !== "object" || Array.isArray(request.variables))) {
    return refused([{ message: "Variables are invalid JSON." }], "variables are not an object");
  }
  let document: DocumentNode;
  try {
    document = parse(request.query);
  } catch (error) {
    const entry = error instanceof GraphQLError ? entryOf(error) : { message: String(error) };
    return refused([entry], `the query does not parse: ${entry.message}`);
  }
  const built = githubGraphqlSchema();
  const problems = validate(built, document);
  if (problems.length > 0) return refused(problems.map(entryOf), `the query is not valid against GitHub's schema: ${problems.map((problem) => problem.message).join("; ")}`);
  const operations = document.definitions.filter((definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION);
  const name = typeof request.operationName === "string" ? request.operationName : undefined;
  const operation = name === undefined ? (operations.length === 1 ? operations[0] : undefined) : operations.find((candidate) => candidate.name?.value === name);
  if (!operation) {
    const message = name === undefined ? "An operation name is required when the document has more than one operation." : `No operation named "${name}".`;
    return refused([{ message }], message);
  }
  const coerced = getVariableValues(built, operation.variableDefinitions ?? [], (request.variables ?? {}) as Record<string, unknown>);
  if (coerced.errors) return refused(coerced.errors.map(entryOf), `its variables do not fit their types: ${coerced.errors.map((error) => error.message).join("; ")}`);
  return { ok: true, document, operation, variables: coerced.coerced };
}

function refused(errors: GraphqlErrorEntry[], reason: string): GraphqlCheck {
  return { ok: false, errors, reason };
}

export function entryOf(error: GraphQLError): GraphqlErrorEntry {
  return {
    message: error.message,
    ...(error.locations?.length ? { locations: error.locations.map(({ line, column }) => ({ line, column })) } : {}),
    ...(error.path ? { path: [...error.path] } : {})
  };
}
