/**
 * `/thread/:session`: one thread live: the health banner when something is
 * wrong, the status, timing and cost, the issue's reproduction page and
 * what the run posted on the issue, the latest run's envelope, then its
 * runs (components/run-list.tsx), from the transcript joined with the
 * command center's thread detail; a session it does not know is the
 * not-found page. What each part shows: docs/dashboard.md, "The thread page".
 */
import { useMemo } from "react";
import { useParams } from "react-router";
import { isSessionName } from "../../shared/session-name";
import { mergeThreads } from "../view-models/threads";
import { AppHeader } from "../components/app-header";
import { ContinueButton, ContinueResult } from "../components/continue-button";
import { EnvelopeHeader } from "../components/envelope-header";
import { HealthBanner } from "../components/health-banner";
import { IssueMessages } from "../components/issue-messages";
import { ReproductionLink } from "../components/reproduction-link";
import { LATEST_RUN_END, RunList } from "../components/run-list";
import { Empty, ErrorState, Loading } from "../components/state-views";
import { StatusBadge } from "../components/status-badge";
import { useCommandCenter } from "../hooks/use-command-center";
import { useContinue } from "../hooks/use-continue";
import { useFollowScroll } from "../hooks/use-follow-scroll";
import { useNow } from "../hooks/use-now";
import { useThreadDetail } from "../hooks/use-thread-detail";
import { useThreadTranscript } from "../hooks/use-thread-transcript";
import { failedAgainNote } from "../view-models/continue";
import { connectionView } from "../view-models/dashboard";
import { headerStatus, runViews, threadCostView } from "../view-models/runs";
import { envelopeHeaderView, issueMessagesView, reproductionLinkView, threadStatusView, threadTiming } from "../view-models/thread";
import { threadHeader, transcriptItems } from "../view-models/transcript";
import { NotFoundPage } from "./not-found-page";

export function ThreadPage() {
  const { session = "" } = useParams();
  if (!isSessionName(session)) {
    return (
      <div className="page" data-testid="thread-page">
        <AppHeader back />
        <main className="thread">
          <ErrorState title="No such thread" heading detail={`“${session}” is not a thread name (they look like owner-repo-123).`} />
        </main>
      </div>
    );
  }
  // Keyed: every piece of state (socket, feed, detail, continue answer) starts afresh per thread.
  return <ThreadView key={session} session={session} />;
}

