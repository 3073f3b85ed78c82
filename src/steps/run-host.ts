/**
 * What a ThinkAgent gives the collaborators run-parts.ts builds for it: its
 * storage, bindings and seams, and Think's durable submissions. Every seam
 * is a function read when used, so a test that swaps one on the instance
 * (a budget, the command center) is heard. Types only.
 */
import type { CancelSubmissionResult, ListSubmissionsOptions, SubmitMessagesOptions, SubmitMessagesResult, ThinkSubmissionInspection } from "@cloudflare/think";
import type { UIMessage } from "ai";
import type { CommandCenter } from "../command-center/rpc";
import type { ModelEnv } from "../model/config";
import type { ReproFs } from "../repro/publish";
import type { ReporterFinding } from "../run/trust-facts";
import type { ScheduleHost } from "../run/one-shot-schedule";
import type { TranscriptMessage } from "../shared/dispatch";
import type { TurnWorkspace as WorkspaceTurnCalls } from "./active-turn";
import type { RunAttachmentsDeps } from "./run-attachments";
import type { WorkspaceCalls } from "./turn-workspace";

export type Submission = ThinkSubmissionInspection;

/** Think's durable submissions and transcript, as the agent's own methods give them. */
export type Submissions = {
  submit(messages: UIMessage[], options?: SubmitMessagesOptions): Promise<SubmitMessagesResult>;
  list(options?: ListSubmissionsOptions): Promise<Submission[]>;
  inspect(submissionId: string): Promise<Submission | null>;
  cancel(submissionId: string, reason: string): Promise<CancelSubmissionResult>;
  transcript(): Promise<TranscriptMessage[]>;
  clearTranscript(): Promise<void>;
};

/** The agent's tunables, instance properties that tests lower (src/agent.ts says what each is). */
export type RunLimits = {
  maxSteps: number;
  tokenBudget: number;
  costBudget: number;
  reporterCostBudget: number;
  modelPrices: string | undefined;
  staleRunMs: number;
  progressEditIntervalMs: number;
  /** What Think records as the error of a run whose recovery was exhausted. */
  interruptedMessage: string;
};

/** The WorkspaceAgent, as a turn calls it. */
export type WorkspaceAgentCalls = WorkspaceCalls & WorkspaceTurnCalls;

export type RunHost = {
  storage: DurableObjectStorage;
  env: Env;
  /** The session's name; undefined only while the object is constructed, before it has one. */
  session(): string | undefined;
  limits(): RunLimits;
  commandCenter(): Promise<CommandCenter>;
  /** Where reactions and comments go; empty posts nothing. */
  githubApiUrl(): string;
  modelEnv(): ModelEnv;
  /** The last finding of another session of the issue (its reporter session's). */
  reporterFinding(session: string): Promise<ReporterFinding | null>;
  workspaceAgent(): Promise<WorkspaceAgentCalls>;
  /** The workspace's files, as Think's file tools reach them. */
  files(): ReproFs & ReturnType<RunAttachmentsDeps["fs"]>;
  /** The agent's schedule: RunReports' delivery callbacks. */
  schedules: ScheduleHost<"deliverNotices" | "deliverCenterEvents">;
  waitUntil(promise: Promise<unknown>): void;
  submissions: Submissions;
};
