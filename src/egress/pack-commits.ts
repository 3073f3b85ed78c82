/**
 * The commits at the start of a pack (gitformat-pack(5)), read from a push's body without
 * buffering the rest, for push-ancestry.ts: each commit's id (SHA-1 or SHA-256 of
 * `commit <len>\0<content>`) and its parents. git writes commits before trees and blobs, so
 * reading stops at the first tree or blob, or at a delta whose base it has not read (OFS_DELTA
 * and REF_DELTA against a commit it read are resolved). Bounded in bytes, objects and inflated
 * size; inflates with pako (docs/security.md). It checks nothing else of the pack: GitHub does.
 * Pure.
 */
import { ZStream, Z_BUF_ERROR, Z_NO_FLUSH, Z_OK, Z_STREAM_END, zlibInflate, zlibInflateEnd, zlibInflateInit } from "pako";

export type ObjectFormat = "sha1" | "sha256";

/** The body as read so far (body-reader.ts's BodyReader): `bytes` from its start, and a way to read one more chunk. */
export type PackSource = { readonly bytes: Uint8Array; more(): Promise<boolean> };

export type PackLimits = {
  /** Pack bytes read, from `PACK` to the end of the last object read. */
  maxBytes: number;
  maxObjects: number;
  /** Commit, tag and delta content inflated, in all. */
  maxInflatedBytes: number;
};

/** A commit is a few hundred bytes in a pack: this is tens of thousands of them. */
export const PACK_COMMIT_LIMITS: PackLimits = { maxBytes: 8 * 1024 * 1024, maxObjects: 20_000, maxInflatedBytes: 32 * 1024 * 1024 };

/** Where reading stopped: at the pack's end, its first tree or blob, or a delta against an object not read. */
export type PackStop = "end" | "tree" | "blob" | "unresolved-delta";

export type PackProblem = "truncated" | "malformed" | "too-large";

export type PackCommits =
  | { ok: true; commits: Map<string, string[]>; stop: PackStop; objects: number }
  | { ok: false; problem: PackProblem; reason: string };

const COMMIT = 1;
const TREE = 2;
const BLOB = 3;
const TAG = 4;
const OFS_DELTA = 6;
const REF_DELTA = 7;
const TYPE_NAMES: Record<number, string> = { [COMMIT]: "commit", [TAG]: "tag" };
const PACK_HEADER_BYTES = 12;

type Stored = { type: number; content: Uint8Array };
type Failure = { ok: false; problem: PackProblem; reason: string };

/** Read the commits of the pack that begins at `start` in `source`. */
export async function readPackCommits(source: PackSource, start: number, format: ObjectFormat, limits: PackLimits = PACK_COMMIT_LIMITS): Promise<PackCommits> {
  const idBytes = format === "sha1" ? 20 : 32;
  const limitEnd = start + limits.maxBytes;
  const need = (end: number) => fill(source, end, limitEnd);
  const failed = (problem: PackProblem): Failure => ({ ok: false, problem, reason: reasonOf(problem, limits) });

  const header = await need(start + PACK_HEADER_BYTES);
  if (header !== "ok") return failed(header);
  const head = source.bytes;
  const version = readUint32(head, start + 4);
  if (new TextDecoder().decode(head.subarray(start, start + 4)) !== "PACK" || (version !== 2 && version !== 3)) return failed("malformed");
  const count = readUint32(head, start + 8);

  const commits = new Map<string, string[]>();
  const byOffset = new Map<number, Stored>();
  const byId = new Map<string, Stored>();
  let at = start + PACK_HEADER_BYTES;
  let inflated = 0;
  for (let index = 0; index < count; index++) {
    if (index >= limits.maxObjects || at > limitEnd) return failed("too-large");
    const objectStart = at;
    const typeAndSize = await readVarHeader(source, at, need);
    if (typeof typeAndSize === "string") return failed(typeAndSize);
    const { type, size } = typeAndSize;
    at = typeAndSize.next;

    let base: Stored | undefined;
    if (type === TREE) return { ok: true, commits, stop: "tree", objects: index };
    if (type === BLOB) return { ok: true, commits, stop: "blob", objects: index };
    if (type === OFS_DELTA) {
      const offset = await readOffset(source, at, need);
      if (typeof offset === "string") return failed(offset);
      at = offset.next;
      // Every object before this one was read (reading stops at the first tree or blob): a base not among them is no object's start.
      base = byOffset.get(objectStart - offset.distance);
      if (!base) return failed("malformed");
    } else if (type === REF_DELTA) {
      const id = await need(at + idBytes);
      if (id !== "ok") return failed(id);
      base = byId.get(hex(source.bytes.subarray(at, at + idBytes)));
      // A thin pack's base, or one written later: its type is unknown, so this may be where the commits end.
      if (!base) return { ok: true, commits, stop: "unresolved-delta", objects: index };
      at += idBytes;
    } else if (type !== COMMIT && type !== TAG) {
      return failed("malformed");
    }

    if (inflated + size > limits.maxInflatedBytes) return failed("too-large");
    const data = await inflateAt(source, at, size, limitEnd);
    if (typeof data === "string") return failed(data);
    at = data.next;
    inflated += size;
    let object: Stored = { type, content: data.bytes };
    if (base) {
      const content = applyDelta(base.content, data.bytes, limits.maxInflatedBytes - inflated);
      if (typeof content === "string") return failed(content);
      inflated += content.length;
      object = { type: base.type, content };
    }
    const id = await objectId(format, object);
    byOffset.set(objectStart, object);
    byId.set(id, object);
    if (object.type === COMMIT) {
      const parents = commitParents(object.content, idBytes * 2);
      if (!parents) return failed("malformed");
      commits.set(id, parents);
    }
  }
  return { ok: true, commits, stop: "end", objects: count };
}

