/**
 * What the egress gateway refused a run: its short line ("2 requests
 * blocked: evil.example"), opening to each host and method ("POST
 * api.github.com × 3"). Under a run's header (components/run-list.tsx).
 */
import { BLOCKED_TITLE, type BlockedView } from "../view-models/blocked";

export function BlockedRequests(props: { view: BlockedView }) {
  const { view } = props;
  return (
    <details className="run-blocked" data-testid="run-blocked" data-total={view.total}>
      <summary title={BLOCKED_TITLE}>{view.text}</summary>
      <ul className="run-blocked-list" data-testid="run-blocked-list">
        {view.entries.map((entry) => (
          <li key={entry.key} className="mono">
            {entry.text}
          </li>
        ))}
      </ul>
    </details>
  );
}