function ThreadView(props: { session: string }) {
  const { session } = props;
  const transcript = useThreadTranscript(session);
  const commandCenter = useCommandCenter();
  const continuing = useContinue();
  const now = useNow(5_000);

  const listed = commandCenter.threads.find((thread) => thread.session === session);
  const header = useMemo(() => threadHeader(transcript.messages), [transcript.messages]);
  const items = useMemo(() => transcriptItems(transcript.messages, transcript.streaming), [transcript.messages, transcript.streaming]);
  // Read the detail again whenever the thread or its transcript moves on.
  const changeKey = [listed?.submissionId, listed?.status, listed?.stale, listed?.lastActivityAt, listed?.blockedRequests, header.runs, header.toolCalls, transcript.streaming].join("|");
  const active = transcript.streaming || (listed !== undefined && (listed.status === "running" || listed.status === "recovering"));
  const thread = useThreadDetail(session, changeKey, active);
  const detail = thread.detail;
  // The fresher of the command center's summary and the detail's.
  const summary = useMemo(() => mergeThreads(listed ? [listed] : [], detail ? [detail.thread] : [])[0], [listed, detail]);
  const latestRun = detail?.runs[0];

  const live = {
    streaming: transcript.streaming,
    turnError: transcript.turnError,
    recovering: transcript.recovering,
    hasMessages: transcript.messages.length > 0
  };
  const status = headerStatus(threadStatusView(summary, live), latestRun, summary, transcript.streaming);
  const runs = useMemo(
    () => runViews({ items, runs: detail?.runs ?? null, thread: summary, header: status, now }),
    [items, detail, summary, status, now]
  );
  const cost = threadCostView(summary, detail?.runs ?? null);
  const failedAgain = summary ? failedAgainNote(summary) : undefined;
  const timing = threadTiming(summary, header, now);
  const issueMessages = issueMessagesView(summary);
  const reproduction = reproductionLinkView(summary);
  const connection = connectionView(transcript.socket, transcript.socket !== "open", transcript.error !== null);
  const result = continuing.results.get(session);
  useFollowScroll(transcript.streaming, items, `#${LATEST_RUN_END}`);

  // Unknown to the command center, and nothing in a transcript either: not found.
  const transcriptSettled = !transcript.loading;
  if (thread.notFound && !summary && transcriptSettled && transcript.messages.length === 0) {
    return (
      <NotFoundPage title="No such thread" session={session}>
        The command center has no thread <span className="mono">{session}</span>: no run was ever dispatched on that issue here.
      </NotFoundPage>
    );
  }

  let body;
  // The first paint waits for both the transcript and the detail (one quick read), so runs never show without their outcome.
  if (transcript.loading || !thread.settled) body = <Loading what="the thread" />;
  else if (transcript.error !== null && runs.length === 0) body = <ErrorState title="The transcript could not be loaded" detail={transcript.error} />;
  else if (runs.length === 0) {
    body = (
      <Empty title="No messages yet" testId="transcript-empty">
        {status.status === "running" || status.status === "recovering" ? "The run has started; its first words appear here as they stream." : "This thread has no runs yet."}
      </Empty>
    );
  } else body = <RunList runs={runs} now={now} />;

  return (
    <div className="page" data-testid="thread-page" data-session={session}>
      <AppHeader back connection={connection}>
        <h1 className="mono topbar-session" data-testid="thread-session">
          {session}
        </h1>
      </AppHeader>
      <main className="thread">
        <HealthBanner />
        <section className="thread-status" aria-label="Status">
          <StatusBadge label={status.label} tone={status.tone} testId="thread-status" status={status.status} title={status.title} />
          {failedAgain ? (
            <span className="failed-again" data-testid="failed-again">
              {failedAgain}
            </span>
          ) : null}
          <ul className="timing" data-testid="thread-timing">
            {timing.map((item) => (
              <li key={item.id} title={item.title} data-timing={item.id}>
                <span className="muted">{item.label}</span> {item.value}
              </li>
            ))}
            {cost ? (
              <li data-timing="cost" data-testid="thread-cost" title={cost.total.title}>
                <span className="muted">cost</span> <span data-testid="thread-cost-total">{cost.total.text}</span>
                {cost.latest ? (
                  <span className="muted" title={cost.latest.title}>
                    {" "}
                    (latest run <span data-testid="thread-cost-latest">{cost.latest.text}</span>)
                  </span>
                ) : null}
              </li>
            ) : null}
          </ul>
          {status.canContinue ? (
            <ContinueButton session={session} submissionId={summary?.submissionId} pending={continuing.pending.has(session)} onContinue={continuing.continueThread} />
          ) : null}
        </section>
        {reproduction ? <ReproductionLink view={reproduction} /> : null}
        {issueMessages ? <IssueMessages view={issueMessages} /> : null}
        {result ? <ContinueResult session={session} track={result} thread={summary} showError={!status.detail} onDismiss={() => continuing.dismiss(session)} /> : null}
        {status.detail ? (
          <p className="banner tone-bad" data-testid="thread-error">
            {status.detail}
          </p>
        ) : null}
        {transcript.refused ? (
          <p className="banner tone-warn">The server refused a “{transcript.refused}” frame: this view is read-only.</p>
        ) : null}
        {header.envelope ? (
          <EnvelopeHeader
            view={envelopeHeaderView(header.envelope, now)}
            runs={header.runs}
            continued={header.envelope.continuationOf ? (runs[0]?.who.startsWith("continued") ? runs[0].who : "continued from the dashboard") : undefined}
          />
        ) : null}
        {body}
      </main>
    </div>
  );
}