function reasonOf(problem: PackProblem, limits: PackLimits): string {
  switch (problem) {
    case "truncated":
      return "the push ended before its pack did";
    case "malformed":
      return "the push's pack is not one git writes";
    case "too-large":
      return `its commits are more than the gateway reads (over ${limits.maxObjects} objects or ${Math.round(limits.maxBytes / 1024 / 1024)} MiB before the first tree); push fewer commits at a time`;
  }
}

type Need = (end: number) => Promise<"ok" | "truncated" | "too-large">;

/** Read until `source` holds `end` bytes, refusing to read past `limitEnd`. */
async function fill(source: PackSource, end: number, limitEnd: number): Promise<"ok" | "truncated" | "too-large"> {
  while (source.bytes.length < end) {
    if (source.bytes.length > limitEnd) return "too-large";
    if (!(await source.more())) return "truncated";
  }
  return "ok";
}

/** An object's header: its type (bits 4-6 of the first byte) and size, 4 bits then 7 per byte, least significant first. */
async function readVarHeader(source: PackSource, at: number, need: Need): Promise<{ type: number; size: number; next: number } | PackProblem> {
  let ready = await need(at + 1);
  if (ready !== "ok") return ready;
  let byte = source.bytes[at++]!;
  const type = (byte >> 4) & 7;
  let size = byte & 15;
  let scale = 16;
  while (byte & 0x80) {
    if (scale > 2 ** 48) return "malformed";
    ready = await need(at + 1);
    if (ready !== "ok") return ready;
    byte = source.bytes[at++]!;
    size += (byte & 0x7f) * scale;
    scale *= 128;
  }
  return { type, size, next: at };
}

/** An OFS_DELTA's distance back to its base: 7 bits per byte, most significant first, each continuation adding one. */
async function readOffset(source: PackSource, at: number, need: Need): Promise<{ distance: number; next: number } | PackProblem> {
  let ready = await need(at + 1);
  if (ready !== "ok") return ready;
  let byte = source.bytes[at++]!;
  let distance = byte & 0x7f;
  while (byte & 0x80) {
    if (distance > 2 ** 45) return "malformed";
    ready = await need(at + 1);
    if (ready !== "ok") return ready;
    byte = source.bytes[at++]!;
    distance = (distance + 1) * 128 + (byte & 0x7f);
  }
  return { distance, next: at };
}

/**
 * The zlib stream at `at`, which must inflate to exactly `size` bytes (one
 * byte of room more, to notice a stream that runs longer), and where it ends.
 */
