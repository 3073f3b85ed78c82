/**
 * A raw HTTP/1.1 and WebSocket prober over `node:net`, for hostile tests:
 * the request line carries the path exactly as written (`//agents/...`,
 * `/./x`, `/%61gents`), which `fetch()`, `new URL()` and curl without
 * `--path-as-is` would normalize before it ever left the client, and every
 * header is the caller's (Host, Origin, Sec-Fetch-Site, Cookie, an Access
 * JWT). With `websocket: true` it asks for an upgrade; on a 101 it reads the
 * server's first frames (unmasked, 7-, 16- or 64-bit lengths, fragments
 * joined), can send masked text frames of its own, and closes.
 *
 * One request per connection (`Connection: close`). It never throws on a
 * status: a test asserts on what came back. It does not speak TLS,
 * HTTP/2, or compression extensions (it never offers one).
 */
import { createHash, randomBytes } from "node:crypto";
import { connect } from "node:net";

export type ProbeRequest = {
  method?: string;
  /** The request target, sent byte for byte. */
  path: string;
  /** Sent as given, in this order. `Host` is added unless present (any case). */
  headers?: Record<string, string>;
  body?: string;
  /** Ask for a WebSocket upgrade (Upgrade, Connection, Sec-WebSocket-Key and -Version). */
  websocket?: boolean;
  /** After a 101: text frames to send, masked as a client must. */
  send?: string[];
  /** After a 101: stop reading as soon as this holds for the frames so far. */
  until?(frames: WebSocketFrame[]): boolean;
  /** After a 101: how long to read frames when `until` never holds. */
  frameWindowMs?: number;
  /** The whole exchange; a timeout is an error. */
  timeoutMs?: number;
};

export type WebSocketFrame = {
  opcode: number;
  /** The payload as UTF-8 for text (and close reason) frames. */
  text: string;
  data: Buffer;
};

export type ProbeResponse = {
  status: number;
  statusText: string;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body as UTF-8 (de-chunked); empty for a 101. */
  body: string;
  /** For a 101: the frames the server sent, in order. */
  frames: WebSocketFrame[];
  /** For a 101: the text frames' payloads. */
  texts: string[];
  /** For a 101: whether Sec-WebSocket-Accept matched the key sent. */
  acceptValid?: boolean;
};

export const OPCODE = { continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 } as const;

const WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_FRAME_WINDOW_MS = 2_000;

