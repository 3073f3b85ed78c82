/**
 * Loading, empty and error states, the same everywhere. `heading`: on a page
 * that is only this state, its title is the page's level-one heading.
 */
import type { ReactNode } from "react";

export function Loading(props: { what: string }) {
  return (
    <div className="state state-loading" role="status" data-testid="state-loading">
      <span className="spinner" aria-hidden="true" />
      Loading {props.what}…
    </div>
  );
}

export function Empty(props: { title: string; heading?: boolean; children?: ReactNode; testId?: string }) {
  return (
    <div className="state state-empty" data-testid={props.testId ?? "state-empty"}>
      <StateTitle title={props.title} heading={props.heading} />
      {props.children ? <div className="state-detail">{props.children}</div> : null}
    </div>
  );
}

export function ErrorState(props: { title: string; heading?: boolean; detail: string; onRetry?: () => void }) {
  return (
    <div className="state state-error" role="alert" data-testid="state-error">
      <StateTitle title={props.title} heading={props.heading} />
      <div className="state-detail">{props.detail}</div>
      {props.onRetry ? (
        <button type="button" className="button" onClick={props.onRetry}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

function StateTitle(props: { title: string; heading?: boolean }) {
  const title = <strong>{props.title}</strong>;
  return props.heading ? <h1>{title}</h1> : title;
}
