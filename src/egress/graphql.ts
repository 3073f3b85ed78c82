/**
 * Whether a GraphQL request only reads: the gateway lets queries through with the read-only
 * token and refuses mutations and subscriptions. It reads a document's top level with the
 * spec's lexical rules (names, punctuators, strings and block strings, comments, commas as
 * whitespace): an operation's type is its first word, or `{` for the query shorthand, and a
 * fragment defines none (GraphQL spec, "Document", "Operations"). `read` only when every
 * operation is a query; anything it cannot read is `unknown`, which the gateway refuses. Pure.
 */

export type GraphQLKind = "read" | "write" | "unknown";

const NAME_START = /[_A-Za-z]/;
const NAME_CHAR = /[_0-9A-Za-z]/;

/** `read` when every operation in `body` (a JSON request `{ query, … }`, or a batch of them) is a query. */
export function graphqlRequestKind(body: string): GraphQLKind {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return "unknown";
  }
  const requests = Array.isArray(parsed) ? parsed : [parsed];
  if (requests.length === 0) return "unknown";
  let kind: GraphQLKind = "read";
  for (const request of requests) {
    const query = (request as { query?: unknown } | null)?.query;
    if (typeof query !== "string") return "unknown";
    const found = documentKind(query);
    if (found === "unknown") return "unknown";
    if (found === "write") kind = "write";
  }
  return kind;
}

/** The kind of a GraphQL document's operations. */
export function documentKind(document: string): GraphQLKind {
  /** The brackets open at this point, innermost last: each must be closed by its own kind. */
  const open: string[] = [];
  let operations = 0;
  let expectDefinition = true;
  let i = 0;
  const n = document.length;
  while (i < n) {
    const c = document[i]!;
    if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "," || c === "\uFEFF") {
      i++;
      continue;
    }
    if (c === "#") {
      while (i < n && document[i] !== "\n" && document[i] !== "\r") i++;
      continue;
    }
    if (c === '"') {
      const end = skipString(document, i);
      if (end < 0) return "unknown";
      i = end;
      continue;
    }
    if (c === "{" || c === "(" || c === "[") {
      if (open.length === 0 && expectDefinition) {
        if (c !== "{") return "unknown";
        operations++; // the query shorthand
        expectDefinition = false;
      }
      open.push(c);
      i++;
      continue;
    }
    if (c === "}" || c === ")" || c === "]") {
      if (open.pop() !== CLOSES[c]) return "unknown";
      if (open.length === 0 && c === "}") expectDefinition = true;
      i++;
      continue;
    }
    if (NAME_START.test(c)) {
      const start = i;
      while (i < n && NAME_CHAR.test(document[i]!)) i++;
      if (open.length === 0 && expectDefinition) {
        const word = document.slice(start, i);
        if (word === "mutation" || word === "subscription") return "write";
        if (word === "query") operations++;
        else if (word !== "fragment") return "unknown";
        expectDefinition = false;
      }
      continue;
    }
    // Numbers, variables, directives, `:`, `=`, `!`, `|`, `&`, `...` and the like only appear inside a definition.
    if (open.length === 0 && expectDefinition) return "unknown";
    i++;
  }
  if (open.length !== 0) return "unknown";
  return operations > 0 ? "read" : "unknown";
}

const CLOSES: Record<string, string> = { "}": "{", ")": "(", "]": "[" };

/** The index after the string (or block string) starting at `i`, or -1 when it never ends. */
function skipString(text: string, i: number): number {
  if (text.startsWith('"""', i)) {
    let j = i + 3;
    while (j < text.length) {
      if (text.startsWith('\\"""', j)) j += 4;
      else if (text.startsWith('"""', j)) return j + 3;
      else j++;
    }
    return -1;
  }
  let j = i + 1;
  while (j < text.length) {
    const c = text[j]!;
    if (c === "\\") j += 2;
    else if (c === '"') return j + 1;
    else if (c === "\n" || c === "\r") return -1;
    else j++;
  }
  return -1;
}
