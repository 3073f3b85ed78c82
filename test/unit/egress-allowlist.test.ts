/**
 * The host allowlist: which patterns an operator or a repository may write,
 * how EGRESS_ALLOW is read, how a pattern matches a host, and the verdict
 * for a request: the defaults only read, named entries allow every method,
 * and a host nobody listed is refused.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_ALLOW, MAX_ALLOW_ENTRIES, allowList, allowed, checkHostPattern, hostMatches, parseAllowSetting } from "../../src/egress/allowlist";

describe("checkHostPattern", () => {
  it.each(["pypi.org", "files.pythonhosted.org", "*.example.com", "*.co.uk", "localhost", "a-b.c-d.example", "x1.y2", "10.0.0.1", "a".repeat(63) + ".com"])(
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

  it("rejects a wildcard over a top-level domain as too wide", () => {
    expect(checkHostPattern("*.com")).toBe('"*.com" is too wide: a wildcard needs a domain with a dot');
    expect(checkHostPattern("*.internal")).toMatch(/too wide/);
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
    const parsed = parseAllowSetting("pypi.org, https://evil.com, *.com, ok.example");
    expect(parsed.entries).toEqual(["pypi.org", "ok.example"]);
    expect(parsed.errors).toHaveLength(2);
    expect(parsed.errors[0]).toMatch(/^"https:\/\/evil.com" is not a host name/);
    expect(parsed.errors[1]).toMatch(/^"\*.com" is too wide/);
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
});
