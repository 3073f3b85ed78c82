import { describe, expect, it } from "vitest";
import {
  isSessionName,
  issueSessionOf,
  MAX_SESSION_NAME_CHARS,
  parseSessionName,
  reporterSessionOf,
  sessionName,
  sessionTier
} from "../../src/shared/session-name";

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

  it("rejects what GitHub would reject, with the reason", () => {
    expect(() => sessionName("foo", 1)).toThrow(/repo:/);
    expect(() => sessionName("--/bar", 1)).toThrow(/repo: owner must be letters, digits and hyphens/);
    expect(() => sessionName("foo_x/bar", 1)).toThrow("repo: owner must be an Enterprise Managed User's handle_shortcode, with a short code of 3-8 letters or digits");
    expect(() => sessionName("foo/bar.git", 1)).toThrow("repo: name must not end in .git");
    expect(() => sessionName("foo/bar", 0)).toThrow(/issueNumber:/);
    expect(() => sessionName("foo/bar", 1.5)).toThrow(/issueNumber:/);
  });

  it("keeps every session name it gave before (existing sessions keep their Durable Objects)", () => {
    // Spellings from before Enterprise Managed Users and older accounts were accepted; none may change.
    const before: [string, number, string][] = [
      ["cloudflare/agents", 1859, "cloudflare-agents-1859"],
      ["Cloudflare/Agents", 1859, "cloudflare-agents-1859"],
      ["octo-org/hello.world_x", 2, "octo--org-hello.world_x-2"],
      ["a-b/c", 1, "a--b-c-1"],
      ["a/b-c", 1, "a-b--c-1"],
      ["a/-b", 1, "a---b-1"],
      ["a/-b-", 3, "a---b---3"],
      ["a/--", 4, "a------4"],
      ["x/.github", 5, "x-.github-5"],
      ["a1-b2-c3/d--e", 99999, "a1--b2--c3-d----e-99999"]
    ];
    for (const [repo, issue, session] of before) expect(sessionName(repo, issue), repo).toBe(session);
  });

  it("names an Enterprise Managed User's issue, and parses it back", () => {
    expect(sessionName("octocat_acme/widgets", 7)).toBe("octocat_acme-widgets-7");
    expect(sessionName("Mona-Cat_OCTO/my-repo", 12)).toBe("mona--cat_octo-my--repo-12");
    expect(parseSessionName("octocat_acme-widgets-7")).toEqual({ owner: "octocat_acme", name: "widgets", issueNumber: 7 });
    expect(isSessionName("mona--cat_octo-my--repo-12")).toBe(true);
  });

  it("writes the trailing hyphens of an owner from before GitHub's current rule as dots, apart from every other owner", () => {
    expect(sessionName("artur-/x", 1)).toBe("artur.-x-1");
    expect(sessionName("a--/b", 1)).toBe("a..-b-1");
    expect(sessionName("-ace-/b", 1)).toBe("--ace.-b-1");
    // Without the dots these two would both be a---b-1.
    expect(sessionName("a-/b", 1)).not.toBe(sessionName("a/-b", 1));
    expect(parseSessionName("artur.-x-1")).toEqual({ owner: "artur-", name: "x", issueNumber: 1 });
    // A dot anywhere else in the owner part is no owner's spelling.
    expect(isSessionName("a.b-x-1")).toBe(false);
    expect(isSessionName(".-x-1")).toBe(false);
  });

  it("stays within the bound for the longest names GitHub allows", () => {
    const longest = [
      sessionName(`a${"-".repeat(38)}/${"-".repeat(100)}`, Number.MAX_SAFE_INTEGER),
      sessionName(`${"-a".repeat(19)}-/${"-".repeat(100)}`, Number.MAX_SAFE_INTEGER),
      sessionName(`${"a".repeat(30)}_${"b".repeat(8)}/${"-".repeat(100)}`, Number.MAX_SAFE_INTEGER)
    ];
    for (const session of longest.flatMap((name) => [name, reporterSessionOf(name)!])) {
      expect(session.length).toBeLessThanOrEqual(MAX_SESSION_NAME_CHARS);
      expect(isSessionName(session), session).toBe(true);
    }
  });

  it("round-trips through parseSessionName", () => {
    for (const [repo, issue] of [
      ["cloudflare/agents", 1859],
      ["a-b/c", 1],
      ["a/b-c", 1],
      ["a/-b-", 3],
      ["a/--", 4],
      ["x/.github", 5],
      ["a1-b2-c3/d--e", 99999],
      ["octocat_acme/widgets", 6],
      ["mona-cat_octo/.github", 7],
      ["artur-/x", 8],
      ["-ace-/-b-", 9],
      ["0----0/a..b", 10]
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
      // Owners of every shape: today's, older ones with hyphens anywhere, and Enterprise Managed Users'.
      const plain = `${pick("ab-", Math.floor(random() * 3))}${pick("ab", 1)}${pick("ab-", Math.floor(random() * 4))}`;
      const owner = random() < 0.25 ? `${pick("ab", 1)}_${pick("ab", 3)}` : plain;
      const name = pick("ab-._", 1 + Math.floor(random() * 5));
      const repo = `${owner}/${name}`;
      const issue = 1 + Math.floor(random() * 12);
      let session: string;
      try {
        session = sessionName(repo, issue);
      } catch {
        continue; // not a valid GitHub name (e.g. a name ending in .git)
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

  it("gives an issue's reporter-tier runs a session of their own, which no issue's session can be", () => {
    expect(sessionName("acme/widgets", 7, "reporter")).toBe("acme-widgets-7.reporter");
    expect(parseSessionName("acme-widgets-7.reporter")).toEqual({ owner: "acme", name: "widgets", issueNumber: 7, tier: "reporter" });
    expect(sessionTier("acme-widgets-7.reporter")).toBe("reporter");
    expect(sessionTier("acme-widgets-7")).toBeUndefined();
    expect(issueSessionOf("acme-widgets-7.reporter")).toBe("acme-widgets-7");
    expect(reporterSessionOf("acme-widgets-7")).toBe("acme-widgets-7.reporter");
    expect(reporterSessionOf("acme-widgets-7.reporter")).toBe("acme-widgets-7.reporter");
    // A repository may be named `x.reporter`, but its issues' sessions end in the issue's number.
    expect(sessionName("acme/x.reporter", 7)).toBe("acme-x.reporter-7");
    expect(sessionTier("acme-x.reporter-7")).toBeUndefined();
    for (const bad of ["acme-widgets-7.reporter.reporter", "acme-widgets.reporter", ".reporter", "acme-widgets-07.reporter", "acme-widgets-7.Reporter", "acme-widgets-7-reporter"]) {
      expect(isSessionName(bad), bad).toBe(false);
    }
  });

  it("keeps reporter sessions injective and apart from every issue's session", () => {
    const names = new Set<string>();
    for (const [repo, issue] of [["a/b", 1], ["a/b", 11], ["a-b/c", 1], ["a/b-c", 1], ["a/b.reporter", 1], ["artur-/x", 8]] as const) {
      for (const tier of [undefined, "reporter"] as const) {
        const session = sessionName(repo, issue, tier);
        expect(names.has(session), session).toBe(false);
        names.add(session);
        const [owner, name] = repo.toLowerCase().split("/");
        expect(parseSessionName(session)).toEqual({ owner, name, issueNumber: issue, ...(tier ? { tier } : {}) });
      }
    }
  });
});
