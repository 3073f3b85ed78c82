/**
 * A thread's runs, the latest first and open: its status (the header's),
 * cost, the model that served it, who asked or continued it, whether it was a scripted demonstration or a reporter-tier run,
 * what the egress gateway refused it, the private registries it used, and
 * its transcript. Each older run below is one line (outcome, cost, tool
 * calls, when, requests blocked, private sources) that opens to its transcript.
 */
import { BLOCKED_TITLE } from "../view-models/blocked";
import type { RunView } from "../view-models/runs";
import { PROOF_TITLE, REPORTER_LABEL, REPORTER_TITLE, SCRIPTED_LABEL } from "../view-models/runs";
import { PRIVATE_SOURCES_TITLE } from "../view-models/private-sources";
import { BlockedRequests } from "./blocked-requests";
import { PrivateSources } from "./private-sources";
import { StatusBadge } from "./status-badge";
import { TranscriptView } from "./transcript-view";

/** The end of the latest run: where the page follows a streaming turn (hooks/use-follow-scroll). */
export const LATEST_RUN_END = "latest-run-end";

/** `detail`: under an older run's line, which already says its number, outcome and cost. */
function RunHead(props: { run: RunView; detail?: boolean }) {
  const { run } = props;
  return (
    <div className="run-marker" data-testid="run-marker" data-run={run.number}>
      {props.detail ? null : <span className="run-label">Run {run.number}</span>}
      {run.label && !props.detail ? <StatusBadge label={run.label} tone={run.tone} status={run.status} title={run.statusTitle} testId="run-status" /> : null}
      {run.outcome ? (
        <span className="run-outcome" data-testid="run-outcome" title="What the run reported with report_result">
          {run.outcome}
        </span>
      ) : null}
      {run.cost && !props.detail ? (
        <span className={`run-cost cost-${run.cost.kind}`} title={run.cost.title} data-testid="run-cost">
          {run.cost.text}
        </span>
      ) : null}
      {run.model && !run.scripted ? (
        <span className="run-model muted small" data-testid="run-model" title="The model that served the run's steps, as its provider named it">
          {run.model}
        </span>
      ) : null}
      {run.reporter ? (
        <span className="run-tier" data-testid="run-reporter" title={REPORTER_TITLE}>
          {REPORTER_LABEL}
        </span>
      ) : null}
      {run.proof ? (
        <span className={`run-proof proof-${run.proof === "proven" ? "held" : "failed"}`} data-testid="run-proof" title={PROOF_TITLE}>
          {run.proof}
        </span>
      ) : null}
      {run.scripted ? (
        <span className="scripted" data-testid="run-scripted" title="This run used the offline scripted model: what it did was played from a script.">
          {SCRIPTED_LABEL}
        </span>
      ) : null}
      <span className="muted small" data-testid="run-who">
        {run.whoUrl ? (
          <a href={run.whoUrl} target="_blank" rel="noreferrer">
            {run.who}
          </a>
        ) : (
          run.who
        )}
        {run.when ? (
          <time title={run.whenTitle}>
            {run.who ? " " : ""}
            {run.when}
          </time>
        ) : null}
      </span>
      <span className="muted small run-facts">{run.facts}</span>
      {run.blocked ? <BlockedRequests view={run.blocked} /> : null}
      {run.privateSources ? <PrivateSources view={run.privateSources} /> : null}
      {run.instruction ? <span className="run-instruction">{run.instruction}</span> : null}
    </div>
  );
}

function RunBody(props: { run: RunView; now: number; showError: boolean; empty: string }) {
  const { run } = props;
  return (
    <>
      {props.showError && run.error ? (
        <code className="last-error" data-testid="run-error">
          {run.error}
        </code>
      ) : null}
      {run.items.length > 0 ? (
        <TranscriptView items={run.items} now={props.now} />
      ) : (
        <p className="muted small run-empty" data-testid="run-empty">
          {props.empty}
        </p>
      )}
    </>
  );
}

function emptyText(run: RunView): string {
  if (run.status === "queued") return "Queued: it starts when the run before it on this issue ends.";
  if (run.status === "running" || run.status === "recovering") return "The run has started; its first words appear here as they stream.";
  return "Nothing in the transcript for this run.";
}

export function RunList(props: { runs: RunView[]; now: number }) {
  const [latest, ...older] = props.runs;
  return (
    <div className="runs" data-testid="runs">
      {latest ? (
        <section className="run run-latest" aria-label={`Run ${latest.number}, the latest`} data-testid="run" data-run={latest.number} data-latest="true" data-status={latest.status}>
          <RunHead run={latest} />
          {/* The header above says the latest run's error. */}
          <RunBody run={latest} now={props.now} showError={false} empty={emptyText(latest)} />
          <span id={LATEST_RUN_END} aria-hidden="true" />
        </section>
      ) : null}
      {older.length > 0 ? (
        <section className="older-runs" aria-label="Earlier runs" data-testid="older-runs">
          <h2 className="older-runs-head muted">Earlier runs ({older.length})</h2>
          {older.map((run) => (
            <details key={run.key} className="run run-older" data-testid="run" data-run={run.number} data-status={run.status}>
              <summary className="run-line" data-testid="run-line">
                <span className="run-label">Run {run.number}</span>
                <span className="run-line-text">{run.line}</span>
                {run.continuedFromGitHub ? (
                  <span className="muted small">{run.continuedFromGitHub}</span>
                ) : run.continuedBy ? (
                  <span className="muted small">continued by {run.continuedBy}</span>
                ) : null}
                {run.reporter ? <span className="run-tier" title={REPORTER_TITLE}>{REPORTER_LABEL}</span> : null}
                {run.scripted ? <span className="scripted">scripted</span> : null}
                {run.blocked ? (
                  <span className="run-blocked-note" title={BLOCKED_TITLE} data-testid="run-line-blocked">
                    {run.blocked.text}
                  </span>
                ) : null}
                {run.privateSources ? (
                  <span className="run-private-sources-note" title={PRIVATE_SOURCES_TITLE} data-testid="run-line-private-sources">
                    {run.privateSources.text}
                  </span>
                ) : null}
              </summary>
              <div className="run-older-body">
                <RunHead run={run} detail />
                <RunBody run={run} now={props.now} showError empty={emptyText(run)} />
              </div>
            </details>
          ))}
        </section>
      ) : null}
    </div>
  );
}
