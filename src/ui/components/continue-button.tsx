/** The Continue button of a failed or stale thread, and the answer it got. */
import type { ContinueOutcome } from "../view-models/continue";

export function ContinueButton(props: { session: string; pending: boolean; onContinue: (session: string) => void }) {
  return (
    <button
      type="button"
      className="button button-primary"
      data-testid="continue-button"
      data-session={props.session}
      disabled={props.pending}
      aria-busy={props.pending}
      onClick={() => props.onContinue(props.session)}
    >
      {props.pending ? "Continuing…" : "Continue"}
    </button>
  );
}

export function ContinueResult(props: { session: string; outcome: ContinueOutcome; onDismiss?: () => void }) {
  return (
    <div
      className={`continue-result ${props.outcome.ok ? "tone-good" : "tone-bad"}`}
      role={props.outcome.ok ? "status" : "alert"}
      data-testid="continue-result"
      data-outcome={props.outcome.ok ? "ok" : "error"}
      data-session={props.session}
    >
      <span>{props.outcome.message}</span>
      {props.onDismiss ? (
        <button type="button" className="link-button" onClick={props.onDismiss} aria-label="Dismiss">
          ×
        </button>
      ) : null}
    </div>
  );
}
