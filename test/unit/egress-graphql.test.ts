/**
 * Whether a GraphQL request only reads. The gateway attaches the read token
 * to what this calls `read` and refuses the rest, so the cases an attacker
 * would try matter as much as the ones a user sends: a mutation hidden after
 * a string, block string or comment that a naive scanner misreads, and the
 * word `mutation` where it names no operation.
 */
import { describe, expect, it } from "vitest";
import { documentKind, graphqlRequestKind } from "../../src/egress/graphql";

const request = (query: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ query, ...extra });

describe("documentKind: queries", () => {
  it.each([
    ["a named query", "query Viewer { viewer { login } }"],
    ["an anonymous query", "query { viewer { login } }"],
    ["the shorthand", "{ viewer { login } }"],
    ["the shorthand without spaces", "{viewer{login}}"],
    [
      "a query with variables, defaults and directives",
      'query Issues($owner: String!, $name: String! = "agent-think", $states: [IssueState!] = [OPEN], $page: PageInput = {size: 10, cursor: null}) @cached(ttl: 60) { repository(owner: $owner, name: $name) { issues(first: 10, states: $states) @include(if: true) { nodes { title } } } }'
    ],
    ["a query with a fragment after it", "query { viewer { ...Who } } fragment Who on User { login name }"],
    ["a fragment before the query", "fragment Who on User { login } query Me { viewer { ...Who } }"],
    ["an inline fragment", "query { node(id: \"x\") { ... on Issue { title } } }"],
    ["several queries", "query A { a } query B { b }"],
    ["definitions separated by commas", "query A { a },,query B { b }"],
    ["a byte order mark first", "\uFEFFquery { a }"],
    ["tabs and CRLF line ends", "query\t{\r\n  a\r\n}\r\n"],
    ["a field named mutation", "query { mutation { id } }"],
    ["a field named subscription in the shorthand", "{ subscription }"],
    ["a query named mutation", "query mutation { viewer { login } }"],
    ["a fragment on a type named Mutation", "fragment M on Mutation { id } query { ...M }"],
    ["an argument named mutation", "query { a(mutation: true, subscription: false) }"]
  ])("reads %s", (_name, document) => {
    expect(documentKind(document)).toBe("read");
  });
});

describe("documentKind: writes", () => {
  it.each([
    ["a mutation", "mutation { addComment(input: {subjectId: \"x\", body: \"hi\"}) { clientMutationId } }"],
    ["a named mutation", "mutation Close($id: ID!) { closeIssue(input: {issueId: $id}) { issue { id } } }"],
    ["a subscription", "subscription { issueUpdated { id } }"],
    ["a mutation after a query", "query A { a } mutation B { b }"],
    ["a mutation before a query", "mutation B { b } query A { a }"],
    ["a mutation between queries", "query A { a } mutation { b } query C { c }"],
    ["a mutation after a fragment", "fragment F on Issue { id } mutation { closeIssue(input: {}) { ...F } }"],
    ["a mutation after the shorthand", "{ a } mutation { b }"],
    ["a mutation after a comma", "query { a },mutation { b }"],
    ["a mutation after a comment", "# just reading\nmutation { b }"],
    ["a mutation after a comment ended by a lone CR", "query { a } # note\rmutation { b }"],
    ["a mutation after a string with an escaped quote", 'query { a(s: "\\"") } mutation { b }'],
    ["a mutation after a string ending in an escaped backslash", 'query { a(s: "\\\\") } mutation { b }'],
    ["a mutation after a block string with an escaped triple quote", 'query { a(s: """ \\""" """) } mutation { b }'],
    ["a mutation after an empty string", 'query { a(s: "") } mutation { b }'],
    ["a mutation after an empty block string", 'query { a(s: """""") } mutation { b }']
  ])("sees %s", (_name, document) => {
    expect(documentKind(document)).toBe("write");
  });
});

describe("documentKind: the word mutation where it names no operation", () => {
  it.each([
    ["inside a string", 'query { search(query: "mutation { deleteRepository }", type: REPOSITORY) { repositoryCount } }'],
    ["inside a string that closes the braces", 'query { search(query: "}} mutation { x } {{") { a } }'],
    ["inside a block string", 'query { search(query: """\n} mutation { x }\n""") { a } }'],
    ["inside a block string with an escaped triple quote", 'query { a(s: """ \\""" } mutation { x } """) { b } }'],
    ["inside a string with escapes", 'query { a(s: "\\u0022 } mutation { x } \\\\") { b } }'],
    ["inside a comment", "# mutation { deleteRepository }\nquery { a }"],
    ["inside a comment that closes the braces", "query { a # } mutation { x }\n }"]
  ])("reads a query with `mutation` %s", (_name, document) => {
    expect(documentKind(document)).toBe("read");
  });
});

