/** The theme choice, shared by every page's header toggle. */
import { createContext, useContext, type ReactNode } from "react";
import { useTheme } from "../hooks/use-theme";
import type { ThemeChoice } from "../view-models/theme";

type ThemeState = { choice: ThemeChoice; cycle: () => void };

const ThemeContext = createContext<ThemeState>({ choice: "system", cycle: () => {} });

export function ThemeProvider(props: { children: ReactNode }) {
  const theme = useTheme();
  return <ThemeContext value={theme}>{props.children}</ThemeContext>;
}

export const useThemeContext = () => useContext(ThemeContext);
