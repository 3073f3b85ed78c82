/**
 * GitHub's own REST description as the judge of a request: which operation
 * a method and URL name, and whether its path parameters, query, headers
 * and JSON body are what that operation takes (types, required fields,
 * enums such as a reaction's `content`). The local GitHub stand-in
 * (github-standin.ts) asks it about every request before answering;
 * `validateGitHubRequest` lets anything else running in Node ask too.
 *
 * The description is @octokit/openapi's (GitHub's rest-api-description
 * with Octokit's extensions; OpenAPI 3.0.3), `api.github.com` by default;
 * `ghec` and `ghes-<version>` load the same way, served under the path
 * their `servers` entry names (`/api/v3` for GHES). Only the
 * non-dereferenced file is read (13 MB; the package's index would load all
 * ten, ~400 MB). Loaded once per process and name.
 *
 * Validation is openapi-backend's (Ajv) in its quick mode: the description
 * is dereferenced in ~0.3 s and a validator is compiled for an operation on
 * its first request (25-190 ms), then answers in well under a millisecond.
 * Its full mode precompiles every operation: 8 s and then a throw on
 * GitHub's `nullable` without `type` (which the loader now rewrites), or,
 * with that rewritten, 173 s and 790 MB. Routing is github-routes.ts's.
 * Requests only: nothing here answers one, and a response is checked only
 * when a test asks (`checkResponse`).
 *
 * Refusals are shaped as GitHub shapes them: an unknown path or method, or
 * a path parameter of the wrong type, is 404 "Not Found"; a body that is
 * not a JSON object is 400; anything else is 422 "Invalid request." with
 * one line per problem, in GitHub's words ("\"body\" wasn't supplied.").
 * Stricter than GitHub in one way: a query parameter the operation does not
 * declare is refused, where GitHub ignores it (a typo there is a bug here).
 */
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import addFormats from "ajv-formats";
import { OpenAPIBackend, type Operation, type ValidationResult } from "openapi-backend";
import { RouteIndex } from "./github-routes";

/** A description @octokit/openapi ships: `api.github.com`, `ghec`, `ghes-3.19`, ... */
export type GitHubDescriptionName = "api.github.com" | "ghec" | `ghes-${string}`;
export const DEFAULT_GITHUB_DESCRIPTION: GitHubDescriptionName = "api.github.com";
export const GITHUB_DOCS_URL = "https://docs.github.com/rest";

export type RequestProblem = {
  in: "path" | "query" | "header" | "body";
  /** `content`, `per_page`, `labels/0`; empty for the body as a whole. */
  field: string;
  /** Ajv's keyword: required, enum, type, additionalProperties, ... */
  code: string;
  message: string;
};

export type GitHubOperationRef = { operationId: string; method: string; template: string; documentationUrl: string };

export type GitHubRequestCheck =
  | {
      ok: true;
      operation: GitHubOperationRef;
      /** Path parameters by name ("owner", "comment_id"), percent-decoded. */
      params: Record<string, string>;
    }
  | {
      ok: false;
      status: 400 | 404 | 422 | 500;
      /** What GitHub would put in the answer's `message`. */
      message: string;
      /** What was wrong, for a log or a test failure (a 404's message says only "Not Found"). */
      reason: string;
      problems: RequestProblem[];
      operation?: GitHubOperationRef;
    };

export type GitHubRequest = {
  method: string;
  /** A path with its query (`/repos/o/r/issues/1/comments?per_page=100`) or a whole URL. */
  url: string;
  /** The parsed JSON body; undefined when there is none. */
  body?: unknown;
  headers?: Record<string, string | string[] | undefined>;
};

type AjvError = NonNullable<ValidationResult["errors"]>[number];

export class GitHubDescription {
  readonly #api: OpenAPIBackend;
  readonly #routes: RouteIndex<Operation>;

  constructor(
    readonly name: GitHubDescriptionName,
    /** The description's own version (@octokit/openapi's release). */
    readonly version: string,
    /** The path GitHub serves it under: "" for api.github.com, "/api/v3" for GHES. */
    readonly apiRoot: string,
    api: OpenAPIBackend
  ) {
    this.#api = api;
    this.#routes = new RouteIndex(api.router.getOperations().map((operation) => ({ template: operation.path, method: operation.method, operation })));
  }

  get operationCount(): number {
    return this.#api.router.getOperations().length;
  }

