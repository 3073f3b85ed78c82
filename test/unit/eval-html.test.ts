import { describe, expect, it } from "vitest";
import { renderReportHtml, REPORT_CSP } from "../../scripts/lib/eval/html";
import { formatPoints, formatUsdDelta } from "../../scripts/lib/eval/html-comparison";
import { escapeHtml, safeHref } from "../../scripts/lib/eval/html-text";
import { compare, totals, type CaseResult, type Report } from "../../scripts/lib/eval/report";
import { currentComparison, currentReport } from "../../tests-e2e/fixtures/eval-report";

function result(id: string, overrides: Partial<CaseResult> = {}): CaseResult {
  return {
    id,
    title: `Case ${id}`,
    source: `https://github.com/acme/widgets/issues/${id.length}`,
    expected: "reproduced",
    outcome: "reproduced",
    verdict: "pass",
    timeToStartMs: 5_000,
    timeToCloseMs: 120_000,
    toolCalls: 12,
    tokens: { input: 10_000, output: 900 },
    cost: { usd: 0.25, complete: true },
    scripted: false,
    reproductionUrl: `https://repro.example/${id}`,
    threadUrl: `https://agent.example/threads/${id}`,
    issueUrl: `https://github.com/acme/sandbox/issues/${id.length}`,
    checks: [],
    ...overrides
  };
}

function report(cases: CaseResult[], overrides: Partial<Report> = {}): Report {
  return {
    version: 1,
    target: "local",
    against: "http://127.0.0.1:8787",
    scripted: false,
    startedAt: "2025-06-02T09:00:00.000Z",
    finishedAt: "2025-06-02T09:20:00.000Z",
    concurrency: 2,
    costCapUsd: 5,
    cases,
    totals: totals(cases),
    ...overrides
  };
}

/** Every value of the named attribute in the page, as written (still escaped). */
function attributes(html: string, name: string): string[] {
  return [...html.matchAll(new RegExp(`\\s${name}="([^"]*)"`, "g"))].map((match) => match[1]!);
}

/** The page's text between one marker and the next (a section, a box). */
function between(html: string, start: string, end: string): string {
  const from = html.indexOf(start);
  expect(from, `${start} is in the page`).toBeGreaterThanOrEqual(0);
  const to = html.indexOf(end, from + start.length);
  return html.slice(from, to < 0 ? undefined : to);
}

