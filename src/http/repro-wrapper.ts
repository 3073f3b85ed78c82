/**
 * The page a reproduction's address answers (repro-routes.ts): a document
 * the Worker writes, with a fixed header saying the page below was written
 * by an agent-think run for the issue (repro/publication-issue.ts), not by
 * the maintainers, over the model's page in an `<iframe
 * sandbox="allow-scripts">`. Also decides which requests may have a model's
 * file a browser would run as a document. Pure apart from WebCrypto. Its
 * policy: docs/security.md, "Reproduction pages".
 */
import type { ReproIssue } from "../repro/publication-issue";

/** The frame's document name: the wrapper's own address would be a frame of itself. */
const FRAMED_DOCUMENT = "index.html";

const STYLE = [
  "html,body{margin:0;height:100%}",
  "body{display:flex;flex-direction:column;font:14px/1.4 system-ui,sans-serif}",
  "header{flex:none;padding:8px 12px;background:#fff4d6;color:#3d2e00;border-bottom:2px solid #d9a400}",
  "header p{margin:0}",
  "header a{color:inherit}",
  "iframe{flex:1;width:100%;border:0}"
].join("");

let styleHash: Promise<string> | undefined;

async function styleSource(): Promise<string> {
  styleHash ??= crypto.subtle.digest("SHA-256", new TextEncoder().encode(STYLE)).then((digest) => {
    return `'sha256-${btoa(String.fromCharCode(...new Uint8Array(digest)))}'`;
  });
  return styleHash;
}

/**
 * The wrapper's Content-Security-Policy for a page at `pageBase` (its
 * absolute address, ending in a slash): no script at all, its one style by
 * hash, and frames only from under the page's address, which also governs
 * where the framed document may later navigate.
 */
export async function wrapperPolicy(pageBase: string): Promise<string> {
  return [
    "default-src 'none'",
    "script-src 'none'",
    `style-src ${await styleSource()}`,
    `frame-src ${pageBase}`,
    "frame-ancestors 'none'",
    "form-action 'none'",
    "base-uri 'none'"
  ].join("; ");
}

/** The wrapper for a page at `pageBase`; `search` (the request's query, `?…` or empty) is handed on to the frame. */
export async function wrapperResponse(request: Request, where: { pageBase: string; search: string; issue: ReproIssue | undefined }): Promise<Response> {
  const headers = new Headers({
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": await wrapperPolicy(where.pageBase),
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-cache",
    vary: "sec-fetch-dest"
  });
  return new Response(request.method === "HEAD" ? null : wrapperHtml(where.issue, where.search), { headers });
}

export function wrapperHtml(issue: ReproIssue | undefined, search: string): string {
  const named = issue ? `${issue.repo}#${issue.number}` : undefined;
  const forIssue = named === undefined ? "" : issue?.url ? ` for <a href="${escape(issue.url)}" rel="noreferrer">${escape(named)}</a>` : ` for ${escape(named)}`;
  return [
    "<!doctype html>",
    '<html lang="en">',
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escape(named ? `Reproduction of ${named}` : "Reproduction")} (agent-think)</title>`,
    `<style>${STYLE}</style></head>`,
    "<body>",
    '<header id="agent-think-repro">',
    `<p><strong>A reproduction written by an agent-think run</strong>${forIssue}, not by the repository's maintainers.</p>`,
    "<p>The page below is code a model wrote. It runs in a sandbox: it cannot open windows or dialogs, submit forms, or leave its frame.</p>",
    "</header>",
    `<iframe src="${escape(FRAMED_DOCUMENT + search)}" sandbox="allow-scripts" referrerpolicy="no-referrer" title="The reproduction page"></iframe>`,
    "</body>",
    "</html>"
  ].join("\n");
}

// What a browser runs scripts in when it is navigated to it.
const DOCUMENT_TYPE = /^\s*(text\/html|application\/xhtml\+xml|image\/svg\+xml|text\/xml|application\/xml)\s*(;|$)/i;
const SVG_TYPE = /^\s*image\/svg\+xml\s*(;|$)/i;

/**
 * Whether a model's file of `contentType` may answer a request whose
 * `Sec-Fetch-Dest` is `dest`: anything that is not a document, as before; a
 * document only to a frame (an SVG also as an image, where it runs nothing).
 * A top-level visit, or a client that says nothing, gets the wrapper instead.
 */
export function servesModelFile(dest: string | null, contentType: string): boolean {
  if (!DOCUMENT_TYPE.test(contentType)) return true;
  if (dest === "iframe") return true;
  return dest === "image" && SVG_TYPE.test(contentType);
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
