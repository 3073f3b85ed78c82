/**
 * The private registries a run's sandbox was given a credential for: its
 * short line ("private source: npm.acme.example"), opening to every host
 * when the line names only some. Under a run's header (components/run-list.tsx).
 */
import { PRIVATE_SOURCES_TITLE, type PrivateSourcesView } from "../view-models/private-sources";

export function PrivateSources(props: { view: PrivateSourcesView }) {
  const { view } = props;
  if (!view.more) {
    return (
      <div className="run-private-sources" data-testid="run-private-sources" data-count={view.hosts.length} title={PRIVATE_SOURCES_TITLE}>
        {view.text}
      </div>
    );
  }
  return (
    <details className="run-private-sources" data-testid="run-private-sources" data-count={view.hosts.length}>
      <summary title={PRIVATE_SOURCES_TITLE}>{view.text}</summary>
      <ul className="run-private-sources-list" data-testid="run-private-sources-list">
        {view.hosts.map((host) => (
          <li key={host} className="mono">
            {host}
          </li>
        ))}
      </ul>
    </details>
  );
}
