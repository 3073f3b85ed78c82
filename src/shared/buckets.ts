/**
 * The layout of the R2 buckets the agent Worker reads and the scripts fill,
 * in one place: key prefixes, and the content type an object is stored with.
 * Pure; shared by the Worker (skills source, reproduction pages) and
 * `npm run seed:r2`.
 */

/** Where skills live in SKILLS_BUCKET: `skills/<skill>/SKILL.md` and its resources. Think's R2 source reads this prefix. */
export const SKILLS_PREFIX = "skills/";

/** Where reproduction pages live in REPROS: `repros/<session>/index.html` and its assets. */
export const REPRO_PREFIX = "repros/";

const TEXT = "; charset=utf-8";
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".md": `text/markdown${TEXT}`,
  ".txt": `text/plain${TEXT}`,
  ".html": `text/html${TEXT}`,
  ".css": `text/css${TEXT}`,
  ".js": `text/javascript${TEXT}`,
  ".mjs": `text/javascript${TEXT}`,
  ".jsx": `text/javascript${TEXT}`,
  ".ts": `text/x-typescript${TEXT}`,
  ".tsx": `text/x-typescript${TEXT}`,
  ".json": `application/json${TEXT}`,
  ".map": `application/json${TEXT}`,
  ".jsonc": `application/jsonc${TEXT}`,
  ".yaml": `application/yaml${TEXT}`,
  ".yml": `application/yaml${TEXT}`,
  ".toml": `application/toml${TEXT}`,
  ".sh": `text/x-shellscript${TEXT}`,
  ".py": `text/x-python${TEXT}`,
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".ico": "image/x-icon",
  ".pdf": "application/pdf",
  ".wasm": "application/wasm",
  ".woff2": "font/woff2"
};
const UNKNOWN_CONTENT_TYPE = "application/octet-stream";

/** By the file name's extension; a name without one (or a dotfile) is unknown. */
export function contentTypeFor(path: string): string {
  const name = path.slice(path.lastIndexOf("/") + 1);
  const dot = name.lastIndexOf(".");
  if (dot <= 0) return UNKNOWN_CONTENT_TYPE;
  return CONTENT_TYPES[name.slice(dot).toLowerCase()] ?? UNKNOWN_CONTENT_TYPE;
}
