/**
 * `npm run dispatch -- owner/repo#123 "instruction"`: submit a turn to the
 * local agent-think (`npm start`) through `POST /dev/dispatch`, then follow it
 * by polling `GET /dev/messages/:session` until the submission ends, printing
 * each tool call, its result and the assistant's text once. Only this run's
 * messages are printed, never earlier turns of the same session.
 *
 * Exit codes: 0 the run completed; 1 it did not, the wait timed out or the
 * server could not be reached; 2 a bad argument (or an input the server
 * rejected). Parsing and formatting live in `scripts/lib/`.
 */
import { parseDispatchArgs, USAGE, type DispatchArgs } from "./lib/dispatch-args";
import {
  dispatchResultSchema,
  errorBodySchema,
  isTerminalStatus,
  messagesPath,
  messagesResponseSchema,
  type DispatchResult,
  type MessagesResponse
} from "./lib/dev-api";
import { formatEvent, formatFinal } from "./lib/format-run";
import { runEvents, runMessages, takeUnseen, type RunAnchor } from "./lib/run-events";
import { sessionName } from "../src/run/session-name";

const POLL_INTERVAL_MS = 300;
const REQUEST_TIMEOUT_MS = 10_000;
// A server restart between polls is survivable; this many failures in a row is not.
const MAX_CONSECUTIVE_POLL_FAILURES = 10;

/** The server could not be reached or answered something unexpected. */
class ServerError extends Error {
  override readonly name = "ServerError";
  constructor(
    message: string,
    readonly code: "unreachable" | "unexpected"
  ) {
    super(message);
  }
}

async function main(): Promise<number> {
  const env = { AGENT_THINK_URL: process.env.AGENT_THINK_URL };
  const parsed = parseDispatchArgs(process.argv.slice(2), env);
  if (!parsed.ok) {
    console.error(`dispatch: ${parsed.error}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.kind === "help") {
    console.log(USAGE);
    return 0;
  }
  try {
    return await dispatchAndFollow(parsed.args);
  } catch (error) {
    if (!(error instanceof ServerError)) throw error;
    console.error(`dispatch: ${error.message}`);
    return 1;
  }
}

async function dispatchAndFollow({ request, baseUrl, timeoutSeconds }: DispatchArgs): Promise<number> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  const session = sessionName(request.repo, request.issueNumber);

  // What the session held before: a run without a comment id is a message that was not there.
  const before = await getMessages(baseUrl, session);
  const anchor: RunAnchor = {
    commentId: request.commentId,
    instruction: request.instruction,
    knownMessageIds: new Set(before.messages.map((message) => message.id))
  };

  const dispatched = await postDispatch(baseUrl, request);
  if (!dispatched.ok) {
    console.error(`dispatch: the server rejected the request: ${dispatched.error}`);
    return 2;
  }
  const run = dispatched.result;
  console.log(`session     ${run.session}`);
  console.log(`submission  ${run.submissionId}`);
  console.log(`thread      ${run.threadUrl}`);
  console.log("");

  const printed = new Set<string>();
  const printNew = (snapshot: MessagesResponse) => {
    const messages = runMessages(snapshot.messages, anchor);
    if (messages === null) return;
    for (const event of takeUnseen(runEvents(messages), printed)) console.log(formatEvent(event));
  };

  let failures = 0;
  let lastStatus = "pending";
  while (Date.now() < deadline) {
    let snapshot: MessagesResponse;
    try {
      snapshot = await getMessages(baseUrl, run.session, run.submissionId);
      failures = 0;
    } catch (error) {
      if (!(error instanceof ServerError) || ++failures >= MAX_CONSECUTIVE_POLL_FAILURES) throw error;
      await sleep(POLL_INTERVAL_MS);
      continue;
    }
    if (snapshot.submission === null || snapshot.submission === undefined) {
      throw new ServerError(`the server does not know submission ${run.submissionId}`, "unexpected");
    }
    printNew(snapshot);
    lastStatus = snapshot.submission.status;
    if (isTerminalStatus(snapshot.submission.status)) {
      // Messages and status are read side by side; read once more so the last messages are not missed.
      const last = await getMessages(baseUrl, run.session, run.submissionId);
      printNew(last);
      const submission = last.submission ?? snapshot.submission;
      console.log("");
      console.log(formatFinal(submission));
      console.log(`thread      ${run.threadUrl}`);
      return submission.status === "completed" ? 0 : 1;
    }
    await sleep(Math.min(POLL_INTERVAL_MS, Math.max(0, deadline - Date.now())));
  }
  console.log("");
  console.log(`✗ timed out after ${timeoutSeconds} s; the run is still ${lastStatus} (it keeps going on the server)`);
  console.log(`thread      ${run.threadUrl}`);
  return 1;
}

type DispatchOutcome = { ok: true; result: DispatchResult } | { ok: false; error: string };

async function postDispatch(baseUrl: string, request: DispatchArgs["request"]): Promise<DispatchOutcome> {
  const response = await send(baseUrl, "/dev/dispatch", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(request)
  });
  const body = await readJson(response);
  if (response.status === 400) {
    const error = errorBodySchema.safeParse(body);
    return { ok: false, error: error.success ? error.data.error : "bad request" };
  }
  if (response.status !== 202) throw unexpected(baseUrl, "POST /dev/dispatch", response, body);
  const result = dispatchResultSchema.safeParse(body);
  if (!result.success) throw unexpected(baseUrl, "POST /dev/dispatch", response, body);
  return { ok: true, result: result.data };
}

async function getMessages(baseUrl: string, session: string, submissionId?: string): Promise<MessagesResponse> {
  const response = await send(baseUrl, messagesPath(session, submissionId));
  const body = await readJson(response);
  const parsed = messagesResponseSchema.safeParse(body);
  if (response.status !== 200 || !parsed.success) throw unexpected(baseUrl, "GET /dev/messages", response, body);
  return parsed.data;
}

async function send(baseUrl: string, path: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(`${baseUrl}${path}`, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
  } catch {
    throw new ServerError(`cannot reach agent-think at ${baseUrl} (is \`npm start\` running?)`, "unreachable");
  }
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function unexpected(baseUrl: string, what: string, response: Response, body: unknown): ServerError {
  if (response.status === 404) {
    return new ServerError(
      `${baseUrl} answered 404 to ${what}: /dev/* is open only with LOCAL_DEV=1 (is \`npm start\` running there?)`,
      "unexpected"
    );
  }
  const detail = typeof body === "string" ? body : JSON.stringify(body);
  return new ServerError(`${what} answered ${response.status}: ${detail.slice(0, 300)}`, "unexpected");
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

process.exitCode = await main();
