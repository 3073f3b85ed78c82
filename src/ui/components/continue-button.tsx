/** The Continue button of a failed or stale thread, and the banner that follows the continued run. */
import type { ThreadSummary } from "../../shared/command-center";
import { continueBanner, type ContinueTrack } from "../view-models/continue";

export function ContinueButton(props: {
  session: string;
  /** The thread's current submission: the banner knows the continued run by its change. */
  submissionId?: string;
  pending: boolean;
  onContinue: (session: string, previousSubmissionId?: string) => void;
}) {
  return (
    <button
      type="button"
      className="button button-primary"
      data-testid="continue-button"
      data-session={props.session}
      disabled={props.pending}
      aria-busy={props.pending}
      onClick={() => props.onContinue(props.session, props.submissionId)}
    >
      {props.pending ? "Continuing…" : "Continue"}
    </button>
  );
}

/**
 * The answer to Continue, then the continued run: queued, running, and how
 * it ended (done, failed again with its error, cancelled). `data-outcome`
 * is the request's answer; `data-phase` where the run is.
 */
/** `showError`: false where the page shows the thread's last error already. */
export function ContinueResult(props: {
  session: string;
  track: ContinueTrack;
  thread: ThreadSummary | undefined;
  showError?: boolean;
  onDismiss?: () => void;
}) {
  const banner = continueBanner(props.track, props.thread);
  return (
    <div
      className={`continue-result tone-${banner.tone}`}
      role={banner.tone === "bad" ? "alert" : "status"}
      data-testid="continue-result"
      data-outcome={props.track.outcome.ok ? "ok" : "error"}
      data-phase={banner.phase}
      data-session={props.session}
    >
      {banner.settled ? null : <span className="spinner spinner-small" aria-hidden="true" />}
      <span data-testid="continue-message">{banner.message}</span>
      {banner.error && props.showError !== false ? (
        <code className="continue-error" data-testid="continue-error">
          {banner.error}
        </code>
      ) : null}
      {props.onDismiss ? (
        <button type="button" className="link-button" onClick={props.onDismiss} aria-label="Dismiss">
          ×
        </button>
      ) : null}
    </div>
  );
}
