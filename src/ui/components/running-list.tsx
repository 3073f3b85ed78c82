/** The runs in flight right now (recovering ones flagged, continued ones with who continued them), each linking to its live thread view. */
import { Link } from "react-router";
import type { ThreadSummary } from "../../shared/command-center";
import { threadRowView } from "../view-models/threads";
import { Empty } from "./state-views";
import { StatusBadge } from "./status-badge";

export function RunningList(props: { threads: ThreadSummary[]; now: number }) {
  return (
    <section className="panel" aria-label="Running now" data-testid="running">
      <h2>
        Running now <span className="muted">{props.threads.length}</span>
      </h2>
      {props.threads.length === 0 ? (
        <Empty title="Nothing running" testId="running-empty">
          A dispatched run shows up here within a second, and streams live in its thread view.
        </Empty>
      ) : (
        <ul className="running-list">
          {props.threads.map((thread) => {
            const row = threadRowView(thread, props.now);
            return (
              <li key={row.session} className="running-item" data-testid="running-item" data-session={row.session} data-status={row.status}>
                <span className={`dot tone-${row.tone}`} aria-hidden="true" />
                <Link to={row.href} className="running-title">
                  {row.repo} {row.title}
                </Link>
                <span className="running-meta muted small">
                  {row.status === "recovering" ? (
                    <StatusBadge label={row.statusLabel} tone={row.tone} status={row.status} title={row.statusTitle} />
                  ) : null}
                  <span>running for {row.runningFor}</span>
                  <span title={row.whenTitle}>active {row.when}</span>
                  <span>{row.counters}</span>
                  {row.recoveries ? <span data-testid="running-recoveries">{row.recoveries}</span> : null}
                  {row.continuedBy ? <span data-testid="continued-by">{row.continuedBy}</span> : null}
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
