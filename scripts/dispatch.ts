/**
 * `npm run dispatch -- owner/repo#123 "instruction"`: submit a turn to the
 * local agent-think (`npm start`) through `POST /dev/dispatch`, then follow it
 * until the submission ends, printing each tool call, its result and the
 * assistant's text once, as they happen. Only this run is printed, never
 * other turns of the same session.
 *
 * Two sources feed one printer that dedupes by event key: the session's agent
 * WebSocket (`/agents/think-agent/<session>`, opened before the dispatch when
 * the thread exists already; the Worker opens it only for threads the
 * command center knows, so a new issue's socket is opened just after, and
 * Think replays what it missed), which streams the turn's chunks live, and a poll of
 * `GET /dev/messages/:session?submissionId=`, which gives the terminal status
 * and, since the assistant message is saved only when the turn ends, prints
 * at the end whatever the socket did not (it could not connect, it dropped,
 * the turn was recovered under another request). A socket that fails is a
 * note on stderr, never a failed run. When Think's chat recovery takes the
 * turn over (an eviction, a restart, a deploy) and the socket sees it, a
 * "↻ recovering" line says so, "↻ resumed" when the turn goes on, and the
 * count follows the final status.
 *
 * Every dispatch sends a comment id (a new one unless `--comment-id` names
 * one), as a GitHub mention does, so the run's 🚀 reaction goes to the
 * stand-in. Under the final status a run on the scripted model says so.
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
import { agentSocketUrl } from "./lib/agent-frames";
import { openAgentSocket, type AgentSocket } from "./lib/agent-socket";
import { formatEvent, formatFinal, formatRecoveries, formatRecovery, SCRIPTED_NOTE } from "./lib/format-run";
import { LiveRun } from "./lib/live-run";
import { isScriptedEvent, runEvents, runMessages, takeUnseen, type RunAnchor, type RunEvent } from "./lib/run-events";
import { sessionName } from "../src/shared/session-name";

const POLL_INTERVAL_MS = 300;
const REQUEST_TIMEOUT_MS = 10_000;
// Past this the run is followed by polling alone; a local socket opens in well under 100 ms.
const SOCKET_CONNECT_TIMEOUT_MS = 3_000;
// A new issue's thread reaches the command center a moment after its dispatch answers.
const NEW_THREAD_SOCKET_WAIT_MS = 3_000;
const SOCKET_RETRY_MS = 100;
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

async function dispatchAndFollow(args: DispatchArgs): Promise<number> {
  const { request, baseUrl, timeoutSeconds } = args;
  const deadline = Date.now() + timeoutSeconds * 1000;
  const session = sessionName(request.repo, request.issueNumber);

  // What the session held before: a run without a comment id is a message that was not there.
  const before = await getMessages(baseUrl, session);
  const anchor: RunAnchor = {
    commentId: request.commentId,
    instruction: request.instruction,
    knownMessageIds: new Set(before.messages.map((message) => message.id))
  };

  // Subscribed before dispatching when the thread exists, so not even the
  // run's first chunks go by unseen; a new thread's socket opens just after.
  const early = await openAgentSocket({ url: agentSocketUrl(baseUrl, session), connectTimeoutMs: SOCKET_CONNECT_TIMEOUT_MS });
  let socket: AgentSocket | null = early.ok ? early.socket : null;
  try {
    const dispatched = await postDispatch(baseUrl, request);
    if (!dispatched.ok) {
      console.error(`dispatch: the server rejected the request: ${dispatched.error}`);
      return 2;
    }
    socket ??= await openLiveSocket(baseUrl, session);
    return await follow({ ...args, anchor, socket, deadline, run: dispatched.result });
  } finally {
    socket?.close();
  }
}

type Following = DispatchArgs & { anchor: RunAnchor; socket: AgentSocket | null; deadline: number; run: DispatchResult };

async function follow({ baseUrl, timeoutSeconds, anchor, socket, deadline, run }: Following): Promise<number> {
  console.log(`session     ${run.session}`);
  console.log(`submission  ${run.submissionId}`);
  console.log(`thread      ${run.threadUrl}`);
  console.log("");

  const printed = new Set<string>();
  // Whether the run is on the scripted model, said under its final status.
  let scripted = false;
  const print = (events: readonly RunEvent[]) => {
    for (const event of takeUnseen(events, printed)) {
      console.log(formatEvent(event));
      scripted ||= isScriptedEvent(event);
    }
  };
  const printNew = (snapshot: MessagesResponse) => {
    const messages = runMessages(snapshot.messages, anchor);
    if (messages !== null) print(runEvents(messages));
  };
  const live = socket === null ? null : new LiveRun(run.submissionId);
  if (socket !== null && live !== null) {
    socket.listen(
      (frame) => {
        print(live.accept(frame));
        const change = live.recovery(frame);
        if (change !== null) console.log(formatRecovery(change));
      },
      (reason) => console.error(`dispatch: live updates stopped (${reason}); the rest prints when the run ends`)
    );
  }

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
      socket?.close();
      // Messages and status are read side by side; read once more so the last messages are not missed.
      const last = await getMessages(baseUrl, run.session, run.submissionId);
      printNew(last);
      const submission = last.submission ?? snapshot.submission;
      console.log("");
      console.log(formatFinal(submission));
      const recoveries = formatRecoveries(live?.recoveries ?? 0);
      if (recoveries !== null) console.log(recoveries);
      if (scripted) console.log(SCRIPTED_NOTE);
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

/**
 * The session's agent socket, tried until its thread appears on the command
 * center, or null (with a note) when it cannot be opened: then the poll
 * alone follows the run.
 */
async function openLiveSocket(baseUrl: string, session: string): Promise<AgentSocket | null> {
  const until = Date.now() + NEW_THREAD_SOCKET_WAIT_MS;
  let opened = await openAgentSocket({ url: agentSocketUrl(baseUrl, session), connectTimeoutMs: SOCKET_CONNECT_TIMEOUT_MS });
  while (!opened.ok && Date.now() < until) {
    await sleep(SOCKET_RETRY_MS);
    opened = await openAgentSocket({ url: agentSocketUrl(baseUrl, session), connectTimeoutMs: SOCKET_CONNECT_TIMEOUT_MS });
  }
  if (opened.ok) return opened.socket;
  console.error(`dispatch: live updates unavailable (${opened.reason}); the run prints when it ends`);
  return null;
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
