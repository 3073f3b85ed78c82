/**
 * The production model chain: OpenAI's Responses API through Cloudflare AI
 * Gateway, falling back to Anthropic through the same gateway; for a
 * repository that picked a model (allowed-models.ts), that model first and
 * the deployment's model of the other provider after it. Both providers send
 * through `gatewayFetch`. What each step asks of them is reasoning-effort.ts's.
 * docs/model-setup.md.
 */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import { chainFor, type ModelRoute } from "./allowed-models";
import type { GatewayModelConfig } from "./config";
import { withFallback, type FallbackEvent } from "./fallback";
import { gatewayFetch } from "./gateway-fetch";
import type { MetadataSource } from "./metadata";

/**
 * What the SDKs get as a key in the stored-keys mode, where they insist on
 * one: gatewayFetch removes the header carrying it, so it never leaves.
 */
export const UNSENT_KEY = "unsent-stored-in-gateway";

export type GatewayModelHooks = {
  onFallback?: (event: FallbackEvent) => void;
  metadata?: MetadataSource;
};

/** `requested`: the repository's model, already allowed (run-models.ts); absent for the deployment's chain. */
export function createGatewayModel(config: GatewayModelConfig, hooks: GatewayModelHooks = {}, requested?: string): LanguageModelV4 {
  const { auth } = config;
  const fetch = gatewayFetch(auth, hooks.metadata);
  const openai = createOpenAI({
    baseURL: `${config.gatewayUrl}/openai`,
    apiKey: auth.keys === "request" ? auth.openaiApiKey : UNSENT_KEY,
    fetch
  });
  const anthropic = createAnthropic({
    baseURL: `${config.gatewayUrl}/anthropic/v1`,
    apiKey: auth.keys === "request" ? auth.anthropicApiKey : UNSENT_KEY,
    fetch
  });
  const build = (route: ModelRoute) => (route.provider === "openai" ? openai.responses(route.model) : anthropic(route.model));
  const chain = chainFor(config, requested);
  return withFallback(build(chain.primary), build(chain.fallback), hooks.onFallback);
}
