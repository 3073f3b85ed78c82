/** The thread list, grouped by repository (each group's name linking its record), each row linking to the live thread view. */
import { useMemo, useState } from "react";
import { Link } from "react-router";
import type { ThreadSummary } from "../../shared/command-center";
import { fieldValue } from "../browser";
import { formatCount } from "../view-models/format";
import { REPOSITORIES_HREF, repositoryHref } from "../view-models/repository-href";
import { filterThreads, groupByRepo, threadRowView } from "../view-models/threads";
import { Empty } from "./state-views";
import { StatusBadge } from "./status-badge";

export function ThreadSidebar(props: {
  threads: ThreadSummary[];
  total: number;
  now: number;
  hasMore: boolean;
  loadingMore: boolean;
  onLoadMore: () => void;
}) {
  const [query, setQuery] = useState("");
  const groups = useMemo(() => groupByRepo(filterThreads(props.threads, query)), [props.threads, query]);
  return (
    <aside className="sidebar" id="cc-threads" aria-label="Threads" data-testid="thread-sidebar">
      <div className="sidebar-head">
        <h2>
          Threads <span className="muted">{formatCount(props.total)}</span>
        </h2>
        <Link to={REPOSITORIES_HREF} className="small" data-testid="repositories-link">
          Each repository's record
        </Link>
        <input
          type="search"
          className="filter"
          placeholder="Filter: repo, #issue, status, @who"
          value={query}
          onChange={(event) => setQuery(fieldValue(event.target))}
          aria-label="Filter threads"
          data-testid="thread-filter"
        />
      </div>
      {props.threads.length === 0 ? (
        <Empty title="No threads yet" testId="threads-empty">
          A thread appears here the moment a run is dispatched: comment <code>@agent-think …</code> on an issue, or run{" "}
          <code>npm run dispatch</code> locally.
        </Empty>
      ) : groups.length === 0 ? (
        <Empty title="No thread matches the filter" testId="threads-no-match" />
      ) : (
        groups.map((group) => (
          <section key={group.repo} className="repo-group" data-testid="repo-group" data-repo={group.repo}>
            <h3 className="repo-name" title={group.summary}>
              <Link to={repositoryHref(group.repo)} data-testid="repo-record-link" title={`${group.repo}'s record`}>
                {group.repo}
              </Link>
              <span className="muted small">{group.summary}</span>
            </h3>
            <ul className="thread-list">
              {group.threads.map((thread) => {
                const row = threadRowView(thread, props.now);
                return (
                  <li key={row.session} className="thread-row" data-testid="thread-row" data-session={row.session} data-status={row.status}>
                    <Link to={row.href} className="thread-link">
                      <span className="thread-line">
                        <span className="thread-title">{row.title}</span>
                        <StatusBadge label={row.statusLabel} tone={row.tone} testId="thread-status" status={row.status} title={row.statusTitle} />
                      </span>
                      <span className="thread-instruction">{row.instruction}</span>
                      <span className="thread-meta">
                        <time title={row.whenTitle} data-testid="thread-time">
                          {row.when}
                        </time>
                        {row.requestedBy ? <span>{row.requestedBy}</span> : null}
                        <span>{row.counters}</span>
                        {row.recoveries ? <span data-testid="thread-recoveries">{row.recoveries}</span> : null}
                        {row.cost ? (
                          <span title={row.cost.title} data-testid="thread-cost">
                            {row.cost.text}
                          </span>
                        ) : null}
                        {row.continuedBy ? <span data-testid="continued-by">{row.continuedBy}</span> : null}
                        {row.failedAgain ? <span className="failed-again-text">{row.failedAgain}</span> : null}
                      </span>
                    </Link>
                  </li>
                );
              })}
            </ul>
          </section>
        ))
      )}
      {props.hasMore ? (
        <button type="button" className="button load-more" onClick={props.onLoadMore} disabled={props.loadingMore} data-testid="load-more">
          {props.loadingMore ? "Loading…" : `Load older threads (${formatCount(props.threads.length)} of ${formatCount(props.total)})`}
        </button>
      ) : null}
    </aside>
  );
}
