import { describe, expect, it } from "vitest";
import { canonicalize, crossSiteRefusal, isLoopbackRequest, localDevRefusal, ruleFor, socketOriginRefusal } from "../../src/http/route-policy";

const at = (path: string, init?: RequestInit) => new Request(`https://agent-think.test${path}`, init);
const canonical = (path: string) => {
  const result = canonicalize(at(path));
  if (!result.ok) throw new Error(`${path}: ${result.reason}`);
  return result;
};

describe("canonicalize", () => {
  it.each([
    ["//agents/think-agent/acme-widgets-1/get-messages", "/agents/think-agent/acme-widgets-1/get-messages"],
    ["/agents//think-agent/acme-widgets-1/get-messages", "/agents/think-agent/acme-widgets-1/get-messages"],
    ["///agents///think-agent///acme-widgets-1///get-messages", "/agents/think-agent/acme-widgets-1/get-messages"],
    ["/./agents/think-agent/acme-widgets-1", "/agents/think-agent/acme-widgets-1"],
    ["/x/../agents/think-agent/acme-widgets-1", "/agents/think-agent/acme-widgets-1"],
    ["/x/%2e%2e/agents", "/agents"],
    ["/%61gents/think%2dagent/acme-widgets-1", "/agents/think-agent/acme-widgets-1"],
    ["/api//command-center", "/api/command-center"],
    ["//", "/"],
    ["/repro/abc/", "/repro/abc/"],
    ["/a/%252e%252e/b", "/a/%252e%252e/b"]
  ])("%s is served as %s", (raw, path) => {
    const result = canonical(raw);
    expect(result.url.pathname).toBe(path);
    expect(new URL(result.request.url).pathname).toBe(path);
  });

  it("keeps the query and the request's method, headers and body", async () => {
    const result = canonicalize(at("//api/command-center/continue/x?y=1", { method: "POST", headers: { origin: "o" }, body: "{}" }));
    if (!result.ok) throw new Error(result.reason);
    expect(result.url.search).toBe("?y=1");
    expect(result.request.method).toBe("POST");
    expect(result.request.headers.get("origin")).toBe("o");
    expect(await result.request.text()).toBe("{}");
  });

  it("hands on the request itself when its path is already canonical", () => {
    const request = at("/api/command-center");
    const result = canonicalize(request);
    expect(result.ok && result.request).toBe(request);
  });

  it.each(["/agents/think-agent/%E0%A4%A/get-messages", "/repro/%E0%A4%A", "/%zz", "/agents/think-agent%2Fx/s", "/a%5Cb", "/a%00b", "/%2e%2e%2f"])(
    "%s has no canonical form",
    (raw) => {
      expect(canonicalize(at(raw)).ok).toBe(false);
    }
  );
});

describe("ruleFor", () => {
  const rule = (path: string, method = "GET") => ruleFor(canonical(path).segments, method);

  it("makes only reproductions of public repositories public", () => {
    expect(rule("/repro/0123456789abcdef0123456789abcdef/")).toEqual({ access: "public" });
    expect(rule("//repro/x/index.html")).toEqual({ access: "public" });
    expect(rule("/repro/private/0123456789abcdef0123456789abcdef/")).toEqual({ access: "protected" });
    expect(rule("/repro/./private/x")).toEqual({ access: "protected" });
    expect(rule("/repro/%70rivate/x")).toEqual({ access: "protected" });
  });

  it("protects everything else, known route or not", () => {
    for (const path of [
      "/",
      "/thread/acme-widgets-1",
      "/api/command-center",
      // A thread's runs, by every spelling: never public.
      "/api/command-center/threads/acme-widgets-1",
      "//api/command-center/threads/acme-widgets-1",
      "/api/%63ommand-center/threads/acme-widgets-1",
      "/x/../api/command-center/threads/acme-widgets-1",
      "/agents/think-agent/a-b-1",
      "/nope",
      "/API/command-center",
      "/reprox"
    ]) {
      expect(rule(path), path).toEqual({ access: "protected" });
    }
  });

  it("keeps /dev/* local and makes Continue a same-origin write", () => {
    expect(rule("/dev/dispatch", "POST")).toEqual({ access: "local-dev" });
    expect(rule("//dev/messages/a-b-1")).toEqual({ access: "local-dev" });
    expect(rule("/api/command-center/continue/a-b-1", "POST")).toEqual({ access: "protected", sameOriginWrite: true });
    expect(rule("/api//command-center/continue/a-b-1", "PUT")).toEqual({ access: "protected", sameOriginWrite: true });
  });
});

