/**
 * The command center's first snapshot page carried in the dashboard's
 * index.html, so `/` shows its data before its JS and hydrates from it. The
 * element is data, never markup: the exact body `GET
 * /api/command-center?limit=100` answered, in a `<script
 * type="application/json">` with `<`, `>`, `&`, U+2028 and U+2029 escaped so
 * nothing in it can close the element. The Worker's side is spa.ts; the SPA
 * reads it in src/ui/inline-snapshot.ts. Why and how it falls back:
 * docs/dashboard.md, "First paint". Pure.
 */

/** The element's id, shared with the SPA. */
export const INLINE_SNAPSHOT_ID = "agent-think-snapshot";
/** On the element when #root holds the markup the Worker rendered from it (src/http/first-view.tsx), which the SPA then hydrates. */
export const FIRST_VIEW_ATTRIBUTE = "data-first-view";
/** The first page the SPA would ask for (src/ui/view-models/dashboard.ts `snapshotPath()`). */
export const INLINE_SNAPSHOT_PATH = "/api/command-center?limit=100";
/**
 * Larger answers are left out (the SPA then asks the API). The page is 100
 * threads of bounded fields (docs/dashboard.md); the bench's 2,000 seeded
 * threads give about 100 KB.
 */
export const MAX_INLINE_SNAPSHOT_BYTES = 256 * 1024;

const UNSAFE = /[<>&\u2028\u2029]/g;

/** JSON text that reads the same to JSON.parse and holds none of `<`, `>`, `&`, U+2028, U+2029. */
export function escapeJsonForHtml(json: string): string {
  return json.replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** An API answer's body as the element's text, or null when it is not a 200 JSON answer within the bound. */
export async function inlineSnapshotJson(answer: Response): Promise<string | null> {
  if (answer.status !== 200 || !(answer.headers.get("content-type") ?? "").startsWith("application/json")) {
    await answer.body?.cancel();
    return null;
  }
  const json = escapeJsonForHtml(await answer.text());
  if (new TextEncoder().encode(json).byteLength > MAX_INLINE_SNAPSHOT_BYTES) return null;
  return json;
}

/** The element for `inlineSnapshotJson`'s text; `rendered`: #root holds the first view drawn from it. */
export function inlineSnapshotElement(json: string, rendered: boolean): string {
  return `<script type="application/json" id="${INLINE_SNAPSHOT_ID}"${rendered ? ` ${FIRST_VIEW_ATTRIBUTE}` : ""}>${json}</script>`;
}

/** A copy of `headers` without what would make an answer a 304 or a range: both the snapshot and the page it goes into are read whole. */
export function withoutConditionals(headers: Headers): Headers {
  const copy = new Headers(headers);
  for (const name of ["if-none-match", "if-modified-since", "range"]) copy.delete(name);
  return copy;
}

/**
 * The request for the snapshot on behalf of a request for `/`: the same
 * headers (so the same Access identity and host), asking for JSON.
 */
export function snapshotRequestFor(page: Request): Request {
  const headers = withoutConditionals(page.headers);
  headers.set("accept", "application/json");
  return new Request(new URL(INLINE_SNAPSHOT_PATH, page.url), { method: "GET", headers });
}