describe("renderReportHtml: escaping", () => {
  const hostile = result("hostile", {
    title: "<script>alert(1)</script>",
    verdict: "fail",
    reason: 'The run said "done" & left <b>early</b>',
    source: "javascript:alert('source')",
    reproductionUrl: "javascript:alert(document.cookie)",
    threadUrl: 'https://agent.example/threads/x"><img src=x onerror=alert(1)>',
    issueUrl: "data:text/html,<script>alert(1)</script>",
    checks: [{ name: "<i>name</i>", ok: false, detail: 'detail with "quotes" & <tags>' }]
  });
  const html = renderReportHtml(report([hostile, result("x\" onmouseover=\"alert(1)")], { against: "<b>acme</b>/sandbox" }));

  it("escapes titles, reasons, check names and details, and the target", () => {
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("The run said &quot;done&quot; &amp; left &lt;b&gt;early&lt;/b&gt;");
    expect(html).toContain("&lt;i&gt;name&lt;/i&gt;");
    expect(html).toContain("detail with &quot;quotes&quot; &amp; &lt;tags&gt;");
    expect(html).toContain("&lt;b&gt;acme&lt;/b&gt;/sandbox");
    expect(html).not.toContain("<b>");
    expect(html).not.toContain("<i>");
  });

  it("keeps an id from breaking out of an attribute", () => {
    // As text the id may read `onmouseover=&quot;…`; as an attribute it never starts.
    expect(html).not.toMatch(/onmouseover="/);
    expect(html).toContain('data-case="x&quot; onmouseover=&quot;alert(1)"');
  });

  it("links only http(s) URLs; a javascript: or data: URL is shown as text", () => {
    const hrefs = attributes(html, "href");
    expect(hrefs.length).toBeGreaterThan(0);
    for (const href of hrefs) expect(href).toMatch(/^https?:\/\//);
    expect(html).not.toMatch(/href="\s*(javascript|data):/i);
    expect(html).toContain(">javascript:alert(document.cookie)</span>");
    expect(html).toContain("data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;");
    // The quote in the thread URL is percent-encoded by the URL parser and could not end the attribute anyway.
    expect(hrefs).toContain("https://agent.example/threads/x%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E");
    expect(html).not.toMatch(/<img/);
  });

  it("escapes the five characters and leaves the rest", () => {
    expect(escapeHtml(`<a href="x">'&'</a> ✓`)).toBe("&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt; ✓");
  });

  it("accepts only http: and https: as links", () => {
    expect(safeHref("https://example.com/a?b=1")).toBe("https://example.com/a?b=1");
    expect(safeHref("http://127.0.0.1:8787/")).toBe("http://127.0.0.1:8787/");
    expect(safeHref(" javascript:alert(1)")).toBeNull();
    expect(safeHref("JAVASCRIPT:alert(1)")).toBeNull();
    expect(safeHref("data:text/html,x")).toBeNull();
    expect(safeHref("/relative/path")).toBeNull();
    expect(safeHref("acme/sandbox")).toBeNull();
    expect(safeHref(null)).toBeNull();
  });
});

describe("renderReportHtml: a self-contained page", () => {
  const html = renderReportHtml(currentReport(), currentComparison());
  const links = new Set(
    currentReport().cases.flatMap((one) => [one.source, one.reproductionUrl, one.threadUrl, one.issueUrl].filter((url): url is string => url !== null && /^https?:/.test(url)))
  );

  it("loads nothing: no script, stylesheet link, image, font or CSS url()", () => {
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<link/i);
    expect(html).not.toMatch(/<img|<iframe|<object|<embed/i);
    expect(attributes(html, "src")).toEqual([]);
    expect(html).not.toMatch(/url\(|@import|@font-face/i);
  });

  it("has a restrictive CSP that allows only the inline style", () => {
    expect(REPORT_CSP).toContain("default-src 'none'");
    expect(REPORT_CSP).toContain("style-src 'unsafe-inline'");
    expect(REPORT_CSP).not.toContain("script-src");
    expect(html).toContain(`<meta http-equiv="Content-Security-Policy" content="${REPORT_CSP}">`);
  });

  it("links to nothing but the report's own http(s) URLs", () => {
    const hrefs = attributes(html, "href");
    expect(hrefs.length).toBeGreaterThan(0);
    for (const href of hrefs) expect(links).toContain(href.replaceAll("&amp;", "&"));
  });

  it("draws one outcome mark per case", () => {
    expect(html.match(/class="outcome-mark"/g)).toHaveLength(12);
  });
});

describe("renderReportHtml: costs", () => {
  it("shows an unknown cost as unknown and a floor as ≥, never as $0.00", () => {
    const html = renderReportHtml(report([result("known"), result("floor", { cost: { usd: 0.42, complete: false } }), result("unknown", { cost: null })]));
    const row = (id: string) => between(html, `<tr class="v-pass" data-case="${id}">`, "</tr>");
    expect(row("known")).toContain(">$0.25<");
    expect(row("floor")).toContain(">≥ $0.42<");
    expect(row("unknown")).toContain(">unknown<");
    expect(html).not.toContain("$0.00");
    // The total has a floor and an unknown in it: it is a floor.
    expect(between(html, 'data-testid="total-cost"', "</div></div>")).toContain("≥ $0.67");
  });

  it("shows the totals as unknown when no run reported a cost", () => {
    const html = renderReportHtml(report([result("a", { cost: null }), result("b", { cost: null })]));
    expect(between(html, 'data-testid="median-cost"', "</div></div>")).toContain(">unknown<");
    expect(between(html, 'data-testid="total-cost"', "</div></div>")).toContain(">unknown<");
    expect(html).not.toContain("$0.00");
  });
});

describe("renderReportHtml: the header", () => {
  it("says when the cost cap stopped the run, and how many cases it skipped", () => {
    const cases = [result("ran", { cost: { usd: 5.2, complete: true } }), result("left", { verdict: "skipped", outcome: null, cost: null, timeToCloseMs: null, timeToStartMs: null })];
    const html = renderReportHtml(report(cases, { stoppedBy: "cost-cap" }));
    const notice = between(html, 'data-notice="cost-cap"', "</p>");
    expect(notice).toContain("The cost cap stopped this run.");
    expect(notice).toContain("$5.00 cap");
    expect(notice).toContain("1 case was skipped");
    expect(renderReportHtml(report(cases))).not.toContain('data-notice="cost-cap"');
  });

  it("labels a scripted run as a demonstration in which no model ran", () => {
    expect(renderReportHtml(report([result("a")], { scripted: true }))).toContain("scripted demonstration: no model ran");
    expect(renderReportHtml(report([result("a")]))).not.toContain("scripted demonstration");
  });

  it("shows the resolve rate over the cases that ran", () => {
    const html = renderReportHtml(currentReport());
    expect(between(html, 'data-testid="resolve-rate"', "</div></div>")).toContain(">54.5%<");
  });
});

describe("renderReportHtml: by expected outcome", () => {
  const cases = [
    result("real"),
    result("intended", { expected: "not-reproduced", outcome: "reproduced", verdict: "fail" }),
    result("documented", { expected: "not-reproduced", outcome: "not-reproduced" }),
    result("vague", { expected: "needs-info", outcome: null, verdict: "timed-out" }),
    result("later", { expected: "pr-opened", outcome: null, verdict: "skipped" })
  ];
  const html = renderReportHtml(report(cases));
  const table = between(html, 'data-testid="by-expected"', "</table>");
  const row = (expected: string) => between(table, `<tr data-expected="${expected}">`, "</tr>");

  it("has a row per expected outcome that ran and a column per reported one", () => {
    expect(table).toContain('<th scope="colgroup" colspan="4" class="reported-h">Reported</th>');
    expect(table).toMatch(/<tr><th scope="col" class="num outcome">reproduced<\/th><th scope="col" class="num outcome">not-reproduced<\/th><th scope="col" class="num outcome">needs-info<\/th><th scope="col" class="num outcome">none<\/th><\/tr>/);
    expect([...table.matchAll(/data-expected="([^"]+)"/g)].map((match) => match[1])).toEqual(["reproduced", "not-reproduced", "needs-info"]);
    // cases, passed, then reproduced · not-reproduced · needs-info · none
    expect(row("not-reproduced")).toMatch(/<td class="num">2<\/td><td class="num">1<\/td><td class="num false-repro"[^>]*>1 <span class="sym" aria-label="false reproduction">⚠<\/span><\/td><td class="num diag"[^>]*>1 /);
    expect(row("needs-info")).toMatch(/<td class="num diag"[^>]*>0 <span class="sym" aria-label="as expected">✓<\/span><\/td><td class="num off">1<\/td>/);
  });

  it("names the false reproductions in words, not colour alone", () => {
    const notice = between(html, 'data-notice="false-reproduction"', "</p>");
    expect(notice).toContain("1 false reproduction:");
    expect(notice).toContain("<code>intended</code> (expected not-reproduced)");
    expect(renderReportHtml(report([result("real")]))).not.toContain('data-notice="false-reproduction"');
  });

  it("works the rows out from the cases of a report written before them", () => {
    const { byExpected: _rows, ...older } = totals(cases);
    expect(renderReportHtml(report(cases, { totals: older }))).toContain(table);
  });

  it("says so when no case ran", () => {
    expect(between(renderReportHtml(report([])), 'id="by-expected-h"', "</section>")).toContain("No case ran.");
  });
});

describe("renderReportHtml: the comparison", () => {
  const before = report([result("fixed-one", { verdict: "fail" }), result("broken-one"), result("steady"), result("gone")], { startedAt: "2025-05-28T16:02:00.000Z" });
  const after = report([result("fixed-one"), result("broken-one", { verdict: "fail", reason: "expected reproduced, got needs-info" }), result("steady"), result("new-one")]);
  const html = renderReportHtml(after, compare(before, after));

  it("names the earlier run and shows the deltas", () => {
    expect(html).toContain("Compared with <time");
    expect(html).toContain("2025-05-28 16:02 UTC");
    expect(between(html, 'data-testid="delta-resolve-rate"', "</div></div>")).toContain("±0 pts");
    expect(html).toContain('data-testid="delta-median-time"');
    expect(html).toContain('data-testid="delta-median-cost"');
    expect(html).toContain('data-testid="delta-total-cost"');
  });

  it("lists the fixed and the broken cases, each in its own box", () => {
    const fixed = between(html, 'data-testid="fixed"', 'data-testid="broken"');
    const broken = between(html, 'data-testid="broken"', "</ul>");
    expect(fixed).toContain("Fixed (1)");
    expect(fixed).toContain('data-case="fixed-one"');
    expect(fixed).not.toContain('data-case="broken-one"');
    expect(broken).toContain("Broken (1)");
    expect(broken).toContain('data-case="broken-one"');
    expect(broken).toContain("expected reproduced, got needs-info");
    expect(between(html, 'data-testid="added"', "</details>")).toContain('data-case="new-one"');
    expect(between(html, 'data-testid="removed"', "</details>")).toContain('data-case="gone"');
    expect(between(html, 'data-testid="same"', "</details>")).toContain('data-case="steady"');
  });

  it("has no comparison section without a comparison", () => {
    expect(renderReportHtml(after)).not.toContain("Compared with");
  });

  it("formats the deltas with their sign", () => {
    expect(formatPoints(0.125)).toBe("+12.5 pts");
    expect(formatPoints(-0.1)).toBe("−10 pts");
    expect(formatUsdDelta(-1.5)).toBe("−$1.50");
    expect(formatUsdDelta(0.3)).toBe("+$0.30");
  });
});

describe("renderReportHtml: an empty report", () => {
  it("renders a page for a run with no cases", () => {
    const html = renderReportHtml(report([]));
    expect(html.startsWith("<!doctype html>")).toBe(true);
    expect(html).toContain("No cases.");
    expect(between(html, 'data-testid="resolve-rate"', "</div></div>")).toContain(">—<");
    expect(html).not.toContain("NaN");
    expect(html).not.toContain("Infinity");
  });

  it("renders an empty report compared with an empty report", () => {
    expect(() => renderReportHtml(report([]), compare(report([]), report([])))).not.toThrow();
  });
});

describe("checks the harness could not run", () => {
  it("are shown as not run, neither held nor failed", () => {
    const html = renderReportHtml(
      report([result("fix", { expected: "pr-opened", outcome: "pr-opened", checks: [{ name: "command", ok: false, notRun: true, detail: "not run: the harness does not yet check out the run's pull request" }] })])
    );
    expect(html).toContain('<li class="not-run"><span class="mark" aria-label="not run">–</span> <strong>command</strong>');
    expect(html).not.toContain('aria-label="failed"');
  });
});
