/**
 * The GitHub stand-in's HTTP plumbing on Node's server: a request's body,
 * bounded, and a JSON (or empty) answer.
 */
import type { IncomingMessage, ServerResponse } from "node:http";

const MAX_BODY_BYTES = 1024 * 1024;

/** The body as text, or null when it is longer than `maxBytes` (1 MiB unless said: GraphQL's carries files). */
export function readBody(request: IncomingMessage, maxBytes = MAX_BODY_BYTES): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= maxBytes) chunks.push(chunk);
    });
    request.on("end", () => resolve(size > maxBytes ? null : Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

export function send(response: ServerResponse, status: number, body?: unknown, headers: Record<string, string> = {}): void {
  if (body === undefined) {
    response.writeHead(status, headers).end();
    return;
  }
  response.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers }).end(JSON.stringify(body));
}
