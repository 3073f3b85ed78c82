/**
 * The configuration health banner at the top of a page: red with
 * role="alert" when a check blocks runs (the warnings beside them folded
 * under it, so a phone still sees the page), red and folded when a safety
 * control is off on purpose (EGRESS=open), amber and folded when there
 * are only warnings, nothing when all is well. Each line names the check,
 * what was found and the one-line fix.
 */
import { useHealth } from "../hooks/use-health";
import { healthBannerView, type HealthBannerItem } from "../view-models/health";

export function HealthBanner() {
  const view = healthBannerView(useHealth());
  if (view === null) return null;
  const lines = (items: HealthBannerItem[]) => (
    <ul className="health-list">
      {items.map((item) => (
        <HealthLine key={item.id} item={item} />
      ))}
    </ul>
  );
  const list = lines(view.items);
  if (view.status === "block") {
    const blocking = view.items.filter((item) => item.status === "block");
    const warnings = view.items.filter((item) => item.status !== "block");
    return (
      <section className={`banner health-banner tone-${view.tone}`} role="alert" data-testid="health-banner" data-status={view.status}>
        <strong className="health-title">{view.title}</strong>
        {lines(blocking)}
        {warnings.length > 0 ? (
          <details className="health-more">
            <summary>
              and {warnings.length} warning{warnings.length === 1 ? "" : "s"}
            </summary>
            {lines(warnings)}
          </details>
        ) : null}
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
      <span className={`badge tone-${item.status === "block" || item.unsafe ? "bad" : "warn"}`}>{item.status === "block" ? "blocks runs" : item.unsafe ? "unsafe" : "warning"}</span>{" "}
      <strong>{item.label}</strong>: {item.detail}
      {item.fix ? <div className="health-fix">Fix: {item.fix}</div> : null}
    </li>
  );
}
