/**
 * The theme choice, shared by every page's header toggle. The Worker cannot
 * read the stored choice, so its markup, and the render that hydrates it,
 * show "system"; the next render shows the choice (the page's colours
 * follow it from the start: applyStoredTheme).
 */
import { createContext, useContext, type ReactNode } from "react";
import { useServerMarkup } from "../hooks/use-server-markup";
import { useTheme } from "../hooks/use-theme";
import type { ThemeChoice } from "../view-models/theme";

type ThemeState = { choice: ThemeChoice; cycle: () => void };

const ThemeContext = createContext<ThemeState>({ choice: "system", cycle: () => {} });

export function ThemeProvider(props: { children: ReactNode }) {
  const theme = useTheme();
  const serverMarkup = useServerMarkup();
  return <ThemeContext value={serverMarkup ? { choice: "system", cycle: theme.cycle } : theme}>{props.children}</ThemeContext>;
}

export const useThemeContext = () => useContext(ThemeContext);