  check(request: GitHubRequest): GitHubRequestCheck {
    const url = new URL(request.url, "http://github.invalid");
    const method = request.method.toUpperCase();
    const path = this.#relativePath(url.pathname);
    const match = path === null ? null : this.#routes.match(method, path);
    if (path === null || match === null) {
      return refusal(404, `no operation ${method} ${url.pathname} in GitHub's ${this.name} description ${this.version}`, []);
    }
    const operation = match.operation;
    const ref: GitHubOperationRef = {
      operationId: operation.operationId ?? `${method} ${match.template}`,
      method,
      template: match.template,
      documentationUrl: operation.externalDocs?.url ?? GITHUB_DOCS_URL
    };
    const headers: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(request.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
    let body = request.body;
    if (body !== undefined) headers["content-type"] = "application/json";
    // No body where an object is required: check `{}`, so the answer names the fields it lacks.
    if (body === undefined && requiresObjectBody(operation)) {
      body = {};
      headers["content-type"] = "application/json";
    }
    let errors: AjvError[];
    try {
      // A `{path}` that took several segments is validated as the one segment openapi-backend's parser expects.
      const result = this.#api.validator.validateRequest({ method, path: match.canonicalPath ?? path, query: url.search.slice(1), headers, body }, operation);
      // Its "parse" errors re-read a string body as JSON text; ours arrives parsed already.
      errors = (result.errors ?? []).filter((error) => error.keyword !== "parse");
    } catch (error) {
      const detail = error instanceof Error ? error.message : String(error);
      return { ...refusal(500, `no validator for ${ref.operationId}: ${detail}`, []), operation: ref };
    }
    if (errors.length === 0) return { ok: true, operation: ref, params: match.params };
    const problems = dedupe(errors.map(toProblem));
    const lines = problems.map((problem) => problem.message).join("\n");
    if (problems.some((problem) => problem.in === "path")) return { ...refusal(404, `${ref.operationId}: ${lines}`, problems), operation: ref };
    if (problems.some((problem) => problem.in === "body" && problem.field === "" && problem.code === "type")) {
      return { ok: false, status: 400, message: "Body should be a JSON object", reason: `${ref.operationId}: ${lines}`, problems, operation: ref };
    }
    return { ok: false, status: 422, message: `Invalid request.\n\n${lines}`, reason: `${ref.operationId}: ${lines}`, problems, operation: ref };
  }

  /** Problems with a response the stand-in gives, by the operation's response schema for that status. */
  checkResponse(operationId: string, status: number, body: unknown): string[] {
    const result = this.#api.validator.validateResponse(body, operationId, status);
    return (result.errors ?? []).map((error) => `${error.instancePath || "(body)"} ${error.message ?? error.keyword}`);
  }

  #relativePath(pathname: string): string | null {
    if (this.apiRoot === "") return pathname;
    if (!pathname.startsWith(`${this.apiRoot}/`)) return null;
    return pathname.slice(this.apiRoot.length);
  }
}

/** The answer GitHub gives for a refused request (`message`, `documentation_url`, `status`, and for a 422 `errors`). */
export function refusalBody(check: Extract<GitHubRequestCheck, { ok: false }>): Record<string, unknown> {
  const body: Record<string, unknown> = {
    message: check.message,
    documentation_url: check.operation?.documentationUrl ?? GITHUB_DOCS_URL,
    status: String(check.status)
  };
  if (check.status === 422) {
    body.errors = check.problems.map((problem) => ({ field: problem.field, code: problem.code === "required" ? "missing_field" : "invalid", message: problem.message }));
  }
  return body;
}

const loaded = new Map<string, Promise<GitHubDescription>>();

/** The description by name, loaded and indexed once per process (~0.7 s the first time). */
export function loadGitHubDescription(name: GitHubDescriptionName = DEFAULT_GITHUB_DESCRIPTION): Promise<GitHubDescription> {
  let description = loaded.get(name);
  if (!description) {
    description = build(name);
    loaded.set(name, description);
    description.catch(() => loaded.delete(name));
  }
  return description;
}

/**
 * Would GitHub take this request? `{ ok: true, operation }`, or the status
 * and message it would refuse it with. For MSW handlers and other fakes
 * that run in Node (Ajv compiles validators to code, which workerd forbids
 * inside a request: in the Workers runtime ask the stand-in's
 * `POST /_standin/validate` instead).
 */
export async function validateGitHubRequest(
  method: string,
  url: string,
  body?: unknown,
  options: { headers?: GitHubRequest["headers"]; description?: GitHubDescriptionName } = {}
): Promise<GitHubRequestCheck> {
  const description = await loadGitHubDescription(options.description);
  return description.check({ method, url, body, ...(options.headers ? { headers: options.headers } : {}) });
}

async function build(name: GitHubDescriptionName): Promise<GitHubDescription> {
  const directory = join(dirname(createRequire(import.meta.url).resolve("@octokit/openapi/package.json")), "generated");
  const available = readdirSync(directory)
    .filter((file) => file.endsWith(".json") && !file.endsWith(".deref.json"))
    .map((file) => file.slice(0, -".json".length));
  if (!available.includes(name)) throw new Error(`@octokit/openapi has no description "${name}" (it has: ${available.join(", ")})`);
  const document = JSON.parse(readFileSync(join(directory, `${name}.json`), "utf8")) as {
    info: { version: string };
    servers?: Array<{ url: string }>;
  };
  nullableWithoutType(document);
  const api = new OpenAPIBackend({
    definition: document as never,
    quick: true,
    strict: false,
    // verbose: errors carry the offending value, so a message can quote it.
    ajvOpts: { allErrors: true, verbose: true, logger: false },
    customizeAjv: (ajv) => {
      addFormats(ajv);
      return ajv;
    }
  });
  await api.init();
  return new GitHubDescription(name, document.info.version, apiRootOf(document.servers?.[0]?.url), api);
}