describe("crossSiteRefusal and localDevRefusal", () => {
  const local = (headers: Record<string, string>, method = "GET", host = "127.0.0.1:8787") => {
    const request = new Request(`http://${host}/dev/dispatch`, { method, headers, ...(method === "POST" ? { body: "{}" } : {}) });
    return localDevRefusal(request, new URL(request.url));
  };

  it("lets the CLI and the dashboard through", () => {
    expect(local({ "content-type": "application/json" }, "POST")).toBeNull();
    expect(local({ "content-type": "application/json; charset=utf-8", origin: "http://127.0.0.1:8787", "sec-fetch-site": "same-origin" }, "POST")).toBeNull();
    expect(local({ "sec-fetch-site": "none" })).toBeNull();
    expect(local({})).toBeNull();
  });

  it("refuses a cross-site page, a form post and another origin", () => {
    expect(local({ "content-type": "text/plain", origin: "http://evil.example", "sec-fetch-site": "cross-site" }, "POST")).toBe("cross-site request");
    expect(local({ "content-type": "text/plain" }, "POST")).toBe("the body must be application/json");
    expect(local({}, "POST")).toBe("the body must be application/json");
    expect(local({ origin: "http://evil.example" })).toBe("cross-origin request");
    expect(local({ origin: "null" })).toBe("cross-origin request");
    expect(local({ "sec-fetch-site": "same-site" })).toBe("cross-site request");
    expect(local({ origin: "http://127.0.0.1:3000" })).toBe("cross-origin request");
  });

  it("requires an Origin and JSON of a write", () => {
    const write = (headers: Record<string, string>) => {
      const request = new Request("https://agent-think.test/api/command-center/continue/a-b-1", { method: "POST", headers, body: "{}" });
      return crossSiteRefusal(request, new URL(request.url), { write: true });
    };
    expect(write({ origin: "https://agent-think.test", "content-type": "application/json" })).toBeNull();
    expect(write({ "content-type": "application/json" })).toBe("cross-origin request");
    expect(write({ origin: "https://agent-think.test" })).toBe("the body must be application/json");
    expect(write({ origin: "https://agent-think.test", "content-type": "text/plain" })).toBe("the body must be application/json");
    expect(write({ origin: "https://evil.example", "content-type": "application/json" })).toBe("cross-origin request");
  });

  it("knows loopback hosts, from the URL and from a Host header", () => {
    const loopback = (url: string, host?: string) => {
      const request = new Request(url, host ? { headers: { host } } : {});
      return isLoopbackRequest(request, new URL(request.url));
    };
    expect(loopback("http://127.0.0.1:8787/")).toBe(true);
    expect(loopback("http://localhost:8787/")).toBe(true);
    expect(loopback("http://[::1]:8787/")).toBe(true);
    expect(loopback("http://evil.example:8787/")).toBe(false);
    expect(loopback("http://127.0.0.2:8787/")).toBe(false);
    expect(loopback("http://127.0.0.1:8787/", "evil.example:8787")).toBe(false);
    expect(loopback("http://127.0.0.1:8787/", "[::1]:8787")).toBe(true);
  });
});

describe("socketOriginRefusal", () => {
  const upgrade = (url: string, origin?: string) => {
    const request = new Request(url, { headers: { upgrade: "WebSocket", ...(origin === undefined ? {} : { origin }) } });
    return socketOriginRefusal(request, new URL(url), { localDev: false });
  };

  it("lets the Worker's own origin and a client with no Origin upgrade", () => {
    expect(upgrade("https://agent-think.test/agents/command-center-agent/main", "https://agent-think.test")).toBeNull();
    expect(upgrade("https://agent-think.test/agents/command-center-agent/main")).toBeNull();
  });

  it("refuses every other Origin, a sandboxed page's null included", () => {
    for (const origin of ["https://evil.example", "http://agent-think.test", "https://agent-think.test:444", "null", ""]) {
      expect(upgrade("https://agent-think.test/agents/command-center-agent/main", origin), origin).toBe("a WebSocket from another origin");
    }
  });

  it("judges only upgrades", () => {
    const request = at("/agents/think-agent/acme-widgets-1/get-messages", { headers: { origin: "https://evil.example" } });
    expect(socketOriginRefusal(request, new URL(request.url), { localDev: false })).toBeNull();
  });
});
