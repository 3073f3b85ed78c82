/**
 * Which operation of GitHub's REST description a method and path name:
 * an index of the description's path templates, built once, so a request
 * is matched in microseconds (openapi-backend's own router tries every one
 * of the ~800 templates with a fresh RegExp per request: 10-70 ms each).
 *
 * A literal segment beats a parameter at the first place two templates
 * differ (`/repos/{owner}/{repo}/issues/comments` before
 * `/repos/{owner}/{repo}/issues/{issue_number}`), as GitHub routes them.
 * Used by github-openapi.ts; knows nothing of validation. A parameter
 * stays inside its segment, with one exception: a template's trailing
 * `{path}` (`/repos/{owner}/{repo}/contents/{path}`) also takes the rest of
 * the path, slashes and all, as GitHub does (`contents/docs/a.md` and
 * `contents/docs%2Fa.md` name the same file). That is tried only after no
 * template of the path's own length matched. Other parameters with slashes
 * (a git ref like `heads/main`) do not match here.
 */

export type RouteMatch<Operation> = {
  template: string;
  method: string;
  operation: Operation;
  /** The path parameters by name, percent-decoded. */
  params: Record<string, string>;
  /**
   * Set when a trailing `{path}` took several segments: the path asked with
   * that parameter as one segment (its slashes as `%2F`), the form a router
   * that keeps each parameter to one segment (openapi-backend's) reads.
   */
  canonicalPath?: string;
};

/** The one parameter that may take the rest of a path, when its template ends in it. */
const REST_PARAMETER = "{path}";

/** A literal segment, or a pattern with the names of the parameters it captures. */
type Segment = string | { pattern: RegExp; names: string[] };
type Route<Operation> = { template: string; segments: Segment[]; specificity: string; methods: Map<string, Operation> };

export class RouteIndex<Operation> {
  readonly #byLength = new Map<number, Array<Route<Operation>>>();
  /** Templates ending in `{path}`, which may also match longer paths. */
  readonly #rest: Array<Route<Operation>> = [];

  /** `operations` yields each operation with its path template ("/repos/{owner}/{repo}") and lower-case method. */
  constructor(operations: Iterable<{ template: string; method: string; operation: Operation }>) {
    const routes = new Map<string, Route<Operation>>();
    for (const { template, method, operation } of operations) {
      let route = routes.get(template);
      if (!route) {
        const segments = template.split("/").map(segmentMatcher);
        route = { template, segments, specificity: segments.map((segment) => (typeof segment === "string" ? "0" : "1")).join(""), methods: new Map() };
        routes.set(template, route);
      }
      route.methods.set(method, operation);
    }
    for (const route of routes.values()) {
      const bucket = this.#byLength.get(route.segments.length) ?? [];
      bucket.push(route);
      this.#byLength.set(route.segments.length, bucket);
      if (route.template.endsWith(`/${REST_PARAMETER}`)) this.#rest.push(route);
    }
    // Same length: comparing "0"/"1" strings puts the literal first at the first difference.
    for (const bucket of this.#byLength.values()) bucket.sort((a, b) => (a.specificity < b.specificity ? -1 : a.specificity > b.specificity ? 1 : 0));
  }

  /** The most specific template that matches `path` and has `method`; null when none does (GitHub's 404). */
  match(method: string, path: string): RouteMatch<Operation> | null {
    const parts = path.split("/");
    const wanted = method.toLowerCase();
    for (const route of this.#byLength.get(parts.length) ?? []) {
      const params = capture(route.segments, parts);
      if (params === null) continue;
      const operation = route.methods.get(wanted);
      if (operation !== undefined) return { template: route.template, method: wanted, operation, params };
    }
    return this.#matchRest(wanted, parts);
  }

  /** A trailing `{path}` taking two or more segments (none of them empty). */
  #matchRest(method: string, parts: string[]): RouteMatch<Operation> | null {
    for (const route of this.#rest) {
      const fixed = route.segments.length - 1;
      if (parts.length <= route.segments.length) continue;
      const operation = route.methods.get(method);
      if (operation === undefined) continue;
      const tail = parts.slice(fixed);
      if (tail.some((part) => part === "")) continue;
      const params = capture(route.segments.slice(0, fixed), parts.slice(0, fixed));
      if (params === null) continue;
      params.path = tail.map(decode).join("/");
      return {
        template: route.template,
        method,
        operation,
        params,
        canonicalPath: [...parts.slice(0, fixed), encodeURIComponent(params.path)].join("/")
      };
    }
    return null;
  }
}

function segmentMatcher(segment: string): Segment {
  if (!segment.includes("{")) return segment;
  // A whole-segment parameter, or one with literal text around it ("{base}...{head}").
  const names: string[] = [];
  const pattern = segment
    .split(/(\{[^}]+\})/)
    .map((part) => {
      const name = /^\{([^}]+)\}$/.exec(part)?.[1];
      if (name === undefined) return part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
      names.push(name);
      return "(.+?)";
    })
    .join("");
  return { pattern: new RegExp(`^${pattern}$`), names };
}

function capture(segments: Segment[], parts: string[]): Record<string, string> | null {
  const params: Record<string, string> = {};
  for (const [index, segment] of segments.entries()) {
    const part = parts[index]!;
    if (typeof segment === "string") {
      if (segment !== part) return null;
      continue;
    }
    const found = part === "" ? null : segment.pattern.exec(part);
    if (!found) return null;
    segment.names.forEach((name, at) => (params[name] = decode(found[at + 1]!)));
  }
  return params;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
