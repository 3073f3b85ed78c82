/** A small coloured label: a thread's or a tool call's status. */
import type { Tone } from "../view-models/threads";

export function StatusBadge(props: { label: string; tone: Tone; testId?: string; status?: string; title?: string }) {
  return (
    <span
      className={`badge tone-${props.tone}`}
      data-testid={props.testId}
      data-status={props.status}
      title={props.title}
    >
      {props.label}
    </span>
  );
}
