/** The transcript: run markers, the assistant's text (a caret where it is streaming), reasoning and tool calls. */
import type { TranscriptItem } from "../view-models/transcript";
import { formatRelativeTime } from "../view-models/format";
import { ToolCall } from "./tool-call";

export function TranscriptView(props: { items: TranscriptItem[]; now: number }) {
  return (
    <ol className="transcript" data-testid="transcript">
      {props.items.map((item) => {
        switch (item.kind) {
          case "run": {
            const at = Date.parse(item.envelope.submittedAt);
            return (
              <li key={item.key} className="run-marker" data-testid="run-marker" data-run={item.runNumber}>
                <span className="run-label">Run {item.runNumber}</span>
                <span className="muted small">
                  {item.envelope.requestedBy ? `@${item.envelope.requestedBy.login}` : "a maintainer"} asked
                  {Number.isFinite(at) ? ` ${formatRelativeTime(at, props.now)}` : ""}
                </span>
                <span className="run-instruction">{item.envelope.instruction}</span>
              </li>
            );
          }
          case "user":
            return (
              <li key={item.key} className="msg msg-user">
                <div className="section-label">Message</div>
                <div className="msg-text">{item.text}</div>
              </li>
            );
          case "text":
            return (
              <li key={item.key} className="msg msg-assistant" data-testid="assistant-text" data-streaming={item.streaming || undefined}>
                <div className="msg-text">
                  {item.text}
                  {item.streaming ? <span className="caret" aria-label="streaming" /> : null}
                </div>
              </li>
            );
          case "reasoning":
            return (
              <li key={item.key} className="msg msg-reasoning">
                <details>
                  <summary className="muted small">Reasoning{item.streaming ? "…" : ""}</summary>
                  <div className="msg-text muted">{item.text}</div>
                </details>
              </li>
            );
          case "tool":
            return (
              <li key={item.key} className="msg msg-tool">
                <ToolCall call={item.call} />
              </li>
            );
          case "note":
            return (
              <li key={item.key} className="msg msg-note muted small">
                {item.text}
              </li>
            );
        }
      })}
    </ol>
  );
}
