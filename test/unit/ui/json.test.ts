import { describe, expect, it } from "vitest";
import { boundText, compactJson, valueView } from "../../../src/ui/view-models/json";

describe("compactJson", () => {
  it("keeps small values on one line and indents big ones", () => {
    expect(compactJson({ path: "/workspace/a.ts", limit: 20 }).text).toBe('{"path":"/workspace/a.ts","limit":20}');
    const big = { files: Array.from({ length: 8 }, (_, i) => `/workspace/src/module-${i}.ts`), ok: true };
    const text = compactJson(big).text;
    expect(text.split("\n")[0]).toBe("{");
    expect(text).toContain('  "ok": true');
    expect(JSON.parse(text)).toEqual(big);
  });

  it("bounds the text and says how much was left out", () => {
    const out = compactJson({ content: "x".repeat(500) }, 100);
    expect(out.text).toHaveLength(100);
    expect(out).toMatchObject({ truncated: true });
    expect(out.omittedChars).toBeGreaterThan(400);
  });

  it("survives cycles and values JSON cannot hold", () => {
    const cyclic: Record<string, unknown> = { name: "a".repeat(80) };
    cyclic.self = cyclic;
    expect(compactJson(cyclic).text).toContain('"[circular]"');
    expect(compactJson(undefined).text).toBe("undefined");
    expect(compactJson(10n).text).toBe("10n");
  });
});

describe("valueView and boundText", () => {
  it("shows a string as itself, anything else as JSON", () => {
    expect(valueView("line 1\nline 2")).toMatchObject({ text: "line 1\nline 2", language: "text", blocks: [] });
    expect(valueView([1, 2])).toMatchObject({ text: "[1,2]", language: "json", blocks: [] });
    expect(boundText("abc", 5)).toEqual({ text: "abc", truncated: false, omittedChars: 0 });
  });

  it("sets multi-line text fields apart from the JSON", () => {
    const content = "# notes\n\n- [x] Read the issue.\n- [ ] Build the reproduction.";
    const view = valueView({ path: "/workspace/notes.md", content, startLine: 1 });
    expect(view.text).toBe('{"path":"/workspace/notes.md","startLine":1}');
    expect(view.blocks).toEqual([{ label: "content", text: content, omittedChars: 0 }]);
    expect(valueView({ diff: content }).text).toBe("");
    expect(valueView({ short: "a\nb" }).blocks).toEqual([]);
  });
});
