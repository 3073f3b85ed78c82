/** The command center's figures, one tile each. */
import type { MetricTile } from "../view-models/metrics";

export function MetricTiles(props: { tiles: MetricTile[] }) {
  return (
    <section className="tiles" aria-label="Metrics" data-testid="metric-tiles">
      {props.tiles.map((tile) => (
        <div key={tile.id} className={`tile tone-${tile.tone}`} data-testid={`metric-${tile.id}`} data-metric={tile.id} title={tile.title}>
          <div className="tile-label">{tile.label}</div>
          <div className="tile-value" data-testid={`metric-${tile.id}-value`}>
            {tile.value}
          </div>
          <div className="tile-detail">{tile.detail}</div>
        </div>
      ))}
    </section>
  );
}
