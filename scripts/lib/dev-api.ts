/**
 * The local dev API as the CLI sees it: zod schemas for the answers of
 * `POST /dev/dispatch` and `GET /dev/messages/:session`. Messages are parsed
 * loosely (only what the CLI reads is checked), so a new part type on the
 * server never breaks following a run. Pure; used by `scripts/dispatch.ts`
 * and the e2e tests.
 */
import { z } from "zod";
import { SUBMISSION_STATUSES } from "../../src/shared/dispatch";
import { TERMINAL_STATUSES } from "../../src/run/submission";

export const dispatchResultSchema = z.object({
  session: z.string(),
  threadUrl: z.string(),
  submissionId: z.string()
});
export type DispatchResult = z.infer<typeof dispatchResultSchema>;

export const errorBodySchema = z.object({ error: z.string() });

export const messagePartSchema = z.looseObject({ type: z.string() });
export type MessagePart = z.infer<typeof messagePartSchema>;

export const transcriptMessageSchema = z.looseObject({
  id: z.string(),
  role: z.string(),
  parts: z.array(messagePartSchema)
});
export type TranscriptMessage = z.infer<typeof transcriptMessageSchema>;

export const submissionStatusSchema = z.object({
  status: z.enum(SUBMISSION_STATUSES),
  error: z.string().optional(),
  createdAt: z.number(),
  startedAt: z.number().optional(),
  completedAt: z.number().optional()
});
export type SubmissionStatus = z.infer<typeof submissionStatusSchema>;

export const messagesResponseSchema = z.object({
  session: z.string(),
  messages: z.array(transcriptMessageSchema),
  // null: the server does not know the submission id.
  submission: submissionStatusSchema.nullable().optional()
});
export type MessagesResponse = z.infer<typeof messagesResponseSchema>;

export function isTerminalStatus(status: SubmissionStatus["status"]): boolean {
  return TERMINAL_STATUSES.has(status);
}

export function messagesPath(session: string, submissionId?: string): string {
  const query = submissionId === undefined ? "" : `?submissionId=${encodeURIComponent(submissionId)}`;
  return `/dev/messages/${encodeURIComponent(session)}${query}`;
}
