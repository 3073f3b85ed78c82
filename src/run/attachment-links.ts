/**
 * The images and attachments people put in an issue (its body, its latest comments; on a pull
 * request its body), found as GitHub renders them, and which of them the Worker may fetch: the
 * one list src/steps/prepare.ts fetches images from, the block's `attachments` lists, and
 * `fetch_attachment` accepts. Nothing in fenced code, inline code or an HTML comment counts;
 * only GitHub's own hosts are fetched (`fetchSource`), and a credential goes only with an upload's
 * own path on the deploy's web host (`credentialedUpload`; src/github/attachment-fetch.ts).
 * `sniffImage` tells an image by its magic numbers. docs/security.md, docs/skills.md. Pure.
 */

export type AttachmentKind = "image" | "file";

/** One image or upload found in a text. `url` is as written; alt text and names are as written too (the caller reveals them). */
export type FoundLink = { url: string; kind: AttachmentKind; alt?: string; name?: string };

/** Where a URL may be fetched from: `github` is the deployment's web host (the only one the token may go to), the others never see it. */
export type FetchSource = "github" | "github-public" | "camo" | "user-content";

export type Classified = { ok: true; source: FetchSource; url: URL } | { ok: false; reason: string };

/** A link longer than this is listed cut, never fetched. */
export const MAX_LINK_URL_CHARS = 2_000;

const INLINE_CODE = /(`+)[^`]*?\1/g;
const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g;
const MARKDOWN_IMAGE = /!\[((?:[^\]\\]|\\.)*)\]\(\s*<?([^\s)>]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const MARKDOWN_LINK = /(?<!!)\[((?:[^\]\\]|\\.)*)\]\(\s*<?([^\s)>]+)>?(?:\s+(?:"[^"]*"|'[^']*'))?\s*\)/g;
const IMG_TAG = /<img\b[^>]*>/gi;
const BARE_UPLOAD = /(?<![("'=<\w])https:\/\/[^\s<>()"'`]+\/user-attachments\/(?:assets|files)\/[^\s<>()"'`]+/g;
const USER_CONTENT_HOSTS = new Set(["user-images.githubusercontent.com", "private-user-images.githubusercontent.com"]);
const CAMO_HOST = "camo.githubusercontent.com";

/** `text` with what GitHub does not render as links blanked: fenced code, inline code, HTML comments. */
export function renderedText(text: string): string {
  const kept: string[] = [];
  let fence: string | null = null;
  for (const line of text.replace(HTML_COMMENT, "").split("\n")) {
    const opens = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === null && opens) fence = opens;
    else if (fence !== null && opens !== undefined && opens[0] === fence[0] && opens.length >= fence.length && line.trim() === opens) fence = null;
    else if (fence === null) kept.push(line);
  }
  return kept.join("\n").replace(INLINE_CODE, "");
}

/** Images and uploads in `text`, in order, each URL once. */
export function findLinks(text: string): FoundLink[] {
  const shown = renderedText(text);
  const found: Array<FoundLink & { at: number }> = [];
  for (const match of shown.matchAll(MARKDOWN_IMAGE)) found.push({ at: match.index, url: match[2]!, kind: "image", alt: unescape(match[1]!) });
  for (const match of shown.matchAll(IMG_TAG)) {
    const src = attribute(match[0], "src");
    if (!src) continue;
    const alt = attribute(match[0], "alt");
    found.push({ at: match.index, url: src, kind: "image", ...(alt ? { alt } : {}) });
  }
  for (const match of shown.matchAll(MARKDOWN_LINK)) {
    if (!isUploadedFile(match[2]!)) continue;
    found.push({ at: match.index, url: match[2]!, kind: "file", name: unescape(match[1]!) });
  }
  for (const match of shown.matchAll(BARE_UPLOAD)) {
    const url = match[0].replace(/[.,;:!?]+$/, "");
    found.push({ at: match.index, url, kind: isUploadedFile(url) ? "file" : "image" });
  }
  found.sort((a, b) => a.at - b.at);
  const seen = new Set<string>();
  return found.flatMap(({ at: _at, ...link }) => {
    if (seen.has(link.url)) return [];
    seen.add(link.url);
    return [link];
  });
}

/** A file upload: `/user-attachments/files/<id>/<name>`, or the older `/<owner>/<repo>/files/<id>/<name>`. */
function isUploadedFile(url: string): boolean {
  return /^https:\/\/[^/]+\/(?:user-attachments|[^/]+\/[^/]+)\/files\/\d+\/[^/]+/.test(url);
}

/** An HTML attribute's value, quoted or not, entities `&amp;` and `&quot;` decoded. */
function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s"'>]+))`, "i").exec(tag);
  const value = match ? (match[1] ?? match[2] ?? match[3] ?? "") : undefined;
  return value?.replaceAll("&quot;", '"').replaceAll("&amp;", "&");
}

function unescape(text: string): string {
  return text.replace(/\\(.)/g, "$1");
}

/**
 * Whether `raw` may be fetched, and from which kind of host: https only, no
 * user:password, no port, and one of GitHub's own hosts. `webHost` is the
 * deployment's (github-urls.ts's `host`).
 */
export function fetchSource(raw: string, webHost: string): Classified {
  if (raw.length > MAX_LINK_URL_CHARS) return { ok: false, reason: `a link of ${raw.length} characters: not fetched` };
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: "not a URL: not fetched" };
  }
  if (url.protocol !== "https:") return { ok: false, reason: `a ${url.protocol} link: only https links on GitHub's hosts are fetched` };
  if (url.username || url.password) return { ok: false, reason: "a link with a user name or password: not fetched" };
  if (url.port !== "") return { ok: false, reason: "a link with a port: not fetched" };
  const host = url.hostname;
  if (url.host === webHost.toLowerCase()) return { ok: true, source: "github", url };
  if (host === "github.com" && url.pathname.startsWith("/user-attachments/")) return { ok: true, source: "github-public", url };
  if (host === CAMO_HOST) return { ok: true, source: "camo", url };
  if (USER_CONTENT_HOSTS.has(host)) return { ok: true, source: "user-content", url };
  return { ok: false, reason: `on ${host}, not one of GitHub's hosts: listed, never fetched` };
}

