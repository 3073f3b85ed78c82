/**
 * A push as git sends it over smart HTTP (gitprotocol-pack(5)): pkt-lines of `shallow` lines and
 * commands `<old> <new> <ref>` (capabilities after a NUL on the first), a flush, push options,
 * then the pack. `readCommands` reads the commands without buffering the pack and replays the
 * body to send on; `packStart` finds the pack; an empty list is git's probe (a lone flush before
 * a body over `http.postBuffer`). A push certificate is refused. `refusalReport` answers as
 * receive-pack would, so git prints `! [remote rejected] … (reason)`. Pure: streams and bytes.
 */
import { BodyReader } from "./body-reader";

/** One ref update: `old` and `new` are object ids (all zeros: none). */
export type RefUpdate = { old: string; new: string; ref: string };

export type ReadCommands =
  | {
      ok: true;
      commands: RefUpdate[];
      capabilities: string[];
      /** The whole body again, to send on: what was read, then the rest (also what `source` reads on). */
      body: ReadableStream<Uint8Array>;
      /** The body as read so far, to read on from `end` (push-ancestry.ts reads the pack's commits). */
      source: BodyReader;
      /** Where the command list's flush ends. */
      end: number;
    }
  | { ok: false; reason: string };

/** The command list git sends is small; anything longer before its flush is not a push we read. */
export const MAX_COMMAND_SECTION_BYTES = 256 * 1024;
const OID = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const ZERO = /^0+$/;

export const isZeroId = (oid: string) => ZERO.test(oid);

/** Read the ref-update commands from the start of `body`. */
export async function readCommands(body: ReadableStream<Uint8Array>): Promise<ReadCommands> {
  const source = new BodyReader(body);
  let offset = 0;
  const commands: RefUpdate[] = [];
  let capabilities: string[] = [];
  // A refused body is read to its end rather than cancelled, as far as a push's command list could go: its sender is still sending (gateway.ts #refuse).
  const fail = async (reason: string): Promise<ReadCommands> => {
    await source.drain(4 * MAX_COMMAND_SECTION_BYTES);
    return { ok: false, reason };
  };
  for (;;) {
    // The bound holds however the body arrives: on what was parsed, not on how it was chunked.
    if (offset > MAX_COMMAND_SECTION_BYTES) return fail("the push's command list is too long");
    // Need at least a length header, then the whole line.
    const line = nextPktLine(source.bytes, offset);
    if (line === "need-more") {
      if (source.bytes.length - offset > MAX_COMMAND_SECTION_BYTES) return fail("the push's command list is too long");
      if (!(await source.more())) return fail("the push ended before its command list did");
      continue;
    }
    if (line === "malformed") return fail("the push is not a git receive-pack request");
    offset = line.next;
    if (line.data === null) break; // flush: the command list is over
    const text = new TextDecoder().decode(line.data).replace(/\n$/, "");
    if (commands.length === 0 && text.startsWith("shallow ")) continue;
    if (text.startsWith("push-cert")) return fail("a signed push (push certificate) is not accepted here");
    const nul = text.indexOf("\0");
    const command = nul < 0 ? text : text.slice(0, nul);
    if (nul >= 0 && commands.length === 0) capabilities = text.slice(nul + 1).trim().split(/\s+/).filter(Boolean);
    const [old, next, ref, ...extra] = command.split(" ");
    if (!old || !next || !ref || extra.length > 0 || !OID.test(old) || !OID.test(next)) {
      return fail("the push's command list is not one git sends");
    }
    commands.push({ old, new: next, ref });
  }
  // No command at all is git's probe (a lone flush) before a body larger than http.postBuffer: the caller answers it.
  return { ok: true, commands, capabilities, body: source.replay(), source, end: offset };
}

/**
 * Where the pack begins: after the push options, a pkt-line section of
 * their own when the client asked for `push-options`. "ended" when the body
 * ends first, "malformed" when it is not pkt-lines.
 */
