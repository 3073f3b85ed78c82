/** The bar on every page: name, a back link where there is one, the connection state and the theme toggle. */
import type { ReactNode } from "react";
import { Link } from "react-router";
import type { ConnectionView } from "../view-models/dashboard";
import { useThemeContext } from "./theme-context";
import { themeToggleLabel } from "../view-models/theme";

export function AppHeader(props: { connection?: ConnectionView; back?: boolean; children?: ReactNode }) {
  const theme = useThemeContext();
  return (
    <header className="topbar">
      {props.back ? (
        <Link to="/" className="back-link" data-testid="back-link">
          ← All threads
        </Link>
      ) : null}
      <Link to="/" className="brand">
        agent-think
      </Link>
      <div className="topbar-title">{props.children}</div>
      {props.connection ? (
        <span className={`connection tone-${props.connection.tone}`} title={props.connection.title} data-testid="connection-status">
          <span className="dot" aria-hidden="true" />
          {props.connection.label}
        </span>
      ) : null}
      <button
        type="button"
        className="theme-toggle"
        onClick={theme.cycle}
        title={`${themeToggleLabel(theme.choice)} (click to change)`}
        aria-label={`${themeToggleLabel(theme.choice)}. Change theme`}
        data-testid="theme-toggle"
      >
        {theme.choice === "dark" ? "☾" : theme.choice === "light" ? "☀" : "◐"}
      </button>
    </header>
  );
}
