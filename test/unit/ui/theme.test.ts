import { describe, expect, it } from "vitest";
import { nextThemeChoice, parseThemeChoice, resolveTheme } from "../../../src/ui/view-models/theme";

describe("theme", () => {
  it("cycles system → light → dark → system", () => {
    expect(nextThemeChoice("system")).toBe("light");
    expect(nextThemeChoice("light")).toBe("dark");
    expect(nextThemeChoice("dark")).toBe("system");
  });

  it("follows the system unless forced, and reads junk as system", () => {
    expect(resolveTheme("system", true)).toBe("dark");
    expect(resolveTheme("system", false)).toBe("light");
    expect(resolveTheme("light", true)).toBe("light");
    expect(parseThemeChoice("dark")).toBe("dark");
    expect(parseThemeChoice("purple")).toBe("system");
    expect(parseThemeChoice(null)).toBe("system");
  });
});
