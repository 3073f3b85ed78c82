/**
 * One run followed live: the chunks its turn streams over the agent's
 * WebSocket, turned into the same `RunEvent`s (same kinds, same keys) that
 * `run-events.ts` reads from the persisted transcript, so `npm run dispatch`
 * prints each tool call when its input is available and its result when it
 * arrives, and the poll that follows along never prints one twice.
 *
 * Which frames are this run's: those whose request id is the submission id
 * `POST /dev/dispatch` answered. Think runs a durable submission as a turn
 * under that request id (seen on the wire), so a turn queued before ours, or
 * one after it, never matches. If the turn is recovered it goes on under a
 * new request id; from then on the poll prints the rest.
 *
 * Deliberately conservative: a text prints when its block ends, and a result
 * whose call this follower did not see is left to the poll, which prints the
 * two in transcript order. Replayed chunks at or below the highest `seq`
 * already applied are skipped.
 *
 * It also follows Think's chat recovery of this run (`recovery`): the
 * `cf_agent_chat_recovering` frames that say an interrupted turn is being
 * resumed, and that it no longer is, each transition once, counted. A frame
 * naming another request is another turn's; one naming none is taken as
 * this run's (a follower cannot tell, and a line too many beats a recovery
 * unseen). The socket does not survive a restart of the whole runtime, so
 * such a recovery is seen only when the follower connects while it is under
 * way (Think replays the flag on connect); an eviction of the one object is
 * seen live. Pure; `agent-socket.ts` owns the socket and `scripts/dispatch.ts`
 * the printing.
 */
import type { AgentFrame, StreamChunk } from "./agent-frames";
import { callKey, resultKey, TextKeys, type RunEvent } from "./run-events";

/** A change in this run's recovery: Think took the interrupted turn over, or that is over while the run goes on. */
export type RecoveryChange = { kind: "recovering" | "resumed"; recoveries: number };

export class LiveRun {
  readonly requestId: string;
  #highestSeq = -1;
  #recovering = false;
  #recoveries = 0;
  #ended = false;
  readonly #toolNames = new Map<string, string>();
  readonly #texts = new Map<string, string>();
  readonly #textKeys = new TextKeys();

  constructor(requestId: string) {
    this.requestId = requestId;
  }

  /**
   * The events a chunk of this run completes. Other requests' frames, and
   * how the stream ended, print nothing: the poll prints the final status.
   */
  accept(frame: AgentFrame): RunEvent[] {
    if (frame.kind !== "chunk" || frame.requestId !== this.requestId) return [];
    if (frame.seq !== undefined) {
      if (frame.replay && frame.seq <= this.#highestSeq) return [];
      this.#highestSeq = Math.max(this.#highestSeq, frame.seq);
    }
    return this.#apply(frame.chunk);
  }

  /** How many times Think's chat recovery took this run's turn over, as far as this follower saw. */
  get recoveries(): number {
    return this.#recoveries;
  }

  /**
   * What a frame changes in this run's recovery, or null: `recovering` when
   * the flag goes up (counted), `resumed` when it comes down while the run
   * is not over (its own stream ended for good), nothing for a repeat.
   */
  recovery(frame: AgentFrame): RecoveryChange | null {
    if (frame.kind === "end" && frame.requestId === this.requestId && frame.outcome !== "recovering") {
      this.#ended = true;
      return null;
    }
    if (frame.kind !== "recovering") return null;
    if (frame.requestId !== undefined && frame.requestId !== this.requestId) return null;
    if (frame.recovering === this.#recovering) return null;
    this.#recovering = frame.recovering;
    if (frame.recovering) {
      this.#recoveries += 1;
      return { kind: "recovering", recoveries: this.#recoveries };
    }
    return this.#ended ? null : { kind: "resumed", recoveries: this.#recoveries };
  }

  #apply(chunk: StreamChunk): RunEvent[] {
    const toolCallId = typeof chunk.toolCallId === "string" ? chunk.toolCallId : null;
    switch (chunk.type) {
      case "text-start":
        if (typeof chunk.id === "string") this.#texts.set(chunk.id, "");
        return [];
      case "text-delta":
        if (typeof chunk.id === "string" && typeof chunk.delta === "string") {
          this.#texts.set(chunk.id, (this.#texts.get(chunk.id) ?? "") + chunk.delta);
        }
        return [];
      case "text-end": {
        if (typeof chunk.id !== "string") return [];
        const text = this.#texts.get(chunk.id);
        this.#texts.delete(chunk.id);
        if (text === undefined || text.trim() === "") return [];
        return [{ key: this.#textKeys.next(text), kind: "text", text }];
      }
      case "tool-input-available":
        return toolCallId === null ? [] : this.#call(toolCallId, chunk);
      case "tool-input-error": {
        if (toolCallId === null) return [];
        const error = typeof chunk.errorText === "string" ? chunk.errorText : "error";
        return [...this.#call(toolCallId, chunk), ...this.#settle(toolCallId, { kind: "tool-error", error })];
      }
      case "tool-output-available":
        // A preliminary output is a progress snapshot; the result is the last one.
        if (toolCallId === null || chunk.preliminary === true) return [];
        return this.#settle(toolCallId, { kind: "tool-result", output: chunk.output });
      case "tool-output-error": {
        if (toolCallId === null) return [];
        const error = typeof chunk.errorText === "string" ? chunk.errorText : "error";
        return this.#settle(toolCallId, { kind: "tool-error", error });
      }
      case "tool-output-denied":
        return toolCallId === null ? [] : this.#settle(toolCallId, { kind: "tool-error", error: "denied" });
      default:
        return [];
    }
  }

  #call(toolCallId: string, chunk: StreamChunk): RunEvent[] {
    if (this.#toolNames.has(toolCallId)) return [];
    const toolName = typeof chunk.toolName === "string" ? chunk.toolName : "tool";
    this.#toolNames.set(toolCallId, toolName);
    return [{ key: callKey(toolCallId), kind: "tool-call", toolName, input: chunk.input }];
  }

  #settle(
    toolCallId: string,
    outcome: { kind: "tool-result"; output: unknown } | { kind: "tool-error"; error: string }
  ): RunEvent[] {
    const toolName = this.#toolNames.get(toolCallId);
    if (toolName === undefined) return [];
    return [{ key: resultKey(toolCallId), toolName, ...outcome }];
  }
}
