/**
 * `GET /app` as the App (its JWT): the App's slug and name, or a tagged
 * failure saying what to check, never a token, the key or GitHub's body.
 * The one place that asks it: the identity (app-identity.ts), the mention
 * handle when MENTION_HANDLE is unset, and the broker's App check
 * (app-check.ts) all come here. A learned answer is kept in the isolate for
 * IDENTITY_TTL_SECONDS (the same hour as the identity); a failure is not kept.
 */
import { botIdentitySchema } from "../../../src/shared/dispatch";
import type { AppCheckCode } from "../../../src/shared/app-status";
import type { Logger } from "../log";
import { appOctokit, describeGitHubError, statusOf, TokenMintError, type AppCredentials, type CallPatience } from "./app-client";
import { canSign, toPkcs8Pem } from "./private-key";

export type AppInfo = { slug: string; name: string };
export type AppInfoResult = ({ ok: true } & AppInfo) | { ok: false; code: AppCheckCode; error: string };

/** The same hour as the identity's (app-identity.ts): a renamed App is seen within it. */
export const APP_INFO_TTL_MS = 60 * 60 * 1000;

const learned = new Map<string, AppInfo & { learnedAt: number }>();
const keyOf = (credentials: Pick<AppCredentials, "appId" | "apiUrl">) => `${credentials.appId.trim()} ${credentials.apiUrl}`;

/** What this isolate learned of the App within the hour; never asks anyone. */
export function knownAppInfo(credentials: Pick<AppCredentials, "appId" | "apiUrl">, now: number): AppInfo | undefined {
  const entry = learned.get(keyOf(credentials));
  return entry && entry.learnedAt <= now && now - entry.learnedAt < APP_INFO_TTL_MS ? { slug: entry.slug, name: entry.name } : undefined;
}

/** Forgets this isolate's copies (the tests' fresh isolate). */
export function forgetAppInfo(): void {
  learned.clear();
}

/** The App from this isolate, else from GitHub (then kept). */
export async function appInfo(credentials: AppCredentials, log: Logger, now: number, patience: CallPatience = {}): Promise<AppInfoResult> {
  const known = knownAppInfo(credentials, now);
  if (known) return { ok: true, ...known };
  return await askApp(credentials, log, now, patience);
}

/** `GET /app`, always asked; a good answer replaces the isolate's copy. */
export async function askApp(credentials: AppCredentials, log: Logger, now: number, patience: CallPatience = {}): Promise<AppInfoResult> {
  let app: ReturnType<typeof appOctokit>;
  try {
    app = appOctokit(credentials, log, patience);
  } catch (error) {
    if (error instanceof TokenMintError) return { ok: false, code: "config", error: error.message };
    throw error;
  }
  if (!(await canSign(toPkcs8Pem(credentials.privateKey)))) {
    return { ok: false, code: "config", error: "GITHUB_APP_PRIVATE_KEY is not a usable RSA private key (its PEM armour holds something else)" };
  }
  let data: { slug?: unknown; name?: unknown } | null | undefined;
  try {
    ({ data } = await app.rest.apps.getAuthenticated());
  } catch (error) {
    const status = statusOf(error);
    if (status === 401) {
      return { ok: false, code: "app_auth", error: "GitHub refused the App's JWT for GET /app: check GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY (the key must be this App's)" };
    }
    if (status === 404) {
      return {
        ok: false,
        code: "not_found",
        error: "GitHub answered 404 to GET /app: check GITHUB_API_URL (GitHub Enterprise Server: https://<host>/api/v3) and GITHUB_APP_ID"
      };
    }
    return { ok: false, code: "github", error: `${describeGitHubError(error, patience.timeoutMs)} to GET /app: check GITHUB_API_URL and GitHub's status, then retry` };
  }
  const slug = data?.slug;
  if (typeof slug !== "string" || !botIdentitySchema.shape.login.safeParse(`${slug}[bot]`).success) {
    return { ok: false, code: "bad_answer", error: "GitHub's answer to GET /app names no usable slug: check GITHUB_API_URL" };
  }
  const name = typeof data?.name === "string" && data.name !== "" ? data.name : slug;
  learned.set(keyOf(credentials), { slug, name, learnedAt: now });
  return { ok: true, slug, name };
}
