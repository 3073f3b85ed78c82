/** What the last 7 days cost: per repository, and the most expensive runs, each linking its thread; today's reporter-tier runs apart. */
import { Link } from "react-router";
import { REPORTER_SPEND_TITLE, type RepoSpendRow, type SpendView } from "../view-models/spend";
import type { CostView } from "../view-models/format";
import { Empty } from "./state-views";

function Cost(props: { cost: CostView; testId?: string }) {
  return (
    <span className={`cost cost-${props.cost.kind}`} title={props.cost.title} data-testid={props.testId}>
      {props.cost.text}
    </span>
  );
}

/** One repository's line: its name, how many runs, what they cost. */
function RepoRow(props: { row: RepoSpendRow; testId: string; costTestId: string }) {
  const { row } = props;
  return (
    <li className="spend-row" data-testid={props.testId} data-repo={row.repo}>
      <span className="spend-name">{row.repo}</span>
      <span className="muted small">{row.runs}</span>
      <Cost cost={row.cost} testId={props.costTestId} />
    </li>
  );
}

export function SpendPanel(props: { view: SpendView; reporters?: readonly RepoSpendRow[] }) {
  const { byRepo, costliest } = props.view;
  const reporters = props.reporters ?? [];
  return (
    <section className="panel" aria-label="Spend" data-testid="spend">
      <h2>
        Spend <span className="muted">7 days</span>
      </h2>
      {byRepo.length === 0 && costliest.length === 0 ? (
        <Empty title="No cost recorded in 7 days" testId="spend-empty">
          A run's cost shows here once it ends: its usage priced per model.
        </Empty>
      ) : (
        <div className="spend-grid">
          <div>
            <h3 className="spend-head muted small">By repository</h3>
            {byRepo.length === 0 ? <p className="muted small spend-none">No repository has priced runs.</p> : null}
            <ul className="spend-list" data-testid="spend-by-repo">
              {byRepo.map((row) => (
                <RepoRow key={row.repo} row={row} testId="spend-repo" costTestId="spend-repo-cost" />
              ))}
            </ul>
          </div>
          <div>
            <h3 className="spend-head muted small">Most expensive runs</h3>
            {costliest.length === 0 ? (
              <p className="muted small spend-none" data-testid="costliest-none">
                No priced run above $0.00.
              </p>
            ) : null}
            <ul className="spend-list" data-testid="costliest-runs">
              {costliest.map((run) => (
                <li key={run.key} className="spend-row" data-testid="costly-run">
                  <Link to={run.href} className="spend-name">
                    {run.label}
                  </Link>
                  <time className="muted small" title={run.whenTitle}>
                    {run.when}
                  </time>
                  <Cost cost={run.cost} testId="costly-run-cost" />
                </li>
              ))}
            </ul>
          </div>
          {reporters.length > 0 ? (
            <div data-testid="reporter-spend">
              <h3 className="spend-head muted small" title={REPORTER_SPEND_TITLE}>
                Reporter runs today
              </h3>
              <ul className="spend-list">
                {reporters.map((row) => (
                  <RepoRow key={row.repo} row={row} testId="reporter-spend-repo" costTestId="reporter-spend-cost" />
                ))}
              </ul>
            </div>
          ) : null}
        </div>
      )}
    </section>
  );
}
