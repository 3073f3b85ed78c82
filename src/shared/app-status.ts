/**
 * What the webhook app's token broker answers to `appStatus()`: whether the
 * GitHub App's credentials work (`GET /app` as the App), the App's slug and
 * name, and the handle mentions must use. The webhook app builds it
 * (ingress/src/app-check.ts); the agent Worker's token-broker health line
 * parses it (src/health/token-broker.ts). It never carries a token or a key.
 */
import { z } from "zod";

export const APP_CHECK_CODES = ["config", "app_auth", "not_found", "github", "bad_answer"] as const;
export type AppCheckCode = (typeof APP_CHECK_CODES)[number];

const handleFields = {
  /** The handle that starts a run, with its `@`; "" when MENTION_HANDLE is unset and the slug is not known. */
  mentionHandle: z.string().max(64),
  /** True when MENTION_HANDLE is set; else the handle is `@<slug>`. */
  handleSet: z.boolean(),
  /** ISO 8601: when GitHub was asked (the answer may be cached). */
  checkedAt: z.string()
};

export const appStatusSchema = z.discriminatedUnion("ok", [
  z.object({ ok: z.literal(true), slug: z.string().min(1).max(64), name: z.string().max(256), ...handleFields }),
  z.object({ ok: z.literal(false), code: z.enum(APP_CHECK_CODES), error: z.string().max(500), ...handleFields })
]);
export type AppStatus = z.infer<typeof appStatusSchema>;