/** An upload's own path segment after its id: a file name, never a way to another path (`..`, an encoded slash). */
const UPLOAD_NAME = /^(?!\.\.?$)(?!.*%(?:2f|5c))[^/]+$/i;
const UUID_EXACT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UPLOAD_PATH = /^\/(?:user-attachments|([^/]+)\/([^/]+))\/(assets|files)\/(?:(\d+)\/)?([^/]+)$/;

/**
 * Whether `url` is an upload GitHub keeps on the deployment's web host, the
 * one kind of URL a credential may go with: `/user-attachments/assets/<uuid>`,
 * `/user-attachments/files/<id>/<name>`, or the run's repository's own
 * `/<owner>/<repo>/assets/<id>/<uuid>` and `/<owner>/<repo>/files/<id>/<name>`;
 * https, no query, no user name or port. `repo` is the run's `owner/name`
 * (null: only `/user-attachments/`).
 */
export function credentialedUpload(url: URL, webHost: string, repo: string | null): boolean {
  if (url.protocol !== "https:" || url.username || url.password || url.port !== "" || url.search !== "") return false;
  if (url.host !== webHost.toLowerCase()) return false;
  const match = UPLOAD_PATH.exec(url.pathname);
  if (!match) return false;
  const [, owner, name, kind, id, last = ""] = match;
  if (owner !== undefined && (repo === null || `${owner}/${name}`.toLowerCase() !== repo.toLowerCase())) return false;
  if (kind === "assets") return (owner === undefined ? id === undefined : id !== undefined) && UUID_EXACT.test(last);
  return id !== undefined && UPLOAD_NAME.test(last);
}

