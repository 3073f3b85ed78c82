/**
 * The local dev API (`/dev/dispatch`, `/dev/messages`) for a Worker behind
 * Access: the same calls as `../dev-api.ts`, each carrying the caller's
 * credentials (an Access JWT header or cookie). Answers are parsed with the
 * CLI's schemas.
 */
import { expect } from "vitest";
import {
  dispatchResultSchema,
  isTerminalStatus,
  messagesPath,
  messagesResponseSchema,
  type DispatchResult,
  type MessagesResponse,
  type SubmissionStatus
} from "../../scripts/lib/dev-api";
import type { DispatchBody } from "../dev-api";

const POLL_MS = 100;
const RUN_TIMEOUT_MS = 30_000;

export type Credentials = Record<string, string>;

export async function dispatchWith(baseUrl: string, credentials: Credentials, body: DispatchBody): Promise<DispatchResult> {
  const response = await fetch(`${baseUrl}/dev/dispatch`, {
    method: "POST",
    headers: { ...credentials, "content-type": "application/json" },
    body: JSON.stringify(body)
  });
  const text = await response.text();
  expect(response.status, text).toBe(202);
  return dispatchResultSchema.parse(JSON.parse(text));
}

export async function readMessagesWith(
  baseUrl: string,
  credentials: Credentials,
  session: string,
  submissionId?: string
): Promise<MessagesResponse> {
  const response = await fetch(`${baseUrl}${messagesPath(session, submissionId)}`, { headers: credentials });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return messagesResponseSchema.parse(JSON.parse(text));
}

/** Polls until the submission is terminal. */
export async function waitForSubmissionWith(
  baseUrl: string,
  credentials: Credentials,
  run: Pick<DispatchResult, "session" | "submissionId">,
  timeoutMs = RUN_TIMEOUT_MS
): Promise<MessagesResponse & { submission: SubmissionStatus }> {
  const deadline = Date.now() + timeoutMs;
  let last: MessagesResponse | undefined;
  while (Date.now() < deadline) {
    last = await readMessagesWith(baseUrl, credentials, run.session, run.submissionId);
    const submission = last.submission;
    if (submission && isTerminalStatus(submission.status)) return { ...last, submission };
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`submission ${run.submissionId} did not end in ${timeoutMs} ms: ${JSON.stringify(last?.submission)}`);
}
