/**
 * Small clients for the local dev API, for the e2e tests: dispatch a run,
 * read a transcript, wait for a submission to end. Answers are parsed with
 * the same schemas the CLI uses, so a change of wire shape fails here too.
 * Each call takes optional credentials (an Access JWT header or cookie) for
 * a Worker behind Access.
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
} from "../scripts/lib/dev-api";
import type { RepoVisibility } from "../src/shared/dispatch";

const POLL_MS = 100;
const RUN_TIMEOUT_MS = 30_000;

export type DispatchBody = {
  repo: string;
  issueNumber: number;
  instruction?: string;
  commentId?: number;
  issueTitle?: string;
  requestedBy?: { login: string };
  installationToken?: string;
  repoVisibility?: RepoVisibility;
};

/** Request headers that get a request past Access (none where Access is off). */
export type Credentials = Record<string, string>;

export async function dispatch(baseUrl: string, body: DispatchBody, credentials: Credentials = {}): Promise<DispatchResult> {
  const response = await fetch(`${baseUrl}/dev/dispatch`, {
    method: "POST",
    headers: { ...credentials, "content-type": "application/json" },
    body: JSON.stringify(body)
  });
  const text = await response.text();
  expect(response.status, text).toBe(202);
  return dispatchResultSchema.parse(JSON.parse(text));
}

export async function readMessages(baseUrl: string, session: string, submissionId?: string, credentials: Credentials = {}): Promise<MessagesResponse> {
  const response = await fetch(`${baseUrl}${messagesPath(session, submissionId)}`, { headers: credentials });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return messagesResponseSchema.parse(JSON.parse(text));
}

/** Polls until the submission is terminal; the transcript read alongside is returned with it. */
export async function waitForSubmission(
  baseUrl: string,
  run: Pick<DispatchResult, "session" | "submissionId">,
  options: { timeoutMs?: number; credentials?: Credentials } = {}
): Promise<MessagesResponse & { submission: SubmissionStatus }> {
  const { timeoutMs = RUN_TIMEOUT_MS, credentials = {} } = options;
  const deadline = Date.now() + timeoutMs;
  let last: MessagesResponse | undefined;
  while (Date.now() < deadline) {
    last = await readMessages(baseUrl, run.session, run.submissionId, credentials);
    const submission = last.submission;
    if (submission && isTerminalStatus(submission.status)) {
      // Status and transcript are read side by side: read once more for the settled transcript.
      const settled = await readMessages(baseUrl, run.session, run.submissionId, credentials);
      return { ...settled, submission: settled.submission ?? submission };
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`submission ${run.submissionId} did not end in ${timeoutMs} ms: ${JSON.stringify(last?.submission)}`);
}

/** A fresh issue number, so tests never share a session by accident. */
export function freshIssueNumber(): number {
  return 1 + Math.floor(Math.random() * 1_000_000_000);
}
