/**
 * The images and uploads as the workspace block's `attachments`
 * lists them (`gatherAttachments`, once per submission, from prepare.ts):
 * each found in the body and the comments shown is `shown` (an image the
 * Worker fetched from GitHub's hosts, given to the model as an image part),
 * `listed` (for `fetch_attachment`), `failed` or `not fetched`. The bytes
 * are never stored: a recovered turn fetches each shown image again
 * (`refetchImages`) and shows it only when its SHA-256 is the same.
 * docs/skills.md, "Images and attachments". Pure apart from its reader.
 */
import type { AttachmentReader } from "../github/attachment-fetch";
import { fetchSource, findLinks, MAX_LINK_URL_CHARS, signedImageUrls, sniffImage, uploadUuid, type AttachmentKind, type ImageMediaType } from "../run/attachment-links";
import { revealHidden } from "../run/reveal";

/** Anthropic's limit for one image (OpenAI's is larger). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** Images given to the model per run: each costs every step of the turn its tokens again. */
export const MAX_IMAGES_SHOWN = 4;
export const MAX_ATTACHMENTS_LISTED = 20;
/** What `fetch_attachment` fetches at most: GitHub's limit for an uploaded file (not a video) is 25 MB. */
export const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;
export const MAX_ALT_CHARS = 300;
/** A URL is shown at most this long in the block. */
const MAX_SHOWN_URL_CHARS = 300;

export type AttachmentStatus = "shown" | "listed" | "failed" | "not fetched";

/** One entry of the block's `attachments` field. */
export type AttachmentFact = {
  url: string;
  kind: AttachmentKind;
  /** `body`, or `comment <n>`: the n-th of the comments shown in `issue.comments`, from 1. */
  where: string;
  alt?: string;
  name?: string;
  status: AttachmentStatus;
  /** When shown: the model's image part of that number, next to the block. */
  image?: number;
  mediaType?: string;
  bytes?: number;
  note?: string;
};

/** What the run keeps of an attachment it may fetch (never shown to the model: `fetchFrom` is a signed address). */
export type KeptAttachment = {
  url: string;
  kind: AttachmentKind;
  fetchFrom?: string;
  image?: { index: number; mediaType: ImageMediaType; sha256: string };
};

/** An image the model is shown, in memory only. */
export type ShownImage = { index: number; mediaType: ImageMediaType; bytes: Uint8Array };

/** A text people wrote, with GitHub's rendering of it when there is one. */
export type WrittenText = { where: string; text: string; html?: string };

/** What the images are fetched through: src/github/attachment-fetch.ts's rules, a read-only token only on an upload's path. */
export type { AttachmentReader };

export type Gathered = { facts: AttachmentFact[]; kept: KeptAttachment[]; images: ShownImage[] };

/** List, and fetch the images of, what `texts` hold. */
export async function gatherAttachments(texts: WrittenText[], reader: AttachmentReader): Promise<Gathered> {
  const signed = new Map<string, string>();
  for (const { html } of texts) if (html) for (const [uuid, url] of signedImageUrls(html)) if (!signed.has(uuid)) signed.set(uuid, url);
  const seen = new Set<string>();
  const gathered: Gathered = { facts: [], kept: [], images: [] };
  for (const { where, text } of texts) {
    for (const link of findLinks(text)) {
      if (seen.has(link.url) || gathered.facts.length >= MAX_ATTACHMENTS_LISTED) continue;
      seen.add(link.url);
      const fact: AttachmentFact = {
        url: shownUrl(link.url),
        kind: link.kind,
        where,
        ...(link.alt ? { alt: shownText(link.alt) } : {}),
        ...(link.name ? { name: shownText(link.name) } : {}),
        status: "listed"
      };
      gathered.facts.push(fact);
      const source = reader.webHost ? fetchSource(link.url, reader.webHost) : { ok: false as const, reason: "this deployment reads no GitHub: not fetched" };
      if (!source.ok) {
        Object.assign(fact, { status: "not fetched", note: source.reason });
        continue;
      }
      const uuid = uploadUuid(link.url);
      const fetchFrom = uuid ? signed.get(uuid) : undefined;
      const kept: KeptAttachment = { url: link.url, kind: link.kind, ...(fetchFrom ? { fetchFrom } : {}) };
      gathered.kept.push(kept);
      if (link.kind !== "image") continue;
      if (gathered.images.length >= MAX_IMAGES_SHOWN) {
        fact.note = `more than ${MAX_IMAGES_SHOWN} images: not shown; fetch_attachment fetches it`;
        continue;
      }
      const fetched = await reader.fetchAttachment(fetchFrom ?? link.url, MAX_IMAGE_BYTES);
      if (!fetched.ok) {
        Object.assign(fact, { status: "failed", note: fetched.message });
        continue;
      }
      const mediaType = sniffImage(fetched.bytes);
      fact.bytes = fetched.bytes.byteLength;
      if (!mediaType) {
        const said = fetched.contentType ? `, served as ${fetched.contentType.split(";")[0]}` : "";
        Object.assign(fact, {
          status: "failed",
          note: `not a PNG, JPEG, GIF or WebP image by its bytes${said}: not shown; fetch_attachment fetches it`
        });
        continue;
      }
      const index = gathered.images.length + 1;
      Object.assign(fact, { status: "shown", image: index, mediaType });
      kept.image = { index, mediaType, sha256: await sha256(fetched.bytes) };
      gathered.images.push({ index, mediaType, bytes: fetched.bytes });
    }
  }
  return gathered;
}

/** The shown images of `kept` fetched again (a recovered turn), each only when its bytes are the same; a note for each that is not. */
export async function refetchImages(kept: KeptAttachment[], reader: AttachmentReader): Promise<{ images: ShownImage[]; notes: string[] }> {
  const images: ShownImage[] = [];
  const notes: string[] = [];
  for (const attachment of kept) {
    const image = attachment.image;
    if (!image) continue;
    const fetched = await reader.fetchAttachment(attachment.fetchFrom ?? attachment.url, MAX_IMAGE_BYTES);
    if (fetched.ok && (await sha256(fetched.bytes)) === image.sha256) images.push({ index: image.index, mediaType: image.mediaType, bytes: fetched.bytes });
    else notes.push(`Image ${image.index} could not be fetched again after the run restarted (${fetched.ok ? "its bytes changed" : fetched.message}): it is not shown.`);
  }
  return { images, notes };
}

function shownText(text: string): string {
  const chars = [...revealHidden(text).text];
  return chars.length <= MAX_ALT_CHARS ? chars.join("") : `${chars.slice(0, MAX_ALT_CHARS - 1).join("")}…`;
}

/** The URL as written, revealed, bounded; a data: URL by its header only (its bytes are not a link). */
export function shownUrl(url: string): string {
  if (/^data:/i.test(url)) return `${url.slice(0, Math.min(url.indexOf(",") + 1 || 40, 60))}…`;
  const text = revealHidden(url).text;
  return text.length <= MAX_SHOWN_URL_CHARS && url.length <= MAX_LINK_URL_CHARS ? text : `${text.slice(0, MAX_SHOWN_URL_CHARS - 1)}…`;
}

async function sha256(bytes: Uint8Array): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", bytes);
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("");
}