/**
 * OpenAPI 3.0's `nullable: true` on a schema without a `type` (GitHub's
 * `{ nullable: true, anyOf: [...] }`), which Ajv refuses to compile, as the
 * JSON Schema it means: that schema or null. In place, once per load.
 */
function nullableWithoutType(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) nullableWithoutType(item);
    return;
  }
  if (typeof node !== "object" || node === null) return;
  const schema = node as Record<string, unknown>;
  for (const value of Object.values(schema)) nullableWithoutType(value);
  if (schema.nullable !== true || "type" in schema || "$ref" in schema) return;
  const { nullable: _nullable, description, ...rest } = schema;
  for (const key of Object.keys(schema)) delete schema[key];
  Object.assign(schema, description === undefined ? {} : { description }, { anyOf: [rest, { type: "null" }] });
}

/** "https://api.github.com" → "", "{protocol}://{hostname}/api/v3" → "/api/v3". */
function apiRootOf(serverUrl: string | undefined): string {
  const path = serverUrl?.replace(/^[^:]+:\/\/[^/]+/, "") ?? "";
  return path.replace(/\/+$/, "");
}

function requiresObjectBody(operation: Operation): boolean {
  const requestBody = operation.requestBody as { required?: boolean; content?: Record<string, { schema?: { type?: string } }> } | undefined;
  return requestBody?.required === true && requestBody.content?.["application/json"]?.schema?.type === "object";
}

function refusal(status: 404 | 500, reason: string, problems: RequestProblem[]): Extract<GitHubRequestCheck, { ok: false }> {
  return { ok: false, status, message: status === 404 ? "Not Found" : "The GitHub stand-in could not check this request", reason, problems };
}

const MAX_QUOTED_CHARS = 120;
const PLACES = { path: "path", query: "query", header: "header", requestBody: "body" } as const;

/** One Ajv error in GitHub's words. */
function toProblem(error: AjvError): RequestProblem {
  const [place = "", ...rest] = error.instancePath.split("/").slice(1);
  const params = error.params as Record<string, unknown>;
  if (error.instancePath === "" && error.keyword === "required") {
    // A whole part missing: only the body can be (openapi-backend always passes path, query and headers).
    return { in: "body", field: "", code: "required", message: "A request body is required." };
  }
  const where = PLACES[place as keyof typeof PLACES] ?? "body";
  const field = rest.map(unescapePointer).join("/");
  const label = where === "body" ? `properties/${field}` : field;
  const value = quote(error.data);
  switch (error.keyword) {
    case "required": {
      const missing = String(params.missingProperty);
      return { in: where, field: field ? `${field}/${missing}` : missing, code: "required", message: `"${missing}" wasn't supplied.` };
    }
    case "additionalProperties":
      return { in: where, field: field ? `${field}/${String(params.additionalProperty)}` : String(params.additionalProperty), code: "additionalProperties", message: `"${String(params.additionalProperty)}" is not a permitted key.` };
    case "enum":
      return { in: where, field, code: "enum", message: `For '${label}', ${value} is not a member of ${JSON.stringify(params.allowedValues)}.` };
    case "type":
      if (where === "body" && field === "") return { in: where, field, code: "type", message: `The body, ${value}, is not ${article(String(params.type))}.` };
      return { in: where, field, code: "type", message: `For '${label}', ${value} is not ${article(String(params.type))}.` };
    case "format":
      return { in: where, field, code: "format", message: `For '${label}', ${value} is not a valid ${String(params.format)}.` };
    default:
      return { in: where, field, code: error.keyword, message: `For '${label}', ${value} ${error.message ?? "is not valid"}.` };
  }
}

/** A value as JSON, cut so a long body cannot flood a message. */
function quote(value: unknown): string {
  const json = JSON.stringify(value) ?? "undefined";
  return json.length > MAX_QUOTED_CHARS ? `${json.slice(0, MAX_QUOTED_CHARS)}…` : json;
}

function article(type: string): string {
  return `${/^[aeiou]/.test(type) ? "an" : "a"} ${type}`;
}

function unescapePointer(part: string): string {
  return part.replace(/~1/g, "/").replace(/~0/g, "~");
}

function dedupe(problems: RequestProblem[]): RequestProblem[] {
  const seen = new Set<string>();
  return problems.filter((problem) => {
    const key = `${problem.in}:${problem.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