/** Sends one request to `baseUrl`'s host and port (plain HTTP) and reads the answer. */
export function probe(baseUrl: string, request: ProbeRequest): Promise<ProbeResponse> {
  const target = new URL(baseUrl);
  const port = Number(target.port || 80);
  const method = request.method ?? "GET";
  const headers: [string, string][] = Object.entries(request.headers ?? {});
  if (!headers.some(([name]) => name.toLowerCase() === "host")) headers.unshift(["Host", target.host]);
  const key = randomBytes(16).toString("base64");
  if (request.websocket) {
    headers.push(["Upgrade", "websocket"], ["Connection", "Upgrade"], ["Sec-WebSocket-Key", key], ["Sec-WebSocket-Version", "13"]);
  } else {
    headers.push(["Connection", "close"]);
  }
  const body = request.body === undefined ? undefined : Buffer.from(request.body, "utf8");
  if (body) headers.push(["Content-Length", String(body.length)]);
  const head = `${method} ${request.path} HTTP/1.1\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join("")}\r\n`;

  return new Promise<ProbeResponse>((resolve, reject) => {
    const socket = connect({ host: target.hostname, port });
    let buffer = Buffer.alloc(0);
    let response: Omit<ProbeResponse, "body" | "frames" | "texts"> | undefined;
    let headerBytes = 0;
    const frames: WebSocketFrame[] = [];
    let settled = false;
    let frameWindow: NodeJS.Timeout | undefined;
    let reader: FrameReader | undefined;

    const finish = (error?: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(overall);
      clearTimeout(frameWindow);
      socket.destroy();
      if (error) return reject(error);
      if (!response) return reject(new Error(`connection closed before a response to ${method} ${request.path}`));
      if (response.status === 101) {
        resolve({ ...response, body: "", frames, texts: frames.filter((frame) => frame.opcode === OPCODE.text).map((frame) => frame.text) });
      } else {
        resolve({ ...response, body: decodeBody(buffer.subarray(headerBytes), response.headers).toString("utf8"), frames: [], texts: [] });
      }
    };
    const overall = setTimeout(
      () => finish(new Error(`no complete answer to ${method} ${request.path} in ${request.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`)),
      request.timeoutMs ?? DEFAULT_TIMEOUT_MS
    );

    socket.on("error", (error) => finish(error));
    socket.on("close", () => finish());
    socket.on("data", (data: Buffer) => {
      let chunk = data;
      if (!reader) buffer = Buffer.concat([buffer, chunk]);
      if (!response) {
        const end = buffer.indexOf("\r\n\r\n");
        if (end < 0) return;
        headerBytes = end + 4;
        try {
          response = parseHead(buffer.subarray(0, end).toString("latin1"));
        } catch (error) {
          return finish(error as Error);
        }
        if (response.status === 101) {
          response.acceptValid = response.headers["sec-websocket-accept"] === acceptFor(key);
          reader = new FrameReader(frames, socket);
          chunk = buffer.subarray(headerBytes);
          for (const text of request.send ?? []) socket.write(maskedTextFrame(text));
          frameWindow = setTimeout(() => finish(), request.frameWindowMs ?? DEFAULT_FRAME_WINDOW_MS);
        }
      }
      if (reader) {
        reader.push(chunk);
        if (request.until?.(frames) || frames.some((frame) => frame.opcode === OPCODE.close)) finish();
      } else if (isBodyComplete(buffer.subarray(headerBytes), response.headers, method)) {
        finish();
      }
    });
    socket.write(head);
    if (body) socket.write(body);
  });
}

/** The text frames that parse as JSON objects with a string `type` (the agents protocol). */
export function jsonFrames(response: Pick<ProbeResponse, "texts">): { type: string; [field: string]: unknown }[] {
  const parsed: { type: string; [field: string]: unknown }[] = [];
  for (const text of response.texts) {
    try {
      const value: unknown = JSON.parse(text);
      if (typeof value === "object" && value !== null && typeof (value as { type?: unknown }).type === "string") {
        parsed.push(value as { type: string });
      }
    } catch {
      // Not JSON: left out.
    }
  }
  return parsed;
}

function parseHead(text: string): Omit<ProbeResponse, "body" | "frames" | "texts"> {
  const [statusLine = "", ...lines] = text.split("\r\n");
  const match = /^HTTP\/1\.[01] (\d{3}) ?(.*)$/.exec(statusLine);
  if (!match) throw new Error(`not an HTTP status line: ${JSON.stringify(statusLine)}`);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { status: Number(match[1]), statusText: match[2] ?? "", headers };
}

function isBodyComplete(body: Buffer, headers: Record<string, string>, method: string): boolean {
  if (method === "HEAD") return true;
  if (/\bchunked\b/i.test(headers["transfer-encoding"] ?? "")) return chunkedEnd(body) !== null;
  const length = headers["content-length"];
  if (length !== undefined) return body.length >= Number(length);
  return false; // read until the server closes
}

function decodeBody(body: Buffer, headers: Record<string, string>): Buffer {
  if (!/\bchunked\b/i.test(headers["transfer-encoding"] ?? "")) return body;
  return chunkedEnd(body)?.data ?? body;
}

