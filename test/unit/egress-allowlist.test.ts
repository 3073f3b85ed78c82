/**
 * The host allowlist: which patterns an operator or a repository may write
 * (the Public Suffix List bounds them), how EGRESS_ALLOW is read, how a
 * pattern matches a host (a wildcard never reaches another registrable
 * domain), and the verdict for a request: the defaults only read, Go's
 * module proxy is not among them, a host entry allows every method, an
 * entry with methods only those, and a host nobody listed is refused.
 */
import { describe, expect, it } from "vitest";
import { PUBLIC_SUFFIX_WILDCARDS } from "./bytes";
import {
  ALLOW_METHODS,
  DEFAULT_ALLOW,
  MAX_ALLOW_ENTRIES,
  allowList,
  allowMethods,
  allowed,
  checkHostPattern,
  hostMatches,
  hostPatternProblem,
  listedMethods,
  parseAllowSetting,
  wildcardMiss,
  type AllowRule
} from "../../src/run/host-allowlist";

describe("checkHostPattern", () => {
  it.each([
    "pypi.org",
    "files.pythonhosted.org",
    "*.example.com",
    "*.example.co.uk",
    "*.api.example.com",
    "*.corp.internal",
    "*.myapp.herokuapp.com",
    "myapp.herokuapp.com",
    "bucket.s3.amazonaws.com",
    "localhost",
    "a-b.c-d.example",
    "x1.y2",
    "10.0.0.1",
    "a".repeat(63) + ".com"
  ])(
    "accepts %s",
    (entry) => {
      expect(checkHostPattern(entry)).toBeNull();
    }
  );

  it.each([
    ["an empty entry", ""],
    ["a bare wildcard", "*"],
    ["a wildcard with nothing after it", "*."],
    ["uppercase (parseAllowSetting lowercases first)", "PyPI.org"],
    ["a URL", "https://pypi.org"],
    ["a path", "pypi.org/simple"],
    ["a port", "pypi.org:443"],
    ["a trailing dot", "pypi.org."],
    ["a leading dot", ".pypi.org"],
    ["an empty label", "pypi..org"],
    ["a label starting with a hyphen", "-pypi.org"],
    ["a label ending with a hyphen", "pypi-.org"],
    ["an underscore", "my_host.example.com"],
    ["a wildcard inside a name", "a.*.example.com"],
    ["two wildcards", "*.*.example.com"],
    ["a wildcard without its dot", "*example.com"],
    ["a label of 64 characters", "a".repeat(64) + ".com"],
    ["an IPv6 literal", "[::1]"],
    ["userinfo", "user@pypi.org"]
  ])("rejects %s", (_name, entry) => {
    expect(checkHostPattern(entry)).toMatch(/is not a host name/);
  });

  it("rejects a name longer than 253 characters", () => {
    const long = Array.from({ length: 5 }, () => "a".repeat(60)).join(".");
    expect(long.length).toBeGreaterThan(253);
    expect(checkHostPattern(long)).toMatch(/is not a host name/);
  });

  it.each([
    ...PUBLIC_SUFFIX_WILDCARDS,
    ["*.googleapis.com", "googleapis.com"],
    ["*.compute.amazonaws.com", "compute.amazonaws.com"],
    ["*.x.compute.amazonaws.com", "x.compute.amazonaws.com"]
  ])("refuses %s: a wildcard over a public suffix (ICANN or private section)", (entry, suffix) => {
    expect(checkHostPattern(entry)).toBe(
      `${JSON.stringify(entry)} is too wide: ${suffix} is a public suffix (Public Suffix List): the hosts under it belong to different owners; name the exact host instead`
    );
    expect(hostPatternProblem(entry)?.kind).toBe("wide");
  });

  it("refuses a wildcard outside any registrable domain, and one over an IP address", () => {
    expect(checkHostPattern("*.internal")).toBe('"*.internal" is too wide: a wildcard needs a domain with a dot (such as *.example.com)');
    expect(checkHostPattern("*.localhost")).toMatch(/^"\*\.localhost" is too wide: a wildcard needs a domain with a dot/);
    expect(checkHostPattern("*.10.0.0.1")).toBe('"*.10.0.0.1" is too wide: a wildcard needs a domain name, not an IP address');
  });

  it.each(["github.io", "s3.amazonaws.com", "workers.dev", "co.uk", "com", "herokuapp.com"])("refuses the public suffix %s as an exact host", (entry) => {
    expect(checkHostPattern(entry)).toBe(
      `${JSON.stringify(entry)} is not one owner's host: ${entry} is a public suffix (Public Suffix List): the hosts under it belong to different owners; name the exact host under it instead`
    );
  });

  it("accepts a wildcard over a registrable domain under which the list names other owners' suffixes: it reaches none of them (hostMatches)", () => {
    expect(checkHostPattern("*.amazonaws.com")).toBeNull();
  });

  it("tells a spelling mistake from a pattern that is too wide", () => {
    expect(hostPatternProblem("https://pypi.org")?.kind).toBe("syntax");
    expect(hostPatternProblem("*.github.io")?.kind).toBe("wide");
    expect(hostPatternProblem("pypi.org")).toBeNull();
  });

  it("quotes the entry in its reason", () => {
    expect(checkHostPattern("bad host")).toMatch(/^"bad host" is not a host name/);
  });
});

