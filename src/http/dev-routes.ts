/**
 * The local-only HTTP surface, open only when `LOCAL_DEV=1`:
 * `POST /dev/dispatch`, `GET /dev/messages/:session` and `GET /dev/skills`
 * (docs/contracts.md, "HTTP"). Without LOCAL_DEV these are plain 404s. Pure:
 * the agent is reached through `deps`, so the routes are tested with fakes.
 */
import { z } from "zod";
import {
  InvalidInputError,
  type DispatchInput,
  type DispatchResult,
  type SubmissionStatus,
  type TranscriptMessage
} from "../shared/dispatch";
import { isRepoNotAllowed } from "../run/repo-allowlist";
import { isSessionName } from "../shared/session-name";
import { json, notFound } from "./responses";

export const DEFAULT_DEV_INSTRUCTION = "reproduce this issue";

export type DevRouteDeps = {
  localDev: boolean;
  dispatch(input: DispatchInput): Promise<DispatchResult>;
  messages(session: string): Promise<TranscriptMessage[]>;
  status(session: string, submissionId: string): Promise<SubmissionStatus | null>;
  skills(): Promise<unknown>;
};

const MAX_DEV_BODY_BYTES = 64 * 1024;

export async function handleDevRoute(request: Request, deps: DevRouteDeps): Promise<Response | null> {
  const url = new URL(request.url);
  if (!url.pathname.startsWith("/dev/")) return null;
  if (!deps.localDev) return notFound();

  if (url.pathname === "/dev/dispatch") {
    if (request.method !== "POST") return json({ error: "method not allowed" }, 405, { allow: "POST" });
    const text = await request.text();
    if (text.length > MAX_DEV_BODY_BYTES) return json({ error: "body too large" }, 413);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return json({ error: "body must be JSON" }, 400);
    }
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return json({ error: "body must be a JSON object" }, 400);
    }
    const input = {
      instruction: DEFAULT_DEV_INSTRUCTION,
      installationToken: "",
      ...(body as Record<string, unknown>)
    } as DispatchInput;
    try {
      return json(await deps.dispatch(input), 202);
    } catch (error) {
      if (error instanceof InvalidInputError || isInvalidInput(error)) {
        return json({ error: (error as Error).message }, 400);
      }
      if (isRepoNotAllowed(error)) return json({ error: (error as Error).message }, 403);
      throw error;
    }
  }

  const messages = /^\/dev\/messages\/([^/]+)$/.exec(url.pathname);
  if (messages) {
    if (request.method !== "GET") return json({ error: "method not allowed" }, 405, { allow: "GET" });
    const session = decodeURIComponent(messages[1]!);
    if (!isSessionName(session)) return json({ error: "not a session name" }, 400);
    const submissionId = z.string().min(1).max(200).safeParse(url.searchParams.get("submissionId"));
    const [transcript, submission] = await Promise.all([
      deps.messages(session),
      submissionId.success ? deps.status(session, submissionId.data) : Promise.resolve(undefined)
    ]);
    return json({ session, messages: transcript, ...(submission === undefined ? {} : { submission }) });
  }

  if (url.pathname === "/dev/skills") {
    if (request.method !== "GET") return json({ error: "method not allowed" }, 405, { allow: "GET" });
    return json(await deps.skills());
  }

  return notFound();
}

/** Errors that crossed RPC arrive as plain Errors; their message still says what was wrong. */
function isInvalidInput(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith("invalid input: ");
}
