/**
 * The theme choice, kept in localStorage and applied as `data-theme` on
 * <html> (the stylesheet reads it; with no attribute it follows
 * prefers-color-scheme).
 */
import { useCallback, useEffect, useState } from "react";
import { browser } from "../browser";
import { nextThemeChoice, parseThemeChoice, THEME_STORAGE_KEY, type ThemeChoice } from "../view-models/theme";

function readChoice(): ThemeChoice {
  try {
    return parseThemeChoice(browser.localStorage.getItem(THEME_STORAGE_KEY));
  } catch {
    return "system";
  }
}

/** Applies a stored choice before the first render, so a forced theme does not flash. */
export function applyStoredTheme(): void {
  applyTheme(readChoice());
}

function applyTheme(choice: ThemeChoice): void {
  const { dataset } = browser.document.documentElement;
  if (choice === "system") delete dataset.theme;
  else dataset.theme = choice;
}

export function useTheme(): { choice: ThemeChoice; cycle: () => void } {
  const [choice, setChoice] = useState<ThemeChoice>(readChoice);
  useEffect(() => {
    applyTheme(choice);
    try {
      if (choice === "system") browser.localStorage.removeItem(THEME_STORAGE_KEY);
      else browser.localStorage.setItem(THEME_STORAGE_KEY, choice);
    } catch {
      // Storage can be unavailable (private mode); the choice then lasts for the page.
    }
  }, [choice]);
  const cycle = useCallback(() => setChoice(nextThemeChoice), []);
  return { choice, cycle };
}
