/**
 * The Cloudflare API calls the deploy checks make (account plan, R2,
 * workers.dev subdomain), with wrangler's own credentials: CLOUDFLARE_API_TOKEN
 * when set, else what `wrangler auth token --json` answers. The credential
 * stays in this module's closure; answers carry only the API's JSON. fetch
 * and the runner are injected for the tests.
 */
import type { Runner } from "./runner";

export const API_BASE = "https://api.cloudflare.com/client/v4";

/** The API's envelope (https://developers.cloudflare.com/fundamentals/api/), or why it did not arrive. */
export type ApiAnswer =
  | { kind: "answered"; status: number; success: boolean; result: unknown; errors: Array<{ code: number; message: string }> }
  | { kind: "failed"; error: string };

export type CloudflareApi = { get(path: string): Promise<ApiAnswer>; secrets: string[] };

type Credential = { headers: Record<string, string>; secrets: string[] };

/** Asks wrangler for its credential; null when it has none. */
export async function wranglerCredential(run: Runner, env: Record<string, string | undefined>): Promise<Credential | null> {
  const token = env.CLOUDFLARE_API_TOKEN?.trim();
  if (token) return { headers: { authorization: `Bearer ${token}` }, secrets: [token] };
  const answer = await run("npx", ["wrangler", "auth", "token", "--json"], { timeoutMs: 60_000 });
  if (answer.code !== 0) return null;
  try {
    const parsed = JSON.parse(answer.stdout.trim()) as { type?: string; token?: string; key?: string; email?: string };
    if (typeof parsed.token === "string" && parsed.token !== "") return { headers: { authorization: `Bearer ${parsed.token}` }, secrets: [parsed.token] };
    if (typeof parsed.key === "string" && typeof parsed.email === "string") return { headers: { "x-auth-key": parsed.key, "x-auth-email": parsed.email }, secrets: [parsed.key] };
  } catch {
    // Not JSON: no credential to use.
  }
  return null;
}

export function cloudflareApi(credential: Credential, fetcher: typeof fetch = fetch): CloudflareApi {
  return {
    secrets: credential.secrets,
    async get(path) {
      let response: Response;
      try {
        response = await fetcher(`${API_BASE}${path}`, { headers: { ...credential.headers, accept: "application/json" }, signal: AbortSignal.timeout(15_000) });
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        return { kind: "failed", error: cause ?? (error instanceof Error ? error.message : String(error)) };
      }
      const text = await response.text().catch(() => "");
      try {
        const body = JSON.parse(text) as { success?: boolean; result?: unknown; errors?: Array<{ code: number; message: string }> };
        return { kind: "answered", status: response.status, success: body.success === true, result: body.result ?? null, errors: Array.isArray(body.errors) ? body.errors : [] };
      } catch {
        return { kind: "failed", error: `${response.status} with a body that is not JSON` };
      }
    }
  };
}
