/**
 * The production model chain: OpenAI's Responses API through Cloudflare AI
 * Gateway (`store: false`, high reasoning effort), falling back to Anthropic
 * through the same gateway when the primary request fails.
 *
 * The gateway token travels in `cf-aig-authorization`; provider keys are
 * normally stored in the gateway (BYOK) and only sent when configured.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { GatewayModelConfig } from "./config";
import { withFallback, type FallbackEvent } from "./fallback";

/** Provider options every turn sends; see `ThinkAgent.beforeTurn`. */
export const GATEWAY_PROVIDER_OPTIONS = {
  openai: { store: false, reasoningEffort: "high" }
} as const;

export function createGatewayModel(
  config: GatewayModelConfig,
  onFallback?: (event: FallbackEvent) => void
): LanguageModelV4 {
  const headers = config.gatewayToken ? { "cf-aig-authorization": `Bearer ${config.gatewayToken}` } : undefined;
  const openai = createOpenAI({
    baseURL: `${config.gatewayUrl}/openai`,
    // The SDK insists on a key; with BYOK the gateway supplies the real one.
    apiKey: config.openai.apiKey ?? "stored-in-gateway",
    headers
  });
  const anthropic = createAnthropic({
    baseURL: `${config.gatewayUrl}/anthropic/v1`,
    apiKey: config.anthropic.apiKey ?? "stored-in-gateway",
    headers
  });
  return withFallback(openai.responses(config.openai.model), anthropic(config.anthropic.model), onFallback);
}
