/**
 * `/`: the configuration health banner when something is wrong, metric
 * tiles (spend today and over 7 days among them), the threads needing
 * attention (with Continue), the runs in flight, what the 7 days cost per
 * repository and the most expensive runs, and the thread sidebar grouped by
 * repo. On a phone the two halves are tabs (Overview, Threads), so the
 * thread list is a tap away rather than below every panel.
 */
import { useMemo, useState, type ReactNode } from "react";
import { AppHeader } from "../components/app-header";
import { AttentionList } from "../components/attention-list";
import { HealthBanner } from "../components/health-banner";
import { MetricTiles } from "../components/metric-tiles";
import { RunningList } from "../components/running-list";
import { SpendPanel } from "../components/spend-panel";
import { ErrorState, Loading } from "../components/state-views";
import { ThreadSidebar } from "../components/thread-sidebar";
import { useCommandCenter } from "../hooks/use-command-center";
import { useContinue } from "../hooks/use-continue";
import { useNow } from "../hooks/use-now";
import { connectionView } from "../view-models/dashboard";
import { formatCount, formatRelativeTime, formatTimestamp } from "../view-models/format";
import { metricTiles } from "../view-models/metrics";
import { reporterSpendView, spendTiles, spendView } from "../view-models/spend";
import { needsAttention, needsHuman, runningNow } from "../view-models/threads";

type Tab = "overview" | "threads";

export function CommandCenterPage() {
  const data = useCommandCenter();
  const now = useNow();
  const continuing = useContinue(data.polling ? data.refresh : undefined);
  const [tab, setTab] = useState<Tab>("overview");
  const tiles = useMemo(() => [...metricTiles(data.metrics), ...spendTiles(data.metrics)], [data.metrics]);
  const spend = useMemo(() => spendView(data.metrics, now), [data.metrics, now]);
  const reporterSpend = useMemo(() => reporterSpendView(data.metrics), [data.metrics]);
  const attention = useMemo(() => needsAttention(data.threads, continuing.results.keys()), [data.threads, continuing.results]);
  const running = useMemo(() => runningNow(data.threads), [data.threads]);
  const connection = connectionView(data.socket, data.polling, data.pollError !== null || data.error !== null);
  const trouble = attention.filter(needsHuman).length;

  let body;
  if (data.loading) body = <Loading what="the command center" />;
  else if (data.error !== null) {
    body = <ErrorState title="The command center could not be loaded" detail={data.error} onRetry={data.refresh} />;
  } else {
    body = (
      <>
        <div className="cc-tabs" role="tablist" aria-label="Command center" data-testid="cc-tabs">
          <TabButton tab="overview" current={tab} onSelect={setTab}>
            Overview{trouble > 0 ? <span className="tab-count tone-bad">{formatCount(trouble)}</span> : null}
          </TabButton>
          <TabButton tab="threads" current={tab} onSelect={setTab}>
            Threads <span className="tab-count">{formatCount(data.total)}</span>
          </TabButton>
        </div>
        <div className={`cc-layout tab-${tab}`}>
          <div className="cc-main" id="cc-overview" role="tabpanel">
            <MetricTiles tiles={tiles} />
            {data.pollError ? (
              <p className="banner tone-warn" role="status" data-testid="poll-error">
                Updates paused: {data.pollError}. Retrying…
              </p>
            ) : null}
            <AttentionList threads={attention} now={now} continuing={continuing} />
            <RunningList threads={running} now={now} />
            <SpendPanel view={spend} reporters={reporterSpend} />
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
      </>
    );
  }

  return (
    <div className="page" data-testid="command-center">
      <AppHeader connection={connection}>
        <h1>Command center</h1>
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

/** One of the phone layout's two tabs (hidden on wider screens, where both halves show side by side). */
function TabButton(props: { tab: Tab; current: Tab; onSelect: (tab: Tab) => void; children: ReactNode }) {
  const selected = props.tab === props.current;
  return (
    <button
      type="button"
      role="tab"
      className="cc-tab"
      aria-selected={selected}
      aria-controls={props.tab === "overview" ? "cc-overview" : "cc-threads"}
      data-testid={`tab-${props.tab}`}
      onClick={() => props.onSelect(props.tab)}
    >
      {props.children}
    </button>
  );
}
