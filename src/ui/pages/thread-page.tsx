/**
 * `/thread/:session`: one thread live: the configuration health banner when
 * something is wrong, the envelope header, status and timing, the issue's
 * reproduction page and what the run posted on the issue, and the streaming
 * transcript.
 */
import { useMemo } from "react";
import { useParams } from "react-router";
import { isSessionName } from "../../run/session-name";
import { AppHeader } from "../components/app-header";
import { ContinueButton, ContinueResult } from "../components/continue-button";
import { EnvelopeHeader } from "../components/envelope-header";
import { HealthBanner } from "../components/health-banner";
import { IssueMessages } from "../components/issue-messages";
import { ReproductionLink } from "../components/reproduction-link";
import { Empty, ErrorState, Loading } from "../components/state-views";
import { StatusBadge } from "../components/status-badge";
import { TranscriptView } from "../components/transcript-view";
import { useCommandCenter } from "../hooks/use-command-center";
import { useContinue } from "../hooks/use-continue";
import { useFollowScroll } from "../hooks/use-follow-scroll";
import { useNow } from "../hooks/use-now";
import { useThreadTranscript } from "../hooks/use-thread-transcript";
import { connectionView } from "../view-models/dashboard";
import { envelopeHeaderView, issueMessagesView, reproductionLinkView, threadStatusView, threadTiming } from "../view-models/thread";
import { threadHeader, transcriptItems } from "../view-models/transcript";

export function ThreadPage() {
  const { session = "" } = useParams();
  if (!isSessionName(session)) {
    return (
      <div className="page" data-testid="thread-page">
        <AppHeader back />
        <main className="thread">
          <ErrorState title="No such thread" detail={`“${session}” is not a thread name (they look like owner-repo-123).`} />
        </main>
      </div>
    );
  }
  // Keyed: every piece of state (socket, feed, continue answer) starts afresh per thread.
  return <ThreadView key={session} session={session} />;
}

function ThreadView(props: { session: string }) {
  const { session } = props;
  const transcript = useThreadTranscript(session);
  const commandCenter = useCommandCenter();
  const continuing = useContinue();
  const now = useNow(5_000);

  const summary = commandCenter.threads.find((thread) => thread.session === session);
  const header = useMemo(() => threadHeader(transcript.messages), [transcript.messages]);
  const items = useMemo(() => transcriptItems(transcript.messages, transcript.streaming), [transcript.messages, transcript.streaming]);
  const status = threadStatusView(summary, {
    streaming: transcript.streaming,
    turnError: transcript.turnError,
    recovering: transcript.recovering,
    hasMessages: transcript.messages.length > 0
  });
  const timing = threadTiming(summary, header, now);
  const issueMessages = issueMessagesView(summary);
  const reproduction = reproductionLinkView(summary);
  const connection = connectionView(transcript.socket, transcript.socket !== "open", transcript.error !== null);
  const result = continuing.results.get(session);
  useFollowScroll(transcript.streaming, items);

  let body;
  if (transcript.loading) body = <Loading what="the transcript" />;
  else if (transcript.error !== null) body = <ErrorState title="The transcript could not be loaded" detail={transcript.error} />;
  else if (items.length === 0) {
    body = (
      <Empty title="No messages yet" testId="transcript-empty">
        {status.status === "running" || status.status === "recovering" ? "The run has started; its first words appear here as they stream." : "This thread has no runs yet."}
      </Empty>
    );
  } else body = <TranscriptView items={items} now={now} />;

  return (
    <div className="page" data-testid="thread-page" data-session={session}>
      <AppHeader back connection={connection}>
        <span className="mono">{session}</span>
      </AppHeader>
      <main className="thread">
        <HealthBanner />
        <section className="thread-status" aria-label="Status">
          <StatusBadge label={status.label} tone={status.tone} testId="thread-status" status={status.status} title={status.title} />
          <ul className="timing" data-testid="thread-timing">
            {timing.map((item) => (
              <li key={item.id} title={item.title} data-timing={item.id}>
                <span className="muted">{item.label}</span> {item.value}
              </li>
            ))}
          </ul>
          {status.canContinue ? (
            <ContinueButton session={session} pending={continuing.pending.has(session)} onContinue={continuing.continueThread} />
          ) : null}
        </section>
        {reproduction ? <ReproductionLink view={reproduction} /> : null}
        {issueMessages ? <IssueMessages view={issueMessages} /> : null}
        {result ? <ContinueResult session={session} outcome={result} onDismiss={() => continuing.dismiss(session)} /> : null}
        {status.detail ? (
          <p className="banner tone-bad" data-testid="thread-error">
            {status.detail}
          </p>
        ) : null}
        {transcript.refused ? (
          <p className="banner tone-warn">The server refused a “{transcript.refused}” frame: this view is read-only.</p>
        ) : null}
        {header.envelope ? <EnvelopeHeader view={envelopeHeaderView(header.envelope, now)} runs={header.runs} /> : null}
        {body}
      </main>
    </div>
  );
}
