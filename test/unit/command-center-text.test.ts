import { describe, expect, it } from "vitest";
import { cutText, redactTokens, summarizeInstruction } from "../../src/command-center/text";

describe("summarizeInstruction", () => {
  it("keeps the first non-blank line, whitespace collapsed", () => {
    expect(summarizeInstruction("\n\n  open   a PR\tfixing this  \nmore")).toBe("open a PR fixing this");
    expect(summarizeInstruction("a\r\nb")).toBe("a");
    expect(summarizeInstruction("   ")).toBe("");
  });

  it("cuts to at most 140 characters with an ellipsis", () => {
    const summary = summarizeInstruction("x".repeat(500));
    expect(summary).toHaveLength(140);
    expect(summary.endsWith("…")).toBe(true);
    expect(summarizeInstruction("y".repeat(140))).toBe("y".repeat(140));
  });
});

describe("cutText", () => {
  it("never splits a surrogate pair", () => {
    const text = "a" + "😀".repeat(10);
    for (let max = 1; max < text.length; max++) {
      const cut = cutText(text, max);
      expect(cut.length).toBeLessThanOrEqual(max);
      expect(() => encodeURIComponent(cut)).not.toThrow();
    }
    expect(cutText("abc", 0)).toBe("");
  });
});

describe("redactTokens", () => {
  it("redacts GitHub token shapes and leaves other text", () => {
    expect(redactTokens("ghs_0123456789abcdefABCDEF and github_pat_11AAAAAAA0123456789_xyz")).toBe("[redacted] and [redacted]");
    expect(redactTokens("ghs_short ghx_0123456789abcdefABCDEF")).toBe("ghs_short ghx_0123456789abcdefABCDEF");
  });
});
