/**
 * The dashboard's HTTP calls: the command-center snapshot, a thread's
 * detail (its runs), the continue route, a thread's transcript and the
 * configuration health report (the repository view's, in its own chunk:
 * hooks/use-repositories.ts). Answers are checked (`view-models/wire`),
 * so a backend that drifts shows a clear error, not a blank page.
 * Same-origin only: the Worker serves both the SPA and these routes.
 */
import type { CommandCenterState, Snapshot, ThreadDetail } from "../shared/command-center";
import type { TranscriptMessage } from "../shared/dispatch";
import type { HealthReport } from "../shared/health";
import { continueNetworkError, continueOutcome, continuePath, type ContinueOutcome } from "./view-models/continue";
import { snapshotPath } from "./view-models/dashboard";
import { readHealthReport } from "./view-models/health";
import { readLiveState, readSnapshot, readThreadDetail } from "./view-models/wire";

export class ApiError extends Error {
  override readonly name = "ApiError";
  constructor(
    message: string,
    readonly status?: number
  ) {
    super(message);
  }
}

/** GET `path` as JSON; a failure, a non-2xx answer or a body that is not JSON is an ApiError. */
export async function getJson(path: string, signal?: AbortSignal): Promise<unknown> {
  let response: Response;
  try {
    response = await fetch(path, { headers: { accept: "application/json" }, signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new ApiError(`the server did not answer (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!response.ok) {
    const text = (await response.text().catch(() => "")).trim().slice(0, 200);
    throw new ApiError(`HTTP ${response.status}${text && !text.startsWith("<") ? `: ${text}` : ""}`, response.status);
  }
  try {
    return await response.json();
  } catch {
    throw new ApiError("the server did not answer with JSON", response.status);
  }
}

export async function fetchSnapshot(cursor?: string, signal?: AbortSignal): Promise<Snapshot> {
  const body = await getJson(snapshotPath(cursor), signal);
  const read = readSnapshot(body);
  if (!read.ok) throw new ApiError(`unexpected snapshot shape: ${read.reason}`);
  if (read.dropped > 0) console.warn(`[agent-think] ${read.dropped} thread(s) in the snapshot were unreadable and are not shown`);
  return read.value;
}

export const threadDetailPath = (session: string) => `/api/command-center/threads/${encodeURIComponent(session)}`;

/** A thread and its runs, newest first; an unknown session is an ApiError with status 404. */
export async function fetchThreadDetail(session: string, signal?: AbortSignal): Promise<ThreadDetail> {
  const read = readThreadDetail(await getJson(threadDetailPath(session), signal));
  if (!read.ok) throw new ApiError(`unexpected thread detail shape: ${read.reason}`);
  if (read.dropped > 0) console.warn(`[agent-think] ${read.dropped} run(s) of the thread were unreadable and are not shown`);
  return read.value;
}

/** The live state as synced over the socket, or null when it is not the expected shape. */
export function parseLiveState(state: unknown): CommandCenterState | null {
  const read = readLiveState(state);
  if (!read.ok) {
    console.warn(`[agent-think] ignoring live state: ${read.reason}`);
    return null;
  }
  return read.value;
}

export async function postContinue(session: string): Promise<ContinueOutcome> {
  let response: Response;
  try {
    response = await fetch(continuePath(session), {
      method: "POST",
      // JSON, so the Worker can tell it from a cross-site form post.
      headers: { accept: "application/json", "content-type": "application/json" },
      body: "{}"
    });
  } catch (error) {
    return continueNetworkError(error);
  }
  const text = await response.text().catch(() => "");
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return continueOutcome(response.status, body);
}

export const transcriptPath = (session: string) => `/agents/think-agent/${encodeURIComponent(session)}/get-messages`;

export async function fetchTranscript(session: string, signal?: AbortSignal): Promise<TranscriptMessage[]> {
  const body = await getJson(transcriptPath(session), signal);
  if (!Array.isArray(body)) throw new ApiError("unexpected transcript shape: not a list of messages");
  return body.filter(
    (message): message is TranscriptMessage =>
      typeof message === "object" && message !== null && typeof message.role === "string" && Array.isArray(message.parts)
  );
}

export const HEALTH_PATH = "/api/health";

export async function fetchHealth(signal?: AbortSignal): Promise<HealthReport> {
  const report = readHealthReport(await getJson(HEALTH_PATH, signal));
  if (report === null) throw new ApiError("unexpected health report shape");
  return report;
}