describe("documentKind: what it cannot read", () => {
  it.each([
    ["an empty document", ""],
    ["only whitespace and commas", " \n\t,, "],
    ["only a comment", "# query { a }"],
    ["only a fragment", "fragment F on User { login }"],
    ["an unclosed selection", "query { a"],
    ["an extra closing brace", "query { a } }"],
    ["a closing brace first", "} query { a }"],
    ["an unterminated string", 'query { a(s: "never) }'],
    ["a string broken by a newline", 'query { a(s: "line\nbreak") }'],
    ["an unterminated block string", 'query { a(s: """never) }'],
    ["a capitalised keyword", "Mutation { a }"],
    ["an uppercase keyword", "QUERY { a }"],
    ["an unknown top-level word", "schema { query: Query }"],
    ["a type definition", "type Query { a: Int }"],
    ["variables before any operation", "($a: Int) { a }"],
    ["a variable at the top level", "$a"],
    ["a number after an operation", "query { a } 42"],
    ["a directive before any operation", "@skip(if: true) { a }"],
    ["a string followed by nothing", '"description"'],
    ["a spread at the top level", "...F"]
  ])("answers unknown for %s", (_name, document) => {
    expect(documentKind(document)).toBe("unknown");
  });

  // Each bracket is closed by its own kind: `{ viewer ) mutation { b }` is not a query
  // whose `)` closed its `{`, with the word `mutation` then skipped. What cannot be
  // read is `unknown`, never `read`.
  it.each([
    ["a brace closed by a parenthesis", "{ viewer )"],
    ["a brace closed by a bracket, then a mutation", "{ viewer ] mutation { b }"],
    ["a parenthesis closed by a brace", "query Q($a: Int} { a }"]
  ])("answers unknown for mismatched brackets: %s", (_name, document) => {
    expect(documentKind(document)).toBe("unknown");
  });
});

describe("graphqlRequestKind", () => {
  it("reads a JSON request with a query", () => {
    expect(graphqlRequestKind(request("query { viewer { login } }"))).toBe("read");
  });

  it("reads a request with variables and an operation name", () => {
    const body = request("query Repo($owner: String!) { repository(owner: $owner, name: \"r\") { id } }", {
      variables: { owner: "octo", note: "mutation { x }" },
      operationName: "Repo"
    });
    expect(graphqlRequestKind(body)).toBe("read");
  });

  it("sees a mutation", () => {
    expect(graphqlRequestKind(request("mutation { addStar(input: {starrableId: \"x\"}) { clientMutationId } }"))).toBe("write");
  });

  it("sees a mutation in a document whose operationName picks a query", () => {
    expect(graphqlRequestKind(request("query A { a } mutation B { b }", { operationName: "A" }))).toBe("write");
  });

  it("reads a batch of queries", () => {
    expect(graphqlRequestKind(JSON.stringify([{ query: "{ a }" }, { query: "query B { b }" }]))).toBe("read");
  });

  it("sees one mutation in a batch", () => {
    expect(graphqlRequestKind(JSON.stringify([{ query: "{ a }" }, { query: "mutation { b }" }, { query: "{ c }" }]))).toBe("write");
  });

  it("does not read a batch in which one request is not readable", () => {
    expect(graphqlRequestKind(JSON.stringify([{ query: "{ a }" }, { variables: {} }]))).toBe("unknown");
    expect(graphqlRequestKind(JSON.stringify([{ query: "mutation { b }" }, {}]))).not.toBe("read");
  });

  it.each([
    ["a body that is not JSON", "query { viewer { login } }"],
    ["an empty body", ""],
    ["truncated JSON", '{"query": "{ a }"'],
    ["an object without a query", JSON.stringify({ variables: {} })],
    ["a persisted query by hash only", JSON.stringify({ extensions: { persistedQuery: { version: 1, sha256Hash: "abc" } } })],
    ["a query that is not a string", JSON.stringify({ query: { mutation: "x" } })],
    ["a null query", JSON.stringify({ query: null })],
    ["JSON null", "null"],
    ["a JSON string", JSON.stringify("query { a }")],
    ["a JSON number", "42"],
    ["an empty batch", "[]"],
    ["a batch holding null", "[null]"],
    ["an unreadable document", request("query { a")]
  ])("answers unknown for %s", (_name, body) => {
    expect(graphqlRequestKind(body)).toBe("unknown");
  });
});