async function inflateAt(source: PackSource, at: number, size: number, limitEnd: number): Promise<{ bytes: Uint8Array; next: number } | PackProblem> {
  const stream = new ZStream();
  zlibInflateInit(stream);
  const output = new Uint8Array(size + 1);
  stream.output = output;
  stream.next_out = 0;
  stream.avail_out = output.length;
  let fed = at;
  try {
    for (;;) {
      if (fed >= source.bytes.length) {
        const ready = await fill(source, fed + 1, limitEnd);
        if (ready !== "ok") return ready;
      }
      const bytes = source.bytes;
      stream.input = bytes;
      stream.next_in = fed;
      stream.avail_in = bytes.length - fed;
      const status = zlibInflate(stream, Z_NO_FLUSH);
      fed = stream.next_in;
      if (status === Z_STREAM_END) return stream.total_out === size ? { bytes: output.subarray(0, size), next: fed } : "malformed";
      if ((status !== Z_OK && status !== Z_BUF_ERROR) || stream.avail_out === 0) return "malformed";
      if (stream.avail_in > 0) return "malformed"; // neither ended nor wanting input
    }
  } finally {
    zlibInflateEnd(stream);
  }
}

/** git's delta (gitformat-pack(5), "Deltified representation"): the sizes, then copy-from-base and insert instructions. */
export function applyDelta(base: Uint8Array, delta: Uint8Array, maxSize: number): Uint8Array | "malformed" | "too-large" {
  let at = 0;
  const size = (): number => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (at >= delta.length || scale > 2 ** 48) return -1;
      const byte = delta[at++]!;
      value += (byte & 0x7f) * scale;
      scale *= 128;
      if (!(byte & 0x80)) return value;
    }
  };
  const baseSize = size();
  const targetSize = size();
  if (baseSize !== base.length || targetSize < 0) return "malformed";
  if (targetSize > maxSize) return "too-large";
  const out = new Uint8Array(targetSize);
  let put = 0;
  while (at < delta.length) {
    const op = delta[at++]!;
    if (op & 0x80) {
      let offset = 0;
      let length = 0;
      for (let i = 0; i < 4; i++) {
        if (!(op & (1 << i))) continue;
        if (at >= delta.length) return "malformed";
        offset += delta[at++]! * 2 ** (8 * i);
      }
      for (let i = 0; i < 3; i++) {
        if (!(op & (0x10 << i))) continue;
        if (at >= delta.length) return "malformed";
        length += delta[at++]! * 2 ** (8 * i);
      }
      if (length === 0) length = 0x10000;
      if (offset + length > base.length || put + length > targetSize) return "malformed";
      out.set(base.subarray(offset, offset + length), put);
      put += length;
    } else if (op !== 0) {
      if (at + op > delta.length || put + op > targetSize) return "malformed";
      out.set(delta.subarray(at, at + op), put);
      put += op;
      at += op;
    } else {
      return "malformed"; // reserved
    }
  }
  return put === targetSize ? out : "malformed";
}

/** A commit's parents, from the `parent` lines right after its `tree` line; null when it does not open as a commit does. */
function commitParents(content: Uint8Array, hexLength: number): string[] | null {
  const tree = new RegExp(`^tree [0-9a-f]{${hexLength}}$`);
  const parent = new RegExp(`^parent ([0-9a-f]{${hexLength}})$`);
  const parents: string[] = [];
  let at = 0;
  for (let index = 0; ; index++) {
    const end = content.indexOf(0x0a, at);
    if (end < 0) return null;
    const line = new TextDecoder().decode(content.subarray(at, end));
    at = end + 1;
    if (index === 0) {
      if (!tree.test(line)) return null;
      continue;
    }
    if (!line.startsWith("parent ")) return parents;
    const match = parent.exec(line);
    if (!match) return null;
    parents.push(match[1]!);
  }
}

async function objectId(format: ObjectFormat, object: Stored): Promise<string> {
  const head = new TextEncoder().encode(`${TYPE_NAMES[object.type]} ${object.content.length}\0`);
  const whole = new Uint8Array(head.length + object.content.length);
  whole.set(head);
  whole.set(object.content, head.length);
  return hex(new Uint8Array(await crypto.subtle.digest(format === "sha1" ? "SHA-1" : "SHA-256", whole)));
}

function hex(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) out += byte.toString(16).padStart(2, "0");
  return out;
}

function readUint32(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 24) >>> 0) + (bytes[at + 1]! << 16) + (bytes[at + 2]! << 8) + bytes[at + 3]!;
}