/** The de-chunked body once the last chunk has arrived, else null. */
function chunkedEnd(body: Buffer): { data: Buffer } | null {
  const parts: Buffer[] = [];
  let offset = 0;
  for (;;) {
    const lineEnd = body.indexOf("\r\n", offset);
    if (lineEnd < 0) return null;
    const size = parseInt(body.subarray(offset, lineEnd).toString("latin1").split(";")[0]!.trim(), 16);
    if (Number.isNaN(size)) throw new Error("malformed chunked body");
    const start = lineEnd + 2;
    if (size === 0) return { data: Buffer.concat(parts) };
    if (body.length < start + size + 2) return null;
    parts.push(body.subarray(start, start + size));
    offset = start + size + 2;
  }
}

/**
 * Reads server frames as they arrive: whole frames go to `frames`, fragments
 * are joined, pings are answered; a partial frame waits for the next data.
 */
class FrameReader {
  #buffer = Buffer.alloc(0);
  #fragments: { opcode: number; parts: Buffer[] } | undefined;

  constructor(
    private readonly frames: WebSocketFrame[],
    private readonly socket: { write(data: Buffer): unknown }
  ) {}

  push(data: Buffer): void {
    this.#buffer = Buffer.concat([this.#buffer, data]);
    for (;;) {
      const buffer = this.#buffer;
      if (buffer.length < 2) return;
      const first = buffer[0]!;
      const second = buffer[1]!;
      const fin = (first & 0x80) !== 0;
      const opcode = first & 0x0f;
      const masked = (second & 0x80) !== 0;
      let length = second & 0x7f;
      let cursor = 2;
      if (length === 126) {
        if (buffer.length < cursor + 2) return;
        length = buffer.readUInt16BE(cursor);
        cursor += 2;
      } else if (length === 127) {
        if (buffer.length < cursor + 8) return;
        length = Number(buffer.readBigUInt64BE(cursor));
        cursor += 8;
      }
      const mask = masked ? buffer.subarray(cursor, cursor + 4) : undefined;
      if (masked) cursor += 4;
      if (buffer.length < cursor + length) return;
      const payload = Buffer.from(buffer.subarray(cursor, cursor + length));
      if (mask) for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
      this.#buffer = buffer.subarray(cursor + length);

      if (opcode === OPCODE.ping) this.socket.write(maskedFrame(OPCODE.pong, payload));
      if (opcode >= 0x8) {
        this.frames.push(frame(opcode, payload));
        continue;
      }
      if (opcode !== OPCODE.continuation) this.#fragments = { opcode, parts: [] };
      if (!this.#fragments) continue; // a stray continuation
      this.#fragments.parts.push(payload);
      if (fin) {
        this.frames.push(frame(this.#fragments.opcode, Buffer.concat(this.#fragments.parts)));
        this.#fragments = undefined;
      }
    }
  }
}

function frame(opcode: number, data: Buffer): WebSocketFrame {
  const text = opcode === OPCODE.close ? data.subarray(2).toString("utf8") : data.toString("utf8");
  return { opcode, text, data };
}

function maskedTextFrame(text: string): Buffer {
  return maskedFrame(OPCODE.text, Buffer.from(text, "utf8"));
}

function maskedFrame(opcode: number, payload: Buffer): Buffer {
  const mask = randomBytes(4);
  let header: Buffer;
  if (payload.length < 126) {
    header = Buffer.from([0x80 | opcode, 0x80 | payload.length]);
  } else if (payload.length < 65_536) {
    header = Buffer.alloc(4);
    header[0] = 0x80 | opcode;
    header[1] = 0x80 | 126;
    header.writeUInt16BE(payload.length, 2);
  } else {
    header = Buffer.alloc(10);
    header[0] = 0x80 | opcode;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(payload.length), 2);
  }
  const masked = Buffer.from(payload);
  for (let i = 0; i < masked.length; i++) masked[i]! ^= mask[i % 4]!;
  return Buffer.concat([header, mask, masked]);
}

function acceptFor(key: string): string {
  return createHash("sha1").update(key + WEBSOCKET_GUID).digest("base64");
}
