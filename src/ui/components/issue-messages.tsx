/** What the latest run posted on its issue ("On the issue: comment posted ↗ 🚀"), and a warning for each message it could not post. */
import type { IssueMessagesView } from "../view-models/thread";

export function IssueMessages(props: { view: IssueMessagesView }) {
  const { posted, failed } = props.view;
  return (
    <>
      {posted.length > 0 ? (
        <p className="issue-messages" data-testid="issue-messages">
          <span className="muted">On the issue:</span>
          {posted.map((item) =>
            item.href ? (
              <a key={item.kind} href={item.href} target="_blank" rel="noreferrer" title={item.title} data-kind={item.kind}>
                {item.label}
              </a>
            ) : (
              <span key={item.kind} title={item.title} data-kind={item.kind}>
                {item.label}
              </span>
            )
          )}
        </p>
      ) : null}
      {failed.map((item) => (
        <p key={item.kind} className="banner tone-warn issue-message-failed" role="alert" data-testid="issue-message-failed" data-kind={item.kind}>
          {item.text}
        </p>
      ))}
    </>
  );
}
