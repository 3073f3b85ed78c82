/**
 * MSW stand-ins for the model providers behind AI Gateway: the OpenAI
 * Responses API and the Anthropic Messages API, each answering a plain text
 * reply (or, from OpenAI, one tool call) as a server-sent event stream, or
 * failing with a given status.
 * Every request body is recorded so tests can read exactly what a provider saw.
 */
import { http, HttpResponse } from "msw";
import { TEST_GATEWAY_ENV } from "../worker";

const GATEWAY = `https://gateway.ai.cloudflare.com/v1/${TEST_GATEWAY_ENV.AI_GATEWAY_ACCOUNT_ID}/${TEST_GATEWAY_ENV.AI_GATEWAY_ID}`;
export const OPENAI_RESPONSES_URL = `${GATEWAY}/openai/responses`;
export const ANTHROPIC_MESSAGES_URL = `${GATEWAY}/anthropic/v1/messages`;

export type RecordedRequest = { url: string; headers: Record<string, string>; body: string };

function sse(events: Array<{ event?: string; data: unknown }>): Response {
  const text = events
    .map(({ event, data }) => `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`)
    .join("");
  return new Response(text, { headers: { "content-type": "text/event-stream" } });
}

export function openaiText(text: string): Response {
  const item = { type: "message", id: "msg_test" };
  return sse([
    { data: { type: "response.created", response: { id: "resp_test", created_at: 1, model: "gpt-test" } } },
    { data: { type: "response.output_item.added", output_index: 0, item } },
    { data: { type: "response.output_text.delta", item_id: "msg_test", output_index: 0, delta: text } },
    { data: { type: "response.output_item.done", output_index: 0, item } },
    { data: { type: "response.completed", response: { usage: { input_tokens: 42, output_tokens: 7 } } } }
  ]);
}

/** One call of `toolName` with `input`, as the Responses API streams a function call. */
export function openaiToolCall(toolName: string, input: unknown, callId = "call_test"): Response {
  const item = { type: "function_call", id: "fc_test", call_id: callId, name: toolName };
  return sse([
    { data: { type: "response.created", response: { id: "resp_tool", created_at: 1, model: "gpt-test" } } },
    { data: { type: "response.output_item.added", output_index: 0, item: { ...item, arguments: "", status: "in_progress" } } },
    { data: { type: "response.output_item.done", output_index: 0, item: { ...item, arguments: JSON.stringify(input), status: "completed" } } },
    { data: { type: "response.completed", response: { usage: { input_tokens: 42, output_tokens: 7 } } } }
  ]);
}

export function anthropicText(text: string): Response {
  return sse([
    {
      event: "message_start",
      data: {
        type: "message_start",
        message: {
          id: "msg_anthropic_test",
          type: "message",
          role: "assistant",
          model: "claude-test",
          content: [],
          stop_reason: null,
          usage: { input_tokens: 40, output_tokens: 1 }
        }
      }
    },
    { event: "content_block_start", data: { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } } },
    { event: "content_block_delta", data: { type: "content_block_delta", index: 0, delta: { type: "text_delta", text } } },
    { event: "content_block_stop", data: { type: "content_block_stop", index: 0 } },
    { event: "message_delta", data: { type: "message_delta", delta: { stop_reason: "end_turn" }, usage: { output_tokens: 9 } } },
    { event: "message_stop", data: { type: "message_stop" } }
  ]);
}

export function providerError(status: number, message: string): Response {
  return HttpResponse.json({ error: { type: "api_error", message } }, { status });
}

/** Handlers answering with `reply(kind)`; every request lands in `recorded`. */
export function providerHandlers(
  answer: { openai: () => Response; anthropic: () => Response },
  recorded: RecordedRequest[]
) {
  const record = async (request: { url: string; headers: Headers; clone(): { text(): Promise<string> } }) => {
    recorded.push({
      url: request.url,
      headers: Object.fromEntries(request.headers),
      body: await request.clone().text()
    });
  };
  return [
    http.post(OPENAI_RESPONSES_URL, async ({ request }) => (await record(request), answer.openai())),
    http.post(ANTHROPIC_MESSAGES_URL, async ({ request }) => (await record(request), answer.anthropic()))
  ];
}
