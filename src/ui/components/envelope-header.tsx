/** The run envelope as the thread's header: repository, issue, instruction, who asked, when. */
import type { EnvelopeHeaderView } from "../view-models/thread";

function MaybeLink(props: { href?: string; children: string; testId?: string }) {
  return props.href ? (
    <a href={props.href} target="_blank" rel="noreferrer noopener" data-testid={props.testId}>
      {props.children}
    </a>
  ) : (
    <span data-testid={props.testId}>{props.children}</span>
  );
}

/** `continued`: "continued by … from the dashboard", when the latest run is a continuation. */
export function EnvelopeHeader(props: { view: EnvelopeHeaderView; runs: number; continued?: string }) {
  const { view } = props;
  return (
    <section className="envelope" aria-label="Run" data-testid="envelope-header">
      <div className="envelope-where">
        <MaybeLink href={view.repoHref} testId="envelope-repo">
          {view.repo}
        </MaybeLink>
        <span className="envelope-issue">
          <MaybeLink href={view.issueHref} testId="envelope-issue">
            {view.issueLabel}
          </MaybeLink>
        </span>
      </div>
      <blockquote className="envelope-instruction" data-testid="envelope-instruction">
        {view.instruction}
      </blockquote>
      <div className="envelope-meta muted small">
        <span>
          asked by{" "}
          {view.requestedBy ? (
            <MaybeLink href={view.requestedByHref} testId="envelope-requested-by">
              {view.requestedBy}
            </MaybeLink>
          ) : (
            <span data-testid="envelope-requested-by">a maintainer</span>
          )}
        </span>
        {props.continued ? <span data-testid="envelope-continued">{props.continued}</span> : null}
        <time title={view.submittedTitle}>{view.submitted}</time>
        {view.commentHref ? (
          <a href={view.commentHref} target="_blank" rel="noreferrer noopener">
            comment
          </a>
        ) : null}
        {props.runs > 1 ? <span>latest of {props.runs} runs</span> : null}
        <span className="mono">{view.session}</span>
      </div>
    </section>
  );
}
