/**
 * The colour theme: follow the system (prefers-color-scheme) or force light
 * or dark. The toggle cycles system → light → dark. Pure.
 */
export const THEME_CHOICES = ["system", "light", "dark"] as const;
export type ThemeChoice = (typeof THEME_CHOICES)[number];
export type Theme = "light" | "dark";

export const THEME_STORAGE_KEY = "agent-think:theme";

export function parseThemeChoice(value: string | null | undefined): ThemeChoice {
  return THEME_CHOICES.includes(value as ThemeChoice) ? (value as ThemeChoice) : "system";
}

export function nextThemeChoice(choice: ThemeChoice): ThemeChoice {
  return THEME_CHOICES[(THEME_CHOICES.indexOf(choice) + 1) % THEME_CHOICES.length]!;
}

export function resolveTheme(choice: ThemeChoice, systemPrefersDark: boolean): Theme {
  if (choice === "system") return systemPrefersDark ? "dark" : "light";
  return choice;
}

export function themeToggleLabel(choice: ThemeChoice): string {
  return { system: "Theme: system", light: "Theme: light", dark: "Theme: dark" }[choice];
}
