/** The runs in flight right now, each linking to its live thread view. */
import { Link } from "react-router";
import type { ThreadSummary } from "../../shared/command-center";
import { threadRowView } from "../view-models/threads";
import { Empty } from "./state-views";

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
              <li key={row.session} className="running-item" data-testid="running-item" data-session={row.session}>
                <span className="dot tone-info" aria-hidden="true" />
                <Link to={row.href} className="running-title">
                  {row.repo} {row.title}
                </Link>
                <span className="running-meta muted small">
                  <span>running for {row.runningFor}</span>
                  <span title={row.whenTitle}>active {row.when}</span>
                  <span>{row.counters}</span>
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
