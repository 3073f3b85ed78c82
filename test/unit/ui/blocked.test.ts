import { describe, expect, it } from "vitest";
import { BLOCKED_HOSTS_SHOWN, blockedView } from "../../../src/ui/view-models/blocked";

const entry = (host: string, method: string, count: number) => ({ host, method, count });

describe("blockedView", () => {
  it("is nothing when nothing was refused", () => {
    expect(blockedView(undefined)).toBeNull();
    expect(blockedView([])).toBeNull();
  });

  it("says one refused request in the singular, naming its host", () => {
    expect(blockedView([entry("evil.example", "GET", 1)])).toEqual({
      text: "1 request blocked: evil.example",
      total: 1,
      entries: [{ key: "0:GET evil.example", text: "GET evil.example × 1" }]
    });
  });

  it("sums the counts and names each host once, most refused first", () => {
    const view = blockedView([entry("evil.example", "GET", 2), entry("api.github.com", "POST", 3), entry("evil.example", "POST", 2)])!;
    expect(view.text).toBe("7 requests blocked: evil.example, api.github.com");
    expect(view.total).toBe(7);
    // Every host and method, most frequent first.
    expect(view.entries.map((item) => item.text)).toEqual(["POST api.github.com × 3", "GET evil.example × 2", "POST evil.example × 2"]);
  });

  it("names at most three hosts, then how many more", () => {
    const view = blockedView([
      entry("a.example", "GET", 5),
      entry("b.example", "GET", 4),
      entry("c.example", "GET", 3),
      entry("d.example", "GET", 2),
      entry("e.example", "PUT", 1)
    ])!;
    expect(BLOCKED_HOSTS_SHOWN).toBe(3);
    expect(view.text).toBe("15 requests blocked: a.example, b.example, c.example and 2 more");
    expect(view.entries).toHaveLength(5);
    expect(blockedView([entry("a.example", "GET", 1), entry("b.example", "GET", 1), entry("c.example", "GET", 1), entry("d.example", "GET", 1)])!.text).toBe(
      "4 requests blocked: a.example, b.example, c.example and 1 more"
    );
  });

  it("keeps the tally's order between hosts refused equally often, and writes large counts with separators", () => {
    expect(blockedView([entry("z.example", "GET", 1_200), entry("a.example", "GET", 1_200)])!).toMatchObject({
      text: "2,400 requests blocked: z.example, a.example",
      entries: [{ text: "GET z.example × 1,200" }, { text: "GET a.example × 1,200" }]
    });
  });
});
