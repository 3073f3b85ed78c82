/**
 * Driving the webhook app in its tests: send a delivery through the test
 * worker's fetch and wait for everything it started in `waitUntil`, look at
 * what the Worker stored (KV markers, claim objects) and dispatched, and
 * capture its log lines.
 */
import { createExecutionContext, listDurableObjectIds, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { vi } from "vitest";
import { signedDelivery, type Delivery } from "../../../scripts/lib/github-delivery";
import type { DispatchInput, DispatchResult } from "../../../src/shared/dispatch";
import worker, { RecordingAgentThink } from "../worker";
import { ISSUE_COMMENT_EXAMPLE } from "./examples";
import { testPayloads } from "./payloads";

export const WEBHOOK_URL = "https://ingress.test/webhooks/github";

export { newCommentId } from "./payloads";

/** GitHub's published issue_comment example, changed only where a case needs it (support/payloads.ts). */
export const { commentPayload, withoutComment, ghostCommenter } = testPayloads(ISSUE_COMMENT_EXAMPLE);

/** The App installation GitHub's example names (`installation.id`): the token is minted for it without a lookup. */
export const EXAMPLE_INSTALLATION_ID = (ISSUE_COMMENT_EXAMPLE as { installation?: { id?: number } }).installation?.id ?? 0;

export const sign = (payload: unknown, options?: { event?: string; deliveryId?: string; secret?: string }) =>
  signedDelivery(options?.secret ?? env.GITHUB_WEBHOOK_SECRET, payload, options);

/**
 * `onAnswer`: called once the Worker has answered, before its background
 * work is awaited; a test that holds a GitHub answer until then shows the
 * answer did not wait for it.
 */
export type SendOptions = { headers?: Record<string, string | null>; method?: string; url?: string; env?: Env; body?: BodyInit; onAnswer?: (response: Response) => void };

/** POST a delivery to the Worker and wait until its background work (token, 👀, dispatch, reports) is done. */
export async function send(delivery: Delivery, options: SendOptions = {}): Promise<Response> {
  const headers = new Headers(delivery.headers);
  for (const [name, value] of Object.entries(options.headers ?? {})) {
    if (value === null) headers.delete(name);
    else headers.set(name, value);
  }
  const method = options.method ?? "POST";
  const request = new Request(options.url ?? WEBHOOK_URL, {
    method,
    headers,
    body: method === "GET" ? undefined : (options.body ?? delivery.body)
  });
  const ctx = createExecutionContext();
  const response = await worker.fetch(request as Request<unknown, IncomingRequestCfProperties>, options.env ?? env, ctx);
  options.onAnswer?.(response);
  await waitOnExecutionContext(ctx);
  return response;
}

/** `base` with an in-isolate agent whose `dispatch` refuses, naming the token (and is recorded): workerd prints every rejected RPC call, and what crosses is name, message and `remote`. */
export function refusingAgentEnv(base: Env = env): Env {
  return agentRefusingWith((input) => `agent refused the run for token ${input.installationToken}`, base);
}

/**
 * `base` with an in-isolate agent whose `dispatch` (recorded) throws what a
 * refusal is once it crossed RPC: a plain Error with the refusal's message
 * and `remote`, none of its own properties (`code`, its class's name).
 */
export function agentRefusingWith(message: (input: DispatchInput) => string, base: Env = env): Env {
  const agent = {
    async dispatch(input: DispatchInput): Promise<DispatchResult> {
      RecordingAgentThink.calls.push(input);
      throw Object.assign(new Error(message(input)), { remote: true });
    }
  };
  return { ...base, AGENT_THINK: agent as unknown as Env["AGENT_THINK"] };
}

export const outcome = (response: Response) => response.headers.get("agent-think-outcome");

export async function marker(commentId: number): Promise<Record<string, unknown> | null> {
  return await env.EVENT_STATE.get(`handled:comments:${commentId}`, "json");
}

export const dispatchesFor = (commentId: number) => RecordingAgentThink.calls.filter((call) => call.commentId === commentId);

/** Everything the Worker could have left behind: KV keys, claim objects, dispatches. */
export async function storedState() {
  return {
    markers: (await env.EVENT_STATE.list()).keys.map((key) => key.name).sort(),
    claims: (await listDurableObjectIds(env.COMMENT_CLAIMS)).map((id) => id.toString()).sort(),
    dispatches: RecordingAgentThink.calls.length
  };
}

/** Every console line written while `run` runs (the Worker shares the test isolate). */
export async function captureConsole<T>(run: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const record = (...args: unknown[]) => void lines.push(args.map(String).join(" "));
  const spies = (["log", "info", "warn", "error", "debug"] as const).map((method) => vi.spyOn(console, method).mockImplementation(record));
  try {
    return { result: await run(), lines };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** The parsed `agent-think-ingress {json}` lines. */
export const logEvents = (lines: string[]) =>
  lines.filter((line) => line.startsWith("agent-think-ingress ")).map((line) => JSON.parse(line.slice("agent-think-ingress ".length)) as Record<string, unknown>);
