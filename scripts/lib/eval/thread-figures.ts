/**
 * A run's own figures as the dashboard API gives them (`GET
 * /api/command-center/threads/:session`): outcome, cost, tokens, tool calls,
 * the models that served it and the reproduction page. Both targets read them there, the local one
 * from the local Worker and the GitHub one from the deployed Worker with an
 * Access service token; `hasContainer` reads the same Worker's health report. The command center hears a run's end fire and
 * forget, so the read is retried a few seconds until the run has ended there.
 * `runFigures` is how both targets read a run's summary; `jsonOrText` and
 * `sleep` are the little the targets' polling shares.
 */
import { threadDetailSchema, type RunSummary } from "../../../src/shared/command-center";
import type { RunFigures } from "./target";

export type ThreadReader = {
  /** The Worker's origin. */
  baseUrl: string;
  /** Headers for the dashboard API (an Access service token's pair), none locally. */
  headers?: Record<string, string>;
  fetch?: typeof fetch;
};

const RETRY_MS = 250;
const WAIT_MS = 8_000;

/** The run `submissionId` of `session` once it has ended there, or the last seen state of it (null when the API never knew it). */
export async function endedRun(reader: ThreadReader, session: string, submissionId: string, waitMs = WAIT_MS): Promise<RunSummary | null> {
  const until = Date.now() + waitMs;
  let seen: RunSummary | null = null;
  for (;;) {
    seen = (await readRun(reader, session, submissionId)) ?? seen;
    if ((seen && seen.endedAt !== undefined) || Date.now() >= until) return seen;
    await sleep(RETRY_MS);
  }
}

/** The session's run `submissionId` now, or null (no such thread yet, or not that run). */
export async function readRun(reader: ThreadReader, session: string, submissionId: string): Promise<RunSummary | null> {
  const response = await (reader.fetch ?? fetch)(`${reader.baseUrl}/api/command-center/threads/${encodeURIComponent(session)}`, {
    headers: reader.headers ?? {},
    signal: AbortSignal.timeout(10_000)
  });
  if (response.status === 404) {
    await response.body?.cancel();
    return null;
  }
  const text = await response.text();
  if (response.status !== 200) throw new Error(`the dashboard API answered ${response.status} for thread ${session}${accessHint(response.status)}: ${text.slice(0, 200)}`);
  const parsed = threadDetailSchema.safeParse(jsonOrText(text));
  if (!parsed.success) throw new Error(`the dashboard API's answer for thread ${session} is not a thread: ${parsed.error.issues[0]?.message ?? ""}`);
  return parsed.data.runs.find((run) => run.submissionId === submissionId) ?? null;
}

/** The figures a run's summary gives, as the report carries them (a status it has not ended in is none). */
export function runFigures(run: RunSummary): Pick<RunFigures, "status" | "error" | "outcome" | "toolCalls" | "tokens" | "cost" | "scripted" | "models" | "reproductionUrl" | "proven"> {
  return {
    status: run.status === "done" || run.status === "error" || run.status === "cancelled" ? run.status : null,
    error: run.error ?? null,
    outcome: run.outcome ?? null,
    toolCalls: run.toolCalls,
    tokens: run.tokens ?? null,
    cost: run.cost ?? null,
    scripted: run.scripted ?? false,
    models: run.models?.length ? run.models : null,
    reproductionUrl: run.reproductionUrl ?? null,
    proven: run.proven ?? null
  };
}

/** Whether the Worker has a container for a case that `needs` one: its health report's containers line is ok (`GET /api/health`). */
export async function hasContainer(reader: ThreadReader): Promise<boolean> {
  const response = await (reader.fetch ?? fetch)(`${reader.baseUrl}/api/health`, { headers: reader.headers ?? {}, signal: AbortSignal.timeout(15_000) });
  const report = jsonOrText(await response.text()) as { checks?: Array<{ id?: unknown; status?: unknown }> } | string;
  return typeof report === "object" && Array.isArray(report?.checks) && report.checks.some((check) => check.id === "containers" && check.status === "ok");
}

/** A body as JSON, or as the text it is when it is not JSON. */
export function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function accessHint(status: number): string {
  return status === 401 || status === 403 || status === 302 ? " (behind Access: set CF_ACCESS_CLIENT_ID and CF_ACCESS_CLIENT_SECRET to a service token the application allows)" : "";
}
