/**
 * `/repositories`: every repository's record over the window, one row each,
 * linking its own page; `/repositories/:owner/:name`: one repository's
 * figures and its runs by outcome. Both are tables with captions, under the
 * page's one heading. What each figure means: docs/dashboard.md, "The
 * repository view".
 */
import { useMemo } from "react";
import { Link, useParams } from "react-router";
import { AppHeader } from "../components/app-header";
import { Empty, ErrorState, Loading } from "../components/state-views";
import { useNow } from "../hooks/use-now";
import { useRepositories, type RepositoriesState } from "../hooks/use-repositories";
import { findRepository, repositoryDetail, repositoryRows, type FigureCell } from "../view-models/repositories";
import { REPOSITORIES_HREF } from "../view-models/repository-href";

export function RepositoriesPage() {
  const { owner, name } = useParams();
  const data = useRepositories();
  const one = owner !== undefined && name !== undefined ? `${owner}/${name}` : undefined;
  return (
    <div className="page" data-testid="repositories-page" data-repo={one}>
      <AppHeader back>
        <h1 className={one ? "mono" : undefined} data-testid="repositories-title">
          {one ?? "Repositories"}
        </h1>
        {data.records ? <span className="muted small">last {data.records.windowDays} days</span> : null}
      </AppHeader>
      <main className="thread records">{one ? <OneRepository owner={owner!} name={name!} data={data} /> : <AllRepositories data={data} />}</main>
    </div>
  );
}

function Cell(props: { cell: FigureCell; testId?: string }) {
  const { cell } = props;
  return (
    <span className={cell.kind ? `cost cost-${cell.kind}` : undefined} title={cell.title} data-testid={props.testId}>
      {cell.text}
    </span>
  );
}

/** Loading, or the error when there is nothing to show; null once there are records. */
function pending(data: RepositoriesState) {
  if (data.records) return null;
  if (data.loading) return <Loading what="the repositories' records" />;
  return <ErrorState title="The repositories' records could not be loaded" detail={data.error ?? "no answer"} onRetry={data.refresh} />;
}

function AllRepositories(props: { data: RepositoriesState }) {
  const { records } = props.data;
  const rows = useMemo(() => (records ? repositoryRows(records) : []), [records]);
  if (!records) return pending(props.data);
  if (rows.length === 0) {
    return (
      <Empty title={`No run in ${records.windowDays} days`} testId="repositories-empty">
        A repository is listed here once a run is dispatched on it.
      </Empty>
    );
  }
  return (
    <section className="panel records-panel">
      <table className="records-table" data-testid="repositories-table">
        <caption>Each repository's runs, pull requests and costs over the last {records.windowDays} days</caption>
        <thead>
          <tr>
            <th scope="col">Repository</th>
            <th scope="col">Runs</th>
            <th scope="col">Reproduction rate</th>
            <th scope="col">Pull requests opened</th>
            <th scope="col">Merged</th>
            <th scope="col">Closed unmerged</th>
            <th scope="col">Median time to first response</th>
            <th scope="col">Cost per run</th>
            <th scope="col">Cost per merged pull request</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.repo} data-testid="repository-row" data-repo={row.repo}>
              <th scope="row">
                <Link to={row.href}>{row.repo}</Link>
              </th>
              <td data-figure="runs"><Cell cell={row.runs} /></td>
              <td data-figure="reproduction-rate"><Cell cell={row.reproductionRate} /></td>
              <td data-figure="pull-requests-opened"><Cell cell={row.opened} /></td>
              <td data-figure="pull-requests-merged"><Cell cell={row.merged} /></td>
              <td data-figure="pull-requests-closed"><Cell cell={row.closedUnmerged} /></td>
              <td data-figure="first-response"><Cell cell={row.firstResponse} /></td>
              <td data-figure="cost-per-run"><Cell cell={row.costPerRun} /></td>
              <td data-figure="cost-per-merged"><Cell cell={row.costPerMergedPullRequest} /></td>
            </tr>
          ))}
        </tbody>
      </table>
      {props.data.error ? (
        <p className="banner tone-warn" role="status">
          Updates paused: {props.data.error}
        </p>
      ) : null}
    </section>
  );
}

function OneRepository(props: { owner: string; name: string; data: RepositoriesState }) {
  const { records } = props.data;
  const now = useNow();
  const record = records ? findRepository(records, props.owner, props.name) : undefined;
  const view = useMemo(() => (record ? repositoryDetail(record, now) : null), [record, now]);
  if (!records) return pending(props.data);
  const back = (
    <Link to={REPOSITORIES_HREF} data-testid="all-repositories">
      All repositories
    </Link>
  );
  if (!view) {
    return (
      <Empty title={`No run on ${props.owner}/${props.name} in ${records.windowDays} days`} testId="repository-not-found">
        {back}
      </Empty>
    );
  }
  return (
    <>
      <section className="panel records-panel">
        <table className="records-table records-figures" data-testid="repository-figures">
          <caption>Figures over the last {records.windowDays} days</caption>
          <tbody>
            {view.figures.map((figure) => (
              <tr key={figure.id} data-figure={figure.id}>
                <th scope="row">{figure.label}</th>
                <td>
                  <Cell cell={figure.value} testId="figure-value" />
                  {figure.detail ? <span className="muted small records-detail">{figure.detail}</span> : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section className="panel records-panel">
        {view.outcomes.length === 0 ? (
          <p className="muted" data-testid="repository-no-outcomes">
            No run has reported an outcome yet.
          </p>
        ) : (
          <table className="records-table" data-testid="repository-outcomes">
            <caption>Runs by the outcome they reported</caption>
            <thead>
              <tr>
                <th scope="col">Outcome</th>
                <th scope="col">Runs</th>
              </tr>
            </thead>
            <tbody>
              {view.outcomes.map((row) => (
                <tr key={row.outcome} data-outcome={row.outcome}>
                  <th scope="row">{row.label}</th>
                  <td>{row.runs}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <p>{back}</p>
    </>
  );
}
