import { describe, expect, it } from "vitest";
import { blockedTotal, replacesTally, storedBlocked } from "../../src/command-center/egress";

const entry = (host: string, method: string, count: number) => ({ host, method, count });

describe("a run's egress tally", () => {
  it("orders tallies by their total: only a larger one replaces what is known", () => {
    const known = [entry("api.github.com", "POST", 3), entry("evil.example", "GET", 1)];
    expect(blockedTotal(known)).toBe(4);
    expect(blockedTotal(undefined)).toBe(0);
    expect(replacesTally(undefined, [entry("evil.example", "GET", 1)])).toBe(true);
    expect(replacesTally(undefined, [])).toBe(false);
    expect(replacesTally(known, known)).toBe(false);
    expect(replacesTally(known, [entry("evil.example", "GET", 1)])).toBe(false);
    expect(replacesTally(known, [entry("other.example", "GET", 4)])).toBe(false);
    expect(replacesTally(known, [...known, entry("other.example", "GET", 1)])).toBe(true);
  });

  it("stores it most frequent first, ties by host then method, hosts redacted", () => {
    const token = `ghp_${"Z".repeat(36)}`;
    expect(
      storedBlocked([entry("b.example", "GET", 1), entry("a.example", "PUT", 1), entry("a.example", "GET", 1), entry(`${token}.x.example`, "GET", 2)])
    ).toEqual([entry("[redacted].x.example", "GET", 2), entry("a.example", "GET", 1), entry("a.example", "PUT", 1), entry("b.example", "GET", 1)]);
  });

  it("keeps at most 20 entries, dropping the least frequent", () => {
    const many = Array.from({ length: 25 }, (_, i) => entry(`h${String(i).padStart(2, "0")}.example`, "GET", i + 1));
    const stored = storedBlocked(many);
    expect(stored).toHaveLength(20);
    expect(stored[0]).toEqual(entry("h24.example", "GET", 25));
    expect(stored.at(-1)).toEqual(entry("h05.example", "GET", 6));
  });
});
