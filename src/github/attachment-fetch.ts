/**
 * Fetching one image or attachment of an issue, in the Worker, for
 * src/run/prepare.ts (the images the model is shown) and `fetch_attachment`
 * (src/run/run-attachments.ts): only a URL on one of GitHub's own hosts
 * (src/run/attachment-links.ts `fetchSource`), over https, with a timeout
 * and a byte cap that stops reading as soon as it is passed.
 *
 * The run's token goes to one host only: the deployment's web host
 * (github.com, or the Enterprise host), and there only when GitHub has
 * answered the same request without it with a 404 (how GitHub answers an
 * attachment of a private repository to someone it does not know). Never
 * to camo, the user-content hosts or any redirect: a redirect is followed
 * by hand, at most MAX_REDIRECTS times, each hop checked against
 * `mayRedirectTo` and sent with no credential. It never throws: every
 * failure is a tagged result with a sentence for the block.
 */
import { fetchSource, mayRedirectTo } from "../run/attachment-links";
import { readCapped } from "../shared/capped-body";

export const MAX_REDIRECTS = 3;
export const ATTACHMENT_TIMEOUT_MS = 15_000;

export type AttachmentFetchOptions = {
  /** The deployment's web host (github-urls.ts `host`): the only host the token may be sent to. */
  webHost: string;
  /** The run's token, for the deployment's web host only; absent: none is sent anywhere. */
  token?: string;
  maxBytes: number;
  timeoutMs?: number;
  fetch?: typeof fetch;
};

export type AttachmentFailure = "refused" | "not_found" | "too_large" | "timeout" | "http_error" | "network";
export type FetchedAttachment =
  | { ok: true; bytes: Uint8Array; contentType: string | null }
  | { ok: false; reason: AttachmentFailure; message: string };

/** `raw`'s bytes, from GitHub's hosts only. */
export async function fetchAttachment(raw: string, options: AttachmentFetchOptions): Promise<FetchedAttachment> {
  const classified = fetchSource(raw, options.webHost);
  if (!classified.ok) return { ok: false, reason: "refused", message: classified.reason };
  const timeoutMs = options.timeoutMs ?? ATTACHMENT_TIMEOUT_MS;
  const signal = AbortSignal.timeout(timeoutMs);
  const doFetch = options.fetch ?? fetch;
  try {
    let url = classified.url;
    let withToken = false;
    for (let hop = 0; ; ) {
      const headers: Record<string, string> = { "user-agent": "agent-think", accept: "*/*" };
      // Only the deployment's own host, only on the first hop, only after it said 404 without.
      if (withToken && options.token) headers.authorization = `Bearer ${options.token}`;
      const response = await doFetch(url.href, { headers, redirect: "manual", signal });
      if (response.status >= 300 && response.status < 400 && response.headers.has("location")) {
        await response.body?.cancel();
        const next = new URL(response.headers.get("location")!, url);
        if (++hop > MAX_REDIRECTS) return { ok: false, reason: "refused", message: `more than ${MAX_REDIRECTS} redirects` };
        if (!mayRedirectTo(next, options.webHost)) return { ok: false, reason: "refused", message: `redirected to ${next.host}, not one of GitHub's hosts: not followed` };
        url = next;
        withToken = false;
        continue;
      }
      if (response.status === 404 && !withToken && options.token && hop === 0 && classified.source === "github") {
        await response.body?.cancel();
        withToken = true;
        continue;
      }
      if (response.status === 404 || response.status === 410) {
        await response.body?.cancel();
        return { ok: false, reason: "not_found", message: `${response.status}: GitHub has no such file (deleted, or only a signed-in browser may see it)` };
      }
      if (!response.ok) {
        await response.body?.cancel();
        return { ok: false, reason: "http_error", message: `GitHub answered ${response.status}` };
      }
      return await readAttachment(response, options.maxBytes);
    }
  } catch (error) {
    if (signal.aborted) return { ok: false, reason: "timeout", message: `no answer within ${timeoutMs / 1000} s` };
    return { ok: false, reason: "network", message: error instanceof Error ? error.message : String(error) };
  }
}

/** The body, or `too_large` as soon as more than `maxBytes` arrive (a Content-Length above it is refused before reading). */
async function readAttachment(response: Response, maxBytes: number): Promise<FetchedAttachment> {
  const contentType = response.headers.get("content-type");
  const declared = Number(response.headers.get("content-length") ?? NaN);
  const tooLarge = (bytes: number | string): FetchedAttachment => ({ ok: false, reason: "too_large", message: `${bytes} bytes, more than the ${formatBytes(maxBytes)} allowed` });
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    return tooLarge(declared);
  }
  const bytes = await readCapped(response.body, maxBytes);
  if (!(bytes instanceof Uint8Array)) return tooLarge(`over ${bytes.over}`);
  return { ok: true, bytes, contentType };
}

export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB` : bytes >= 1024 ? `${Math.round(bytes / 1024)} KB` : `${bytes} bytes`;
}
