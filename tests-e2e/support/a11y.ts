/**
 * Accessibility in the browser tests: axe-core (a devDependency) run on the
 * page a test has open, in the light theme and in the dark one (contrast
 * differs), and the page's level-one headings counted. What comes back is
 * one line per problem, readable in a failed assertion: the theme, the
 * rule, its impact, what axe says is wrong and the elements' selectors.
 * docs/dashboard.md, "Accessibility".
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Page } from "playwright-core";
import { expect } from "vitest";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
/** Reported whatever their impact: axe calls a page without a level-one heading moderate; the dashboard holds itself to one. */
const ALWAYS_REPORTED = ["page-has-heading-one"];
/** How many elements of one rule a line names before "and N more". */
const TARGETS_SHOWN = 5;

export type Theme = "light" | "dark";

/** One rule's violation on the page, as axe reports it (the parts a reader needs). */
export type Violation = { rule: string; impact: string; help: string; nodes: { target: string; message: string }[] };

type AxeResult = {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string; any: { message: string }[]; all: { message: string }[]; none: { message: string }[] }[];
};

/** The serious and critical violations axe finds on the page as it is now (and those of ALWAYS_REPORTED). */
export async function axeViolations(page: Page): Promise<Violation[]> {
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.addScriptTag({ content: AXE_SOURCE });
  // A string, not a function: this project's types have no DOM, and axe lives on the page's window.
  const results = (await page.evaluate("window.axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)")) as AxeResult[];
  return results
    .filter((result) => result.impact === "serious" || result.impact === "critical" || ALWAYS_REPORTED.includes(result.id))
    .map((result) => ({
      rule: result.id,
      impact: result.impact ?? "unknown",
      help: result.help,
      nodes: result.nodes.map((node) => ({
        target: node.target.map(String).join(" "),
        message: [...node.any, ...node.all, ...node.none][0]?.message ?? node.failureSummary ?? ""
      }))
    }));
}

/** One line per violation: "[dark] color-contrast (serious, 3 elements): Elements must meet … — .tile-label: Element has insufficient …". */
export function describeViolations(theme: Theme, violations: Violation[]): string[] {
  return violations.map((violation) => {
    const shown = violation.nodes.slice(0, TARGETS_SHOWN).map((node) => `${node.target}: ${node.message}`);
    const more = violation.nodes.length > TARGETS_SHOWN ? ` … and ${violation.nodes.length - TARGETS_SHOWN} more` : "";
    return `[${theme}] ${violation.rule} (${violation.impact}, ${violation.nodes.length} element${violation.nodes.length === 1 ? "" : "s"}): ${violation.help} — ${shown.join(" | ")}${more}`;
  });
}

/**
 * Every problem on the page in both themes, as lines: axe's serious and
 * critical violations, and a count of level-one headings other than one.
 * The theme is forced as the toggle forces it (`data-theme` on <html>), and
 * the attribute put back afterwards as the page had it.
 */
export async function accessibilityProblems(page: Page, themes: readonly Theme[] = ["light", "dark"]): Promise<string[]> {
  const before = (await page.evaluate("document.documentElement.getAttribute('data-theme')")) as string | null;
  const problems: string[] = [];
  try {
    for (const theme of themes) {
      await page.evaluate(`document.documentElement.setAttribute("data-theme", ${JSON.stringify(theme)})`);
      problems.push(...describeViolations(theme, await axeViolations(page)));
      const headings = (await page.evaluate("document.querySelectorAll('h1').length")) as number;
      if (headings !== 1) problems.push(`[${theme}] the page has ${headings} level-one headings, not one`);
    }
  } finally {
    await page.evaluate(
      before === null ? "document.documentElement.removeAttribute('data-theme')" : `document.documentElement.setAttribute("data-theme", ${JSON.stringify(before)})`
    );
  }
  return problems;
}

/** Asserts the page has no serious or critical violation and one level-one heading, in both themes; `where` names it in the failure. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  const problems = await accessibilityProblems(page);
  expect(problems, `accessibility of ${where}`).toEqual([]);
}
