/**
 * A small recording stand-in for the GitHub REST API, for running the bot
 * offline: `npm start` points the agent Worker's GITHUB_API_URL at it, and
 * `npm run dev:ingress` points the webhook app at it. It answers the few
 * calls agent-think makes, as GitHub would shape them, accepts any token,
 * and keeps every request it was asked (without the Authorization header)
 * so a run's reactions and comments can be read back:
 * `GET /_standin/records`.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type StandinRecord = { method: string; path: string; body: unknown; at: number };

type Comment = { id: number; body: string; html_url: string; user: { login: string; type: "Bot" }; created_at: string };

export type GitHubStandin = {
  url: string;
  records(): StandinRecord[];
  close(): Promise<void>;
};

export type StandinOptions = {
  port?: number;
  host?: string;
  /** The bot login comments are posted as. */
  botLogin?: string;
  /** Called with each request as it is recorded (the dev log). */
  onRecord?: (record: StandinRecord) => void;
};

const MAX_BODY_BYTES = 1024 * 1024;

export async function startGitHubStandin(options: StandinOptions = {}): Promise<GitHubStandin> {
  const host = options.host ?? "127.0.0.1";
  const botLogin = options.botLogin ?? "agent-think[bot]";
  const records: StandinRecord[] = [];
  const comments = new Map<string, Comment[]>();
  const reactions = new Set<string>();
  let nextId = 1000;
  let baseUrl = "";

  const server: Server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      send(response, 500, { message: error instanceof Error ? error.message : String(error) });
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? "/", "http://standin");
    const method = request.method ?? "GET";
    const raw = await readBody(request);
    if (raw === null) return send(response, 413, { message: "body too large" });
    let body: unknown = undefined;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        return send(response, 400, { message: "Problems parsing JSON" });
      }
    }
    const path = url.pathname;

    if (path === "/_standin/records") {
      if (method === "GET") return send(response, 200, { records });
      if (method === "DELETE") {
        records.length = 0;
        comments.clear();
        reactions.clear();
        return send(response, 204);
      }
      return send(response, 405, { message: "method not allowed" });
    }

    const record: StandinRecord = { method, path, body, at: Date.now() };
    records.push(record);
    options.onRecord?.(record);

    let match = /^\/repos\/([^/]+)\/([^/]+)\/issues\/comments\/(\d+)\/reactions$/.exec(path);
    if (match && method === "POST") {
      const content = (body as { content?: unknown } | undefined)?.content;
      if (typeof content !== "string") return send(response, 422, { message: "content is required" });
      const key = `${match[1]}/${match[2]}#${match[3]}:${content}`.toLowerCase();
      const existed = reactions.has(key);
      reactions.add(key);
      // GitHub answers 200 for a reaction the user already left, 201 for a new one.
      return send(response, existed ? 200 : 201, { id: nextId++, content, user: { login: botLogin, type: "Bot" } });
    }

    match = /^\/repos\/([^/]+)\/([^/]+)\/issues\/(\d+)\/comments$/.exec(path);
    if (match) {
      const key = `${match[1]}/${match[2]}#${match[3]}`.toLowerCase();
      const list = comments.get(key) ?? [];
      if (method === "GET") return send(response, 200, list);
      if (method === "POST") {
        const text = (body as { body?: unknown } | undefined)?.body;
        if (typeof text !== "string" || text.length === 0) return send(response, 422, { message: "body is required" });
        const id = nextId++;
        const comment: Comment = {
          id,
          body: text,
          html_url: `${baseUrl}/${match[1]}/${match[2]}/issues/${match[3]}#issuecomment-${id}`,
          user: { login: botLogin, type: "Bot" },
          created_at: new Date().toISOString()
        };
        comments.set(key, [...list, comment]);
        return send(response, 201, comment);
      }
    }

    match = /^\/repos\/([^/]+)\/([^/]+)\/installation$/.exec(path);
    if (match && method === "GET") return send(response, 200, { id: 1, account: { login: match[1] } });

    match = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path);
    if (match && method === "POST") {
      return send(response, 201, {
        token: `ghs_standin${String(nextId++).padStart(30, "0")}`,
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        permissions: { issues: "write", contents: "write", pull_requests: "write", metadata: "read" }
      });
    }

    return send(response, 404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  baseUrl = `http://${host}:${address.port}`;

  return {
    url: baseUrl,
    records: () => [...records],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      })
  };
}

/** One readable line per recorded call, for the dev log. */
export function describeRecord(record: StandinRecord): string {
  const body = record.body as { content?: string; body?: string } | undefined;
  if (body?.content !== undefined) return `${record.method} ${record.path} (${body.content})`;
  if (body?.body !== undefined) {
    const firstLine = body.body.split("\n").find((line) => line.trim() !== "" && !line.startsWith("<!--")) ?? "";
    return `${record.method} ${record.path}: ${firstLine.slice(0, 120)}`;
  }
  return `${record.method} ${record.path}`;
}

function readBody(request: IncomingMessage): Promise<string | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    request.on("end", () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks).toString("utf8")));
    request.on("error", reject);
  });
}

function send(response: ServerResponse, status: number, body?: unknown): void {
  if (body === undefined) {
    response.writeHead(status).end();
    return;
  }
  response.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(body));
}
