/** One tool call, collapsed to a line; expanded, its input and bounded output. */
import { memo } from "react";
import type { TextBlock } from "../view-models/json";
import type { BashOutputView, BashStreamView, ToolCallView } from "../view-models/tool-call";
import { formatCount } from "../view-models/format";
import { StatusBadge } from "./status-badge";

function Clipped(props: { omitted: number }) {
  return props.omitted > 0 ? <div className="note">… {formatCount(props.omitted)} more characters not shown</div> : null;
}

function TextBlocks(props: { blocks: TextBlock[] }) {
  return props.blocks.map((block) => (
    <div key={block.label} className="text-block">
      <div className="section-label mono">{block.label}</div>
      <pre className="code">{block.text}</pre>
      <Clipped omitted={block.omittedChars} />
    </div>
  ));
}

function BashStream(props: { stream: BashStreamView }) {
  const { stream } = props;
  return (
    <div className={`stream stream-${stream.name}`} data-testid={`tool-${stream.name}`}>
      <div className="stream-head">
        <span className="stream-name">{stream.name}</span>
        <span className="muted small">{stream.size}</span>
      </div>
      {stream.empty ? (
        <div className="muted small stream-empty">(empty)</div>
      ) : (
        <>
          {stream.head ? <pre className="code">{stream.head}</pre> : null}
          {stream.leftOut ? (
            <div className="note left-out" data-testid="tool-left-out">
              {stream.leftOut}
            </div>
          ) : null}
          {stream.tail ? <pre className="code">{stream.tail}</pre> : null}
          <Clipped omitted={stream.clippedChars} />
        </>
      )}
    </div>
  );
}

function BashOutput(props: { output: BashOutputView }) {
  const { output } = props;
  const facts = [
    output.exitCode !== undefined ? `exit code ${output.exitCode}` : null,
    output.timedOut ? "timed out" : null,
    output.backend ? `on ${output.backend}` : null,
    output.duration ? `in ${output.duration}` : null
  ].filter((fact) => fact !== null);
  return (
    <div className="tool-output">
      <div className="tool-facts" data-testid="tool-exit-code" data-exit-code={output.exitCode}>
        {facts.join(" · ")}
      </div>
      {output.error ? <pre className="code code-error">{output.error}</pre> : null}
      {output.streams
        .filter((stream) => !(stream.name === "stderr" && stream.empty))
        .map((stream) => (
          <BashStream key={stream.name} stream={stream} />
        ))}
    </div>
  );
}

/** Memoized: the clock ticks re-render the page, and a tool call's view only changes with its message. */
export const ToolCall = memo(function ToolCall(props: { call: ToolCallView }) {
  const { call } = props;
  const output = call.output;
  return (
    <details
      className={`tool tone-${call.tone}`}
      data-testid="tool-call"
      data-tool-name={call.toolName}
      data-tool-call-id={call.toolCallId}
      data-tool-state={call.state}
    >
      <summary>
        <span className="tool-name">{call.toolName}</span>
        <span className="tool-summary mono">{call.summary}</span>
        <StatusBadge label={call.stateLabel} tone={call.tone} testId="tool-status" />
      </summary>
      <div className="tool-body">
        {call.input.text || call.input.blocks.length > 0 ? (
          <div className="tool-input">
            <div className="section-label">
              Input {call.input.details.length > 0 ? <span className="muted small">({call.input.details.join(", ")})</span> : null}
            </div>
            {call.input.text ? <pre className={`code lang-${call.input.language}`}>{call.input.text}</pre> : null}
            <Clipped omitted={call.input.omittedChars} />
            <TextBlocks blocks={call.input.blocks} />
          </div>
        ) : null}
        {output === null ? (
          call.done ? null : <div className="muted small">Waiting for the result…</div>
        ) : output.kind === "bash" ? (
          <BashOutput output={output} />
        ) : output.kind === "error" ? (
          <div className="tool-output">
            <div className="section-label">Error</div>
            <pre className="code code-error">{output.text}</pre>
          </div>
        ) : (
          <div className="tool-output">
            <div className="section-label">Output</div>
            {output.body.text ? <pre className={`code lang-${output.body.language}`}>{output.body.text}</pre> : null}
            <Clipped omitted={output.body.omittedChars} />
            <TextBlocks blocks={output.body.blocks} />
          </div>
        )}
      </div>
    </details>
  );
});
