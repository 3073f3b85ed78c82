import { describe, expect, it } from "vitest";
import { isSessionName, parseSessionName, sessionName } from "../../src/run/session-name";

describe("sessionName", () => {
  it("is readable for the common case", () => {
    expect(sessionName("cloudflare/agents", 1859)).toBe("cloudflare-agents-1859");
    expect(sessionName("octo-org/hello.world_x", 2)).toBe("octo--org-hello.world_x-2");
  });

  it("keeps hyphenated owners and names apart", () => {
    expect(sessionName("a-b/c", 1)).toBe("a--b-c-1");
    expect(sessionName("a/b-c", 1)).toBe("a-b--c-1");
    expect(sessionName("a/b", 11)).not.toBe(sessionName("a/b-1", 1));
    expect(sessionName("a/-b", 1)).toBe("a---b-1");
    expect(sessionName("a-b/-c", 1)).not.toBe(sessionName("a/b--c", 1));
  });

  it("is case-insensitive, as GitHub names are", () => {
    expect(sessionName("Foo/Bar", 1)).toBe(sessionName("foo/bar", 1));
    expect(sessionName("CloudFlare/AGENTS", 7)).toBe("cloudflare-agents-7");
  });

  it("rejects what GitHub would reject", () => {
    expect(() => sessionName("foo", 1)).toThrow(/repo:/);
    expect(() => sessionName("-foo/bar", 1)).toThrow(/repo:/);
    expect(() => sessionName("foo/bar", 0)).toThrow(/issueNumber:/);
    expect(() => sessionName("foo/bar", 1.5)).toThrow(/issueNumber:/);
  });

  it("round-trips through parseSessionName", () => {
    for (const [repo, issue] of [
      ["cloudflare/agents", 1859],
      ["a-b/c", 1],
      ["a/b-c", 1],
      ["a/-b-", 3],
      ["a/--", 4],
      ["x/.github", 5],
      ["a1-b2-c3/d--e", 99999]
    ] as const) {
      const session = sessionName(repo, issue);
      const [owner, name] = repo.toLowerCase().split("/");
      expect(parseSessionName(session), session).toEqual({ owner, name, issueNumber: issue });
    }
  });

  it("is injective over many generated names (every session parses back to its own issue)", () => {
    // A deterministic generator that favours hyphens, the only ambiguity.
    let seed = 42;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const pick = (alphabet: string, length: number) =>
      Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
    const seen = new Map<string, string>();
    let checked = 0;
    while (checked < 5_000) {
      const owner = `${pick("ab", 1)}${pick("ab-", Math.floor(random() * 4))}${pick("ab", 1)}`;
      const name = pick("ab-._", 1 + Math.floor(random() * 5));
      const repo = `${owner}/${name}`;
      const issue = 1 + Math.floor(random() * 12);
      let session: string;
      try {
        session = sessionName(repo, issue);
      } catch {
        continue; // not a valid GitHub name (e.g. a double hyphen in the owner)
      }
      checked++;
      const key = `${repo.toLowerCase()}#${issue}`;
      const previous = seen.get(session);
      expect(previous === undefined || previous === key, `${previous} and ${key} share ${session}`).toBe(true);
      seen.set(session, key);
      expect(parseSessionName(session)).toEqual({ owner: owner.toLowerCase(), name: name.toLowerCase(), issueNumber: issue });
    }
    expect(seen.size).toBeGreaterThan(1_000);
  });

  it("accepts only canonical names", () => {
    expect(isSessionName("cloudflare-agents-1859")).toBe(true);
    expect(isSessionName("Cloudflare-agents-1859")).toBe(false);
    expect(isSessionName("cloudflare-agents")).toBe(false);
    expect(isSessionName("cloudflare-agents-01")).toBe(false);
    expect(isSessionName("a-b-c-1")).toBe(false); // two odd separators before the issue: ambiguous spelling
    expect(isSessionName("../etc-1")).toBe(false);
    expect(isSessionName("")).toBe(false);
  });
});