describe("parseAllowSetting", () => {
  it("is empty for an unset or blank setting", () => {
    expect(parseAllowSetting(undefined)).toEqual({ entries: [], errors: [] });
    expect(parseAllowSetting("  \n ,, ")).toEqual({ entries: [], errors: [] });
  });

  it("splits on commas and any whitespace, and lowercases", () => {
    expect(parseAllowSetting(" PyPI.org,*.Example.COM\tinternal.corp\n, ,mirror.local  ")).toEqual({
      entries: ["pypi.org", "*.example.com", "internal.corp", "mirror.local"],
      errors: []
    });
  });

  it("keeps the valid entries and names each invalid one", () => {
    const parsed = parseAllowSetting("pypi.org, https://evil.com, *.com, ok.example, *.GitHub.io, s3.amazonaws.com");
    expect(parsed.entries).toEqual(["pypi.org", "ok.example"]);
    expect(parsed.errors).toHaveLength(4);
    expect(parsed.errors[0]).toMatch(/^"https:\/\/evil.com" is not a host name/);
    expect(parsed.errors[1]).toMatch(/^"\*.com" is too wide: com is a public suffix/);
    expect(parsed.errors[2]).toMatch(/^"\*.github.io" is too wide: github.io is a public suffix/);
    expect(parsed.errors[3]).toMatch(/^"s3.amazonaws.com" is not one owner's host/);
  });

  it(`keeps at most MAX_ALLOW_ENTRIES (${MAX_ALLOW_ENTRIES}) entries and says the rest are ignored`, () => {
    const hosts = Array.from({ length: MAX_ALLOW_ENTRIES + 5 }, (_, index) => `host${index}.example.com`);
    const parsed = parseAllowSetting(hosts.join(","));
    expect(parsed.entries).toEqual(hosts.slice(0, MAX_ALLOW_ENTRIES));
    expect(parsed.errors).toEqual([`at most ${MAX_ALLOW_ENTRIES} entries; the rest are ignored`]);
  });

  it("accepts exactly MAX_ALLOW_ENTRIES entries without an error", () => {
    const hosts = Array.from({ length: MAX_ALLOW_ENTRIES }, (_, index) => `host${index}.example.com`);
    expect(parseAllowSetting(hosts.join(" "))).toEqual({ entries: hosts, errors: [] });
  });
});

describe("hostMatches", () => {
  it("matches a host name exactly", () => {
    expect(hostMatches("pypi.org", "pypi.org")).toBe(true);
    expect(hostMatches("pypi.org", "files.pypi.org")).toBe(false);
    expect(hostMatches("pypi.org", "pypi.org.evil.com")).toBe(false);
    expect(hostMatches("pypi.org", "evilpypi.org")).toBe(false);
  });

  it("matches a wildcard's subdomains at any depth", () => {
    expect(hostMatches("*.example.com", "a.example.com")).toBe(true);
    expect(hostMatches("*.example.com", "a.b.example.com")).toBe(true);
  });

  it("never lets a wildcard reach a host of another registrable domain: a customer's host under a public suffix below it", () => {
    expect(hostMatches("*.amazonaws.com", "sts.amazonaws.com")).toBe(true);
    for (const tenant of ["bucket.s3.amazonaws.com", "a.b.s3.amazonaws.com", "i-1.x.compute.amazonaws.com", "sqs.us-east-1.amazonaws.com", "s3.amazonaws.com"]) {
      expect(hostMatches("*.amazonaws.com", tenant), tenant).toBe(false);
    }
    expect(hostMatches("*.myapp.herokuapp.com", "api.myapp.herokuapp.com")).toBe(true);
    expect(hostMatches("*.myapp.herokuapp.com", "other.herokuapp.com")).toBe(false);
  });

  it("lets a wildcard stored under older rules reach nothing: a public suffix has no registrable domain of its own", () => {
    expect(hostMatches("*.github.io", "evil.github.io")).toBe(false);
    expect(hostMatches("*.co.uk", "evil.co.uk")).toBe(false);
    expect(hostMatches("*.com", "evil.com")).toBe(false);
  });

  it("does not let a wildcard reach an IP address", () => {
    expect(hostMatches("*.0.0.1", "10.0.0.1")).toBe(false);
  });

  it("does not match a wildcard's apex, a look-alike, or a host that only contains it", () => {
    expect(hostMatches("*.example.com", "example.com")).toBe(false);
    expect(hostMatches("*.example.com", "evilexample.com")).toBe(false);
    expect(hostMatches("*.example.com", "a.example.com.evil.com")).toBe(false);
    expect(hostMatches("*.example.com", ".example.com")).toBe(false);
  });
});

describe("allowed", () => {
  const defaults = allowList([], []);
  const at = (url: string) => new URL(url);

  it("lists the defaults first, read-only, then the repository's, then the operator's, allowing every method", () => {
    const list = allowList(["repo.example"], ["op.example"]);
    expect(list).toHaveLength(DEFAULT_ALLOW.length + 2);
    expect(list[0]).toEqual({ pattern: DEFAULT_ALLOW[0], methods: ["GET", "HEAD"], source: "default" });
    expect(list.at(-2)).toEqual({ pattern: "repo.example", methods: null, source: "repository" });
    expect(list.at(-1)).toEqual({ pattern: "op.example", methods: null, source: "operator" });
  });

  it("lets GET and HEAD reach a default host", () => {
    expect(allowed(defaults, "GET", at("https://registry.npmjs.org/left-pad"))).toBe("allowed");
    expect(allowed(defaults, "HEAD", at("https://files.pythonhosted.org/packages/x.whl"))).toBe("allowed");
    expect(allowed(defaults, "GET", at("https://raw.githubusercontent.com/o/r/main/README.md"))).toBe("allowed");
  });

  it.each(["POST", "PUT", "PATCH", "DELETE", "OPTIONS"])("refuses %s to a default host as a method it may not use", (method) => {
    expect(allowed(defaults, method, at("https://pypi.org/legacy/"))).toBe("method");
  });

  it("refuses npm publish (PUT) to the npm registry", () => {
    expect(allowed(defaults, "PUT", at("https://registry.npmjs.org/some-package"))).toBe("method");
  });

  it("lets npm audit POST to registry.npmjs.org", () => {
    expect(allowed(defaults, "POST", at("https://registry.npmjs.org/-/npm/v1/security/advisories/bulk"))).toBe("allowed");
    expect(allowed(defaults, "POST", at("https://registry.npmjs.org/-/npm/v1/security/audits/quick"))).toBe("allowed");
  });

  it("lets no other POST through for npm audit's sake", () => {
    expect(allowed(defaults, "POST", at("https://registry.npmjs.org/-/npm/v1/login"))).toBe("method");
    expect(allowed(defaults, "POST", at("https://registry.npmjs.org/x/-/npm/v1/security/advisories/bulk"))).toBe("method");
    expect(allowed(defaults, "PUT", at("https://registry.npmjs.org/-/npm/v1/security/advisories/bulk"))).toBe("method");
    expect(allowed(defaults, "POST", at("https://registry.yarnpkg.com/-/npm/v1/security/advisories/bulk"))).toBe("method");
  });

  it("refuses a host nobody listed", () => {
    expect(allowed(defaults, "GET", at("https://evil.example.com/payload"))).toBe("host");
    expect(allowed(defaults, "GET", at("https://pypi.org.evil.com/"))).toBe("host");
    expect(allowed(defaults, "GET", at("https://example.npmjs.org/"))).toBe("host");
  });

  it("refuses IP literals nobody listed, however they are written", () => {
    expect(allowed(defaults, "GET", at("http://169.254.169.254/latest/meta-data/"))).toBe("host");
    expect(allowed(defaults, "GET", at("http://2130706433/"))).toBe("host");
    expect(allowed(defaults, "GET", at("http://[::1]:8080/"))).toBe("host");
    expect(allowed(defaults, "GET", at("http://localhost/"))).toBe("host");
  });

  it("refuses a default host written with a trailing dot", () => {
    expect(allowed(defaults, "GET", at("https://pypi.org./simple/"))).toBe("host");
  });

  it("matches the host whatever its case or port", () => {
    expect(allowed(defaults, "GET", at("https://PyPI.ORG:8443/simple/"))).toBe("allowed");
  });

  it("lets a repository's or operator's entry allow every method", () => {
    const list = allowList(["internal.corp"], ["*.mirror.example"]);
    expect(allowed(list, "POST", at("https://internal.corp/api"))).toBe("allowed");
    expect(allowed(list, "DELETE", at("https://internal.corp/api"))).toBe("allowed");
    expect(allowed(list, "PUT", at("https://eu.mirror.example/pkg"))).toBe("allowed");
    expect(allowed(list, "GET", at("https://mirror.example/pkg"))).toBe("host");
  });

  it("lets a named entry widen a default host to every method", () => {
    const list = allowList(["pypi.org"], []);
    expect(allowed(list, "POST", at("https://pypi.org/legacy/"))).toBe("allowed");
  });

  it("leaves out Go's module proxy and checksum database: they fetch whatever origin a path names", () => {
    expect(DEFAULT_ALLOW).not.toContain("proxy.golang.org");
    expect(DEFAULT_ALLOW).not.toContain("sum.golang.org");
    expect(allowed(defaults, "GET", at("https://proxy.golang.org/evil.example/c2VjcmV0/@v/list"))).toBe("host");
    expect(allowed(defaults, "GET", at("https://proxy.golang.org/github.com/!burnt!sushi/toml/@v/list"))).toBe("host");
    expect(allowed(defaults, "GET", at("https://sum.golang.org/lookup/evil.example/x@v1.0.0"))).toBe("host");
    expect(allowed(defaults, "GET", at("https://dl.google.com/go/go1.23.0.linux-amd64.tar.gz"))).toBe("allowed");
  });

  it("lists every named pattern only when it still passes: public suffixes and bad entries from an older policy are left out", () => {
    const stored: AllowRule[] = ["api.example.com", "*.github.io", "github.io", "https://bad.example", { host: "*.co.uk", methods: ["GET"] }];
    const list = allowList(stored, ["mirror.corp", "*.workers.dev"]);
    expect(list.slice(DEFAULT_ALLOW.length)).toEqual([
      { pattern: "api.example.com", methods: null, source: "repository" },
      { pattern: "mirror.corp", methods: null, source: "operator" }
    ]);
  });
});

describe("entries with methods", () => {
  const at = (url: string) => new URL(url);

  it("a host string allows every method, as a stored policy of plain strings always did", () => {
    const list = allowList(["api.example.com"], []);
    expect(list.at(-1)).toEqual({ pattern: "api.example.com", methods: null, source: "repository" });
    for (const method of ALLOW_METHODS) expect(allowed(list, method, at("https://api.example.com/x"))).toBe("allowed");
  });

  it("a GET-only entry allows GET and HEAD and refuses a POST as a method it may not use", () => {
    const list = allowList([{ host: "proxy.golang.org", methods: ["GET", "HEAD"] }], []);
    expect(list.at(-1)).toEqual({ pattern: "proxy.golang.org", methods: ["GET", "HEAD"], source: "repository" });
    expect(allowed(list, "GET", at("https://proxy.golang.org/github.com/!burnt!sushi/toml/@v/list"))).toBe("allowed");
    expect(allowed(list, "HEAD", at("https://proxy.golang.org/golang.org/x/mod/@v/v0.20.0.zip"))).toBe("allowed");
    expect(allowed(list, "POST", at("https://proxy.golang.org/github.com/x/y/@v/list"))).toBe("method");
    expect(allowed(list, "PUT", at("https://proxy.golang.org/github.com/x/y/@v/list"))).toBe("method");
    expect(listedMethods(list, "proxy.golang.org")).toEqual(["GET", "HEAD"]);
  });

  it("a wildcard entry with methods keeps both limits: its methods, and its registrable domain", () => {
    const list = allowList([{ host: "*.amazonaws.com", methods: ["GET"] }], []);
    expect(allowed(list, "GET", at("https://sts.amazonaws.com/"))).toBe("allowed");
    expect(allowed(list, "POST", at("https://sts.amazonaws.com/"))).toBe("method");
    expect(allowed(list, "GET", at("https://bucket.s3.amazonaws.com/key"))).toBe("host");
  });

  it("the methods of every entry naming a host add up; a host entry names them all", () => {
    const list = allowList([{ host: "api.example.com", methods: ["GET"] }, { host: "*.example.com", methods: ["POST"] }], []);
    expect(allowed(list, "POST", at("https://api.example.com/"))).toBe("allowed");
    expect(allowed(list, "DELETE", at("https://api.example.com/"))).toBe("method");
    expect(listedMethods(list, "api.example.com")).toEqual(["GET", "POST"]);
    expect(listedMethods(allowList(["api.example.com"], []), "API.example.com")).toEqual([...ALLOW_METHODS]);
    expect(listedMethods(list, "elsewhere.example")).toEqual([]);
  });

  it("reads a method list upper-cased, each once, and refuses an empty one or an unknown method", () => {
    expect(allowMethods(["get", "HEAD", "Get"])).toEqual(["GET", "HEAD"]);
    expect(allowMethods([])).toBeNull();
    expect(allowMethods(["GET", "FETCH"])).toBeNull();
    expect(allowMethods(["GET", 1])).toBeNull();
    expect(allowMethods("GET")).toBeNull();
  });

  it("leaves out a stored entry whose shape is not one it writes", () => {
    const odd = [{ host: "a.example", methods: ["FETCH"] }, { host: "b.example" }, { host: 3, methods: ["GET"] }, null, 7] as unknown as AllowRule[];
    expect(allowList(odd, [])).toHaveLength(DEFAULT_ALLOW.length);
  });
});

describe("wildcardMiss", () => {
  it("says why a wildcard naming a customer's host does not reach it, and what would", () => {
    const list = allowList(["*.amazonaws.com"], []);
    expect(allowed(list, "PUT", new URL("https://bucket.s3.amazonaws.com/key"))).toBe("host");
    expect(wildcardMiss(list, "bucket.s3.amazonaws.com")).toBe(
      "*.amazonaws.com does not reach bucket.s3.amazonaws.com: it is under s3.amazonaws.com, a public suffix whose hosts belong to different owners; only bucket.s3.amazonaws.com itself, listed, allows it"
    );
  });

  it("is null where no wildcard names the host, or one reaches it", () => {
    const list = allowList(["*.amazonaws.com", "*.example.com"], []);
    expect(wildcardMiss(list, "sts.amazonaws.com")).toBeNull();
    expect(wildcardMiss(list, "a.example.com")).toBeNull();
    expect(wildcardMiss(list, "evil.example")).toBeNull();
  });
});
