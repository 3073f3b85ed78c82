/** A page that throws while rendering says so, instead of leaving a blank screen. */
import { Component, type ReactNode } from "react";
import { browser } from "../browser";
import { AppHeader } from "./app-header";
import { ErrorState } from "./state-views";

export class ErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  override state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override render() {
    if (!this.state.error) return this.props.children;
    return (
      <div className="page" data-testid="page-error">
        <AppHeader back />
        <main className="thread">
          <ErrorState title="This page broke" detail={this.state.error.message} onRetry={() => browser.location.reload()} />
        </main>
      </div>
    );
  }
}
