/**
 * Threads that need a human: failed and stale ones, each with its last error
 * ("failed again (2 failures)" when a continuation failed too) and a
 * Continue button (a continued one stays, its banner following the run to
 * its outcome), and ones whose closing comment could not be posted on the
 * issue, with why.
 */
import { Link } from "react-router";
import type { ThreadSummary } from "../../shared/command-center";
import type { ContinueState } from "../hooks/use-continue";
import { needsHuman, threadRowView } from "../view-models/threads";
import { ContinueButton, ContinueResult } from "./continue-button";
import { Empty } from "./state-views";
import { StatusBadge } from "./status-badge";

export function AttentionList(props: { threads: ThreadSummary[]; now: number; continuing: ContinueState }) {
  const { pending, results, continueThread, dismiss } = props.continuing;
  return (
    <section className="panel" aria-label="Needs attention" data-testid="attention">
      <h2>
        Needs attention <span className="muted">{props.threads.filter(needsHuman).length}</span>
      </h2>
      {props.threads.length === 0 ? (
        <Empty title="Nothing failed or stalled" testId="attention-empty">
          Failed runs and runs quiet past the stale window show up here, ready to continue; so do runs whose answer
          could not be posted on the issue.
        </Empty>
      ) : (
        <ul className="attention-list">
          {props.threads.map((thread) => {
            const row = threadRowView(thread, props.now);
            const result = results.get(row.session);
            return (
              <li key={row.session} className={`attention-item tone-${row.attentionTone}`} data-testid="attention-item" data-session={row.session}>
                <div className="attention-head">
                  <StatusBadge label={row.statusLabel} tone={row.tone} status={row.status} title={row.statusTitle} />
                  {row.failedAgain ? (
                    <span className="failed-again" data-testid="failed-again">
                      {row.failedAgain}
                    </span>
                  ) : null}
                  <Link to={row.href} className="attention-title">
                    {row.repo} {row.title}
                  </Link>
                  <time className="muted small" title={row.whenTitle}>
                    {row.when}
                  </time>
                </div>
                <div className="attention-body">
                  <span className="muted">{row.instruction}</span>
                  {row.continuedBy || row.cost ? (
                    <span className="muted small attention-meta">
                      {row.continuedBy ? <span data-testid="continued-by">{row.continuedBy} from the dashboard</span> : null}
                      {row.cost ? (
                        <span title={row.cost.title} data-testid="thread-cost">
                          cost {row.cost.text}
                        </span>
                      ) : null}
                    </span>
                  ) : null}
                  {row.status === "stale" ? <span className="small">No activity since {row.when}: the run looks stuck.</span> : null}
                  {/* A continued run under way is past its predecessor's error. */}
                  {row.lastError && row.status === "error" ? <code className="last-error" data-testid="last-error">{row.lastError}</code> : null}
                  {row.issueFailure ? (
                    <span className="issue-failure" data-testid="issue-failure">
                      {row.issueFailure}
                    </span>
                  ) : null}
                </div>
                <div className="attention-actions">
                  {row.canContinue ? (
                    <ContinueButton session={row.session} submissionId={thread.submissionId} pending={pending.has(row.session)} onContinue={continueThread} />
                  ) : null}
                  {result ? <ContinueResult session={row.session} track={result} thread={thread} showError={false} onDismiss={() => dismiss(row.session)} /> : null}
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
