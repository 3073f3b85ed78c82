/** Loading, empty and error states, the same everywhere. */
import type { ReactNode } from "react";

export function Loading(props: { what: string }) {
  return (
    <div className="state state-loading" role="status" data-testid="state-loading">
      <span className="spinner" aria-hidden="true" />
      Loading {props.what}…
    </div>
  );
}

export function Empty(props: { title: string; children?: ReactNode; testId?: string }) {
  return (
    <div className="state state-empty" data-testid={props.testId ?? "state-empty"}>
      <strong>{props.title}</strong>
      {props.children ? <div className="state-detail">{props.children}</div> : null}
    </div>
  );
}

export function ErrorState(props: { title: string; detail: string; onRetry?: () => void }) {
  return (
    <div className="state state-error" role="alert" data-testid="state-error">
      <strong>{props.title}</strong>
      <div className="state-detail">{props.detail}</div>
      {props.onRetry ? (
        <button type="button" className="button" onClick={props.onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}