/**
 * Where GitHub's own redirect of an attachment may lead: its content hosts
 * (`*.githubusercontent.com`) and the S3 buckets it serves uploads from
 * (`github-production-*.s3.amazonaws.com`), or the deployment's own host.
 * Nothing else, so camo (or anything) answering a redirect to another host
 * is refused. The token never follows a redirect (the fetcher's rule).
 */
export function mayRedirectTo(url: URL, webHost: string): boolean {
  if (url.protocol !== "https:" || url.username || url.password || url.port !== "") return false;
  const host = url.hostname;
  return (
    url.host === webHost.toLowerCase() ||
    host.endsWith(".githubusercontent.com") ||
    /^github-production-[a-z0-9-]+\.s3(?:\.[a-z0-9-]+)?\.amazonaws\.com$/.test(host)
  );
}

/** The image formats both the OpenAI and the Anthropic models take. */
export const IMAGE_MEDIA_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/** The image format `bytes` are, by their magic numbers; null for anything else (an SVG, a video, a text named `.png`). */
export function sniffImage(bytes: Uint8Array): ImageMediaType | null {
  const starts = (...values: number[]) => values.every((value, index) => bytes[index] === value);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return "image/png";
  if (starts(0xff, 0xd8, 0xff)) return "image/jpeg";
  if (starts(0x47, 0x49, 0x46, 0x38) && (bytes[4] === 0x37 || bytes[4] === 0x39) && bytes[5] === 0x61) return "image/gif";
  if (starts(0x52, 0x49, 0x46, 0x46) && String.fromCharCode(...bytes.slice(8, 12)) === "WEBP") return "image/webp";
  return null;
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/**
 * The signed `private-user-images.githubusercontent.com/…?jwt=…` address
 * GitHub's rendered HTML (the API's `body_html`) gives each uploaded image,
 * by the upload's UUID: for a private repository the only address a
 * program can fetch one from (GitHub serves `/user-attachments/assets/<uuid>`
 * of a private repository only to a signed-in browser; the signed address
 * needs no credential and expires after a few minutes).
 */
export function signedImageUrls(html: string): Map<string, string> {
  const signed = new Map<string, string>();
  for (const match of html.matchAll(/https:\/\/private-user-images\.githubusercontent\.com\/[^\s"'<>]+/g)) {
    const url = match[0].replaceAll("&amp;", "&");
    const uuid = UUID.exec(new URL(url).pathname)?.[0]?.toLowerCase();
    if (uuid && new URL(url).searchParams.has("jwt") && !signed.has(uuid)) signed.set(uuid, url);
  }
  return signed;
}

/** The upload UUID of a `/user-attachments/assets/<uuid>` URL (or the older `/<owner>/<repo>/assets/<id>/<uuid>`), lowercase; null for any other. */
export function uploadUuid(raw: string): string | null {
  const match = /^https:\/\/[^/]+\/(?:user-attachments\/assets|[^/]+\/[^/]+\/assets\/\d+)\/([0-9a-f-]{36})(?:[/?#]|$)/i.exec(raw);
  return match && UUID.test(match[1]!) ? match[1]!.toLowerCase() : null;
}

/** A file name for `url` under /workspace/attachments: its last path segment, made safe (no `/`, no leading dot), or `attachment`. */
export function attachmentFileName(url: string, name?: string): string {
  let last = "";
  try {
    last = decodeURIComponent(new URL(url).pathname.split("/").filter(Boolean).at(-1) ?? "");
  } catch {
    last = "";
  }
  const pick = /\.[A-Za-z0-9]{1,8}$/.test(last) || !name ? last : name;
  const safe = pick.replace(/[^A-Za-z0-9._-]+/g, "_").replace(/^[._]+/, "").slice(0, 100);
  return safe === "" ? "attachment" : safe;
}

/** What `fetch_attachment` answers the model: where the file was written, or why not. */
export type FetchAttachmentResult =
  | { ok: true; path: string; bytes: number; mediaType?: string }
  | { ok: false; error: string };
