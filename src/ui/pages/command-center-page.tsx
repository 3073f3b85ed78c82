/**
 * `/`: the configuration health banner when something is wrong, metric
 * tiles, the threads needing attention (with Continue), and the thread
 * sidebar grouped by repo.
 */
import { useMemo } from "react";
import { AppHeader } from "../components/app-header";
import { AttentionList } from "../components/attention-list";
import { HealthBanner } from "../components/health-banner";
import { MetricTiles } from "../components/metric-tiles";
import { RunningList } from "../components/running-list";
import { ErrorState, Loading } from "../components/state-views";
import { ThreadSidebar } from "../components/thread-sidebar";
import { useCommandCenter } from "../hooks/use-command-center";
import { useContinue } from "../hooks/use-continue";
import { useNow } from "../hooks/use-now";
import { connectionView } from "../view-models/dashboard";
import { formatRelativeTime, formatTimestamp } from "../view-models/format";
import { metricTiles } from "../view-models/metrics";
import { needsAttention, runningNow } from "../view-models/threads";

export function CommandCenterPage() {
  const data = useCommandCenter();
  const now = useNow();
  const continuing = useContinue(data.polling ? data.refresh : undefined);
  const tiles = useMemo(() => metricTiles(data.metrics), [data.metrics]);
  const attention = useMemo(() => needsAttention(data.threads, continuing.results.keys()), [data.threads, continuing.results]);
  const running = useMemo(() => runningNow(data.threads), [data.threads]);
  const connection = connectionView(data.socket, data.polling, data.pollError !== null || data.error !== null);

  let body;
  if (data.loading) body = <Loading what="the command center" />;
  else if (data.error !== null) {
    body = <ErrorState title="The command center could not be loaded" detail={data.error} onRetry={data.refresh} />;
  } else {
    body = (
      <div className="cc-layout">
        <div className="cc-main">
          <MetricTiles tiles={tiles} />
          {data.pollError ? (
            <p className="banner tone-warn" role="status" data-testid="poll-error">
              Updates paused: {data.pollError}. Retrying…
            </p>
          ) : null}
          <AttentionList threads={attention} now={now} continuing={continuing} />
          <RunningList threads={running} now={now} />
        </div>
        <ThreadSidebar
          threads={data.threads}
          total={data.total}
          now={now}
          hasMore={data.hasMore}
          loadingMore={data.loadingMore}
          onLoadMore={data.loadMore}
        />
      </div>
    );
  }

  return (
    <div className="page" data-testid="command-center">
      <AppHeader connection={connection}>
        <span>Command center</span>
        {data.asOf !== null ? (
          <span className="muted small" title={formatTimestamp(data.asOf)}>
            updated {formatRelativeTime(data.asOf, now)}
          </span>
        ) : null}
      </AppHeader>
      <main className="cc">
        <HealthBanner />
        {body}
      </main>
    </div>
  );
}
