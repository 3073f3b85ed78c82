/**
 * The configuration health banner at the top of a page: red with
 * role="alert" when a check blocks runs, amber and folded when there are
 * only warnings, nothing when all is well. Each line names the check, what
 * was found and the one-line fix.
 */
import { useHealth } from "../hooks/use-health";
import { healthBannerView, type HealthBannerItem } from "../view-models/health";

export function HealthBanner() {
  const view = healthBannerView(useHealth());
  if (view === null) return null;
  const list = (
    <ul className="health-list">
      {view.items.map((item) => (
        <HealthLine key={item.id} item={item} />
      ))}
    </ul>
  );
  if (view.status === "block") {
    return (
      <section className={`banner health-banner tone-${view.tone}`} role="alert" data-testid="health-banner" data-status={view.status}>
        <strong className="health-title">{view.title}</strong>
        {list}
      </section>
    );
  }
  return (
    <details className={`banner health-banner tone-${view.tone}`} data-testid="health-banner" data-status={view.status}>
      <summary className="health-title">{view.title}</summary>
      {list}
    </details>
  );
}

function HealthLine(props: { item: HealthBannerItem }) {
  const { item } = props;
  return (
    <li data-testid="health-check" data-check={item.id} data-status={item.status}>
      <span className={`badge tone-${item.status === "block" ? "bad" : "warn"}`}>{item.status === "block" ? "blocks runs" : "warning"}</span>{" "}
      <strong>{item.label}</strong>: {item.detail}
      {item.fix ? <div className="health-fix">Fix: {item.fix}</div> : null}
    </li>
  );
}
