/**
 * `/`'s first view as the Worker draws it (src/http/first-view.tsx): the
 * SPA's own components over the snapshot's JSON text, at the snapshot's
 * clock, with the theme the Worker cannot know ("system"); hostile titles
 * come out as text; a snapshot that does not read draws nothing.
 */
import { describe, expect, it } from "vitest";
import { createElement as h, Suspense } from "react";
import { renderFirstView, renderWhole } from "../../src/http/first-view";
import { escapeJsonForHtml } from "../../src/http/inline-snapshot";
import type { Snapshot } from "../../src/shared/command-center";
import { metrics, NOW, thread } from "./ui/fixtures";

const HOSTILE = "</script><script>alert(1)</script><!-- --><img src=x onerror=alert(2)> & \u2028";

function snapshotText(overrides: Partial<Snapshot> = {}): string {
  const threads = [
    thread({ session: "acme-widgets-1", repo: "acme/widgets", issueNumber: 1, issueTitle: HOSTILE, lastActivityAt: NOW - 3 * 60_000 }),
    thread({ session: "acme-widgets-2", repo: "acme/widgets", issueNumber: 2, status: "error", lastError: "the tests failed", submissionId: "sub-2", lastActivityAt: NOW - 2 * 3_600_000 })
  ];
  return escapeJsonForHtml(JSON.stringify({ metrics, threads, total: 2, generatedAt: NOW, ...overrides }));
}

/** The HTML comments React writes (Suspense boundaries, text separators); any other would be the data's. */
const withoutReactMarks = (html: string) => html.replace(/<!--\/?\$-->|<!-- -->/g, "");

describe("renderFirstView", () => {
  it("draws the tiles and every thread row from the snapshot, at its clock", async () => {
    // The Worker's clock an hour on: the view still reads as of the snapshot, as the hydrating browser will.
    const html = await renderFirstView(snapshotText(), { now: NOW + 3_600_000 });
    expect(html).not.toBeNull();
    expect(html).toContain('data-testid="command-center"');
    expect(html).toContain('data-testid="metric-tiles"');
    expect(html!.match(/data-testid="thread-row"/g)).toHaveLength(2);
    expect(html).toContain('data-session="acme-widgets-2"');
    expect(html).toContain("just now");
    expect(html).toContain("3 min ago");
    expect(html).not.toContain("1 h ago");
    // The stored theme is the browser's: the Worker draws "system".
    expect(html).toContain('title="Theme: system (click to change)"');
  });

  it("writes a hostile title as text: no element, comment or script of its own", async () => {
    const html = (await renderFirstView(snapshotText(), { now: NOW }))!;
    expect(html).toContain("&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).not.toMatch(/<script|<\/script|<img/i);
    expect(withoutReactMarks(html)).not.toContain("<!--");
  });

  it("draws nothing from a snapshot that does not read", async () => {
    const errors: unknown[] = [];
    for (const text of ["", "not json", "[]", JSON.stringify({ threads: [] }), snapshotText({ generatedAt: "soon" as unknown as number })]) {
      expect(await renderFirstView(text, { now: NOW, onError: (error) => errors.push(error) })).toBeNull();
    }
    expect(errors).toEqual([]);
  });

  it("draws nothing when a part fails, even one a Suspense boundary would hide behind its fallback", () => {
    const Broken = (): never => {
      throw new Error("broken row");
    };
    const errors: unknown[] = [];
    const onError = (error: unknown) => errors.push(error);
    const loading = h("p", null, "loading");
    expect(renderWhole(h(Suspense, { fallback: loading }, h(Broken)), onError)).toBeNull();
    expect(renderWhole(h(Broken), onError)).toBeNull();
    expect(errors).toHaveLength(2);
    expect(renderWhole(h(Suspense, { fallback: loading }, h("p", null, "fine")), onError)).toBe("<!--$--><p>fine</p><!--/$-->");
    expect(errors).toHaveLength(2);
  });
});
