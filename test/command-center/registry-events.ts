/**
 * Events for one thread (`acme-widgets-7`) and its runs, and the thread as
 * the dashboard reads it: what the registry's plain tests feed
 * `recordEvent` (test/unit/command-center-registry*.test.ts,
 * command-center-claims.test.ts).
 */
import { expect } from "vitest";
import { settleQuiet } from "../../src/command-center/reconcile";
import { toSummary } from "../../src/command-center/staleness";
import type { CommandCenterEvent, DispatchedEvent } from "../../src/shared/command-center-events";
import type { MemoryRegistryStore } from "./memory-store";

export const STALE = 600_000;
export const T0 = 1_700_000_000_000;

export function dispatched(overrides: Partial<DispatchedEvent> = {}): DispatchedEvent {
  return {
    type: "dispatched",
    session: "acme-widgets-7",
    repo: "acme/widgets",
    issueNumber: 7,
    issueTitle: "Widgets wobble",
    requestedBy: { login: "octocat", avatarUrl: "https://avatars.example/octocat" },
    instruction: "reproduce this issue\nand then some detail",
    submissionId: "s1",
    at: T0,
    ...overrides
  };
}

export const started = (at: number, submissionId = "s1"): CommandCenterEvent => ({ type: "turn-started", session: "acme-widgets-7", submissionId, at });
export const tool = (at: number, ok = true, toolCallId?: string, submissionId = "s1"): CommandCenterEvent => ({
  type: "tool",
  session: "acme-widgets-7",
  submissionId,
  tool: "bash",
  ok,
  at,
  ...(toolCallId ? { toolCallId } : {})
});
export const COMMENT_URL = "https://github.com/acme/widgets/issues/7#issuecomment-99";
export const ended = (at: number, status: "done" | "error" | "cancelled" = "done", extra: { error?: string; tokens?: { input: number; output: number } } = {}, submissionId = "s1"): CommandCenterEvent => ({
  type: "turn-ended",
  session: "acme-widgets-7",
  submissionId,
  status,
  at,
  ...extra
});

/** The agent was asked about the quiet run at `at` and said it is still active. */
export function askedActive(store: MemoryRegistryStore, at: number, submissionId = "s1") {
  expect(settleQuiet(store, "acme-widgets-7", submissionId, { kind: "active" }, at, STALE)).toBe(true);
}

export function thread(store: MemoryRegistryStore, now = T0) {
  const record = store.getThread("acme-widgets-7");
  return record && toSummary(record, now, STALE);
}
