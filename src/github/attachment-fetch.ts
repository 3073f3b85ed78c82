/**
 * Fetching one image or upload of an issue, in the Worker, for
 * src/steps/prepare.ts and `fetch_attachment` (src/steps/run-attachments.ts):
 * only from GitHub's hosts (attachment-links.ts `fetchSource`), https, a
 * timeout, a byte cap. A credential goes only with an upload's own path on
 * the deployment's web host (`credentialedUpload`), after a 404 without one,
 * and it is the run's read-only token from `readToken`, never its write
 * token; redirects are followed by hand (`mayRedirectTo`) with none. It
 * never throws: a failure is a tagged result (docs/security.md).
 */
import { credentialedUpload, fetchSource, mayRedirectTo } from "../run/attachment-links";
import { readCapped } from "../shared/capped-body";
import { parseGitHubApiUrl } from "../shared/github-urls";

export const MAX_REDIRECTS = 3;
export const ATTACHMENT_TIMEOUT_MS = 15_000;

export type AttachmentFetchOptions = {
  /** The deployment's web host (github-urls.ts `host`): the only host a credential may be sent to. */
  webHost: string;
  /** The run's repository, `owner/name`: its own `/<owner>/<repo>/assets|files/…` uploads may get the credential; absent: only `/user-attachments/…`. */
  repo?: string;
  /** A fresh read-only token for the run's repository, asked for only when an upload's path answered 404 without; absent (or ""): no credential anywhere. */
  readToken?: () => Promise<string>;
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
  const credentialed = options.readToken !== undefined && credentialedUpload(classified.url, options.webHost, options.repo ?? null);
  try {
    let url = classified.url;
    let token = "";
    for (let hop = 0; ; ) {
      const headers: Record<string, string> = { "user-agent": "agent-think", accept: "*/*" };
      // Only an upload's path on the deployment's own host, only on the first hop, only after it said 404 without.
      if (token) headers.authorization = `Bearer ${token}`;
      const response = await doFetch(url.href, { headers, redirect: "manual", signal });
      if (response.status >= 300 && response.status < 400 && response.headers.has("location")) {
        await response.body?.cancel();
        const next = new URL(response.headers.get("location")!, url);
        if (++hop > MAX_REDIRECTS) return { ok: false, reason: "refused", message: `more than ${MAX_REDIRECTS} redirects` };
        if (!mayRedirectTo(next, options.webHost)) return { ok: false, reason: "refused", message: `redirected to ${next.host}, not one of GitHub's hosts: not followed` };
        url = next;
        token = "";
        continue;
      }
      if (response.status === 404 && !token && hop === 0 && credentialed) {
        await response.body?.cancel();
        token = await readTokenOf(options);
        if (token) continue;
        return { ok: false, reason: "not_found", message: "404: GitHub has no such file, or it is a private repository's and no read-only token could be had for it" };
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

/** The read-only token, or "" when there is none to be had (the getter's failure is not the fetch's). */
async function readTokenOf(options: AttachmentFetchOptions): Promise<string> {
  try {
    return (await options.readToken?.()) ?? "";
  } catch {
    return "";
  }
}

/** What src/steps/issue-attachments.ts and src/steps/run-attachments.ts fetch through. */
export type AttachmentReader = {
  /** The deployment's web host; null when it has none (then nothing is fetched). */
  webHost: string | null;
  fetchAttachment(url: string, maxBytes: number): Promise<FetchedAttachment>;
};

/**
 * The run's attachment reader: GitHub's hosts of `apiUrl`'s deployment, and
 * `readToken` (a fresh read-only token for `repo`, the run's repository)
 * only as `fetchAttachment` allows it.
 */
export function createAttachmentReader(options: { apiUrl: string; repo: string; readToken: () => Promise<string>; fetch?: typeof fetch }): AttachmentReader {
  const github = parseGitHubApiUrl(options.apiUrl);
  return {
    webHost: github.ok ? github.github.host : null,
    async fetchAttachment(url, maxBytes) {
      if (!github.ok) return { ok: false, reason: "refused", message: github.error };
      return fetchAttachment(url, { webHost: github.github.host, repo: options.repo, readToken: options.readToken, maxBytes, ...(options.fetch ? { fetch: options.fetch } : {}) });
    }
  };
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