export async function packStart(source: BodyReader, end: number, capabilities: readonly string[]): Promise<number | "ended" | "malformed"> {
  if (!capabilities.includes("push-options")) return end;
  let offset = end;
  for (;;) {
    if (offset - end > MAX_COMMAND_SECTION_BYTES) return "malformed";
    const line = nextPktLine(source.bytes, offset);
    if (line === "need-more") {
      if (source.bytes.length - end > 2 * MAX_COMMAND_SECTION_BYTES) return "malformed";
      if (!(await source.more())) return "ended";
      continue;
    }
    if (line === "malformed") return "malformed";
    offset = line.next;
    if (line.data === null) return offset;
  }
}

/** One pkt-line at `offset`: its data (null for a flush) and where the next begins. */
function nextPktLine(bytes: Uint8Array, offset: number): { data: Uint8Array | null; next: number } | "need-more" | "malformed" {
  if (bytes.length - offset < 4) return "need-more";
  const header = new TextDecoder().decode(bytes.subarray(offset, offset + 4));
  if (!/^[0-9a-f]{4}$/.test(header)) return "malformed";
  const length = Number.parseInt(header, 16);
  if (length === 0) return { data: null, next: offset + 4 };
  if (length < 4) return "malformed"; // delim and response-end are not part of a push
  if (bytes.length - offset < length) return "need-more";
  return { data: bytes.subarray(offset + 4, offset + length), next: offset + length };
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Why these commands may not run when the run may update only `refs/heads/<branch>` (null: they may). */
export function pushRefusal(commands: readonly RefUpdate[], branch: string | null): string | null {
  if (branch === null) return "push refused: this run may not push at all";
  const allowed = `refs/heads/${branch}`;
  for (const command of commands) {
    if (command.ref !== allowed) return `push refused: this run may update only ${allowed}, not ${command.ref}`;
    if (isZeroId(command.new)) return `push refused: this run may not delete ${allowed}`;
  }
  return null;
}

/** A pkt-line of `text` (or of raw bytes). */
export function pktLine(data: string | Uint8Array): Uint8Array {
  const bytes = typeof data === "string" ? new TextEncoder().encode(data) : data;
  const header = new TextEncoder().encode((bytes.length + 4).toString(16).padStart(4, "0"));
  return concat(header, bytes);
}

const FLUSH = new TextEncoder().encode("0000");
/** The largest pkt-line, header included (gitprotocol-common(5)); the old side-band's. */
const MAX_PKT_LINE_BYTES = 65520;
const MAX_OLD_SIDE_BAND_BYTES = 1000;

/**
 * receive-pack's report for a push refused as a whole: each command `ng`
 * with `reason`, wrapped in side-band channel 1 when the client asked for
 * side-band, with the reason also on channel 2 (git prints it as `remote:`).
 * Null when the client did not ask for a report (then only a status can say no).
 */
export function refusalReport(commands: readonly RefUpdate[], capabilities: readonly string[], reason: string): Uint8Array | null {
  if (!capabilities.includes("report-status") && !capabilities.includes("report-status-v2")) return null;
  const oneLine = reason.replace(/[\r\n]+/g, " ");
  const report = [pktLine("unpack ok\n"), ...commands.map((command) => pktLine(`ng ${command.ref} ${oneLine}\n`)), FLUSH];
  const sideBand = capabilities.includes("side-band-64k") || capabilities.includes("side-band");
  if (!sideBand) return join(report);
  // A pkt-line holds at most 65520 bytes (1000 in the old side-band): the band's byte, then its share of the data.
  const room = (capabilities.includes("side-band-64k") ? MAX_PKT_LINE_BYTES : MAX_OLD_SIDE_BAND_BYTES) - 5;
  const band = (channel: number, payload: Uint8Array) => {
    const lines: Uint8Array[] = [];
    for (let at = 0; at < payload.length; at += room) lines.push(pktLine(concat(Uint8Array.of(channel), payload.subarray(at, at + room))));
    return join(lines);
  };
  return join([band(2, new TextEncoder().encode(`${oneLine}\n`)), band(1, join(report)), FLUSH]);
}

function join(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
