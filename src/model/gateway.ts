/**
 * The production model chain: OpenAI's Responses API through Cloudflare AI
 * Gateway, falling back to Anthropic through the same gateway when the
 * primary request fails; for a repository that picked a model (`model:`,
 * allowed-models.ts), that model first on its provider and the deployment's
 * model of the other provider after it. What each step asks of them (`store: false`, the
 * reasoning effort, Anthropic's prompt caching) is reasoning-effort.ts's,
 * sent from `ThinkAgent.beforeStep`.
 *
 * Both providers send through `gatewayFetch`, which puts on the gateway's
 * headers for the configured mode (stored or request keys, config.ts) and
 * each request's `cf-aig-metadata`.
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
