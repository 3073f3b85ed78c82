/**
 * The egress gateway as a real sandbox process meets it, for the egress
 * tests and the gateway bench: a Node HTTP forward proxy on 127.0.0.1 that
 * `git`, `gh` and `curl` reach through `http_proxy`. Each absolute-form
 * request (`GET http://github.localhost/acme/widgets.git/info/refs …`) becomes
 * a Fetch `Request` with its body streamed, `EgressGateway.fetch` decides
 * it, and the `Response` is streamed back.
 *
 * The sandbox sees GitHub at `http://github.localhost` (git and pages),
 * `http://api.github.localhost` (REST and `/graphql`, where `gh` looks for
 * the `github.localhost` host) and `http://uploads.github.localhost`; the
 * gateway forwards them to a git server (git-http-server.ts) and an API stub
 * (github-api-stub.ts) with Node's global fetch. Refusals are kept in
 * `refusals`, every request the proxy took in `seen`.
 *
 * It owns only the translation between Node's http and Fetch: the
 * decisions are the gateway's. It does not tunnel CONNECT (HTTPS): the tests
 * speak plain HTTP, and a CONNECT is answered 405.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { EgressGateway, type EgressRefusal } from "../../src/egress/gateway";
import type { EgressGrant } from "../../src/egress/grant";
import type { GitHubEndpoints } from "../../src/egress/github-routes";

/** The origins the sandbox names: the host `gh` serves over plain HTTP (GH_HOST=github.localhost). */
export const SANDBOX_GITHUB = {
  web: "http://github.localhost",
  api: "http://api.github.localhost",
  graphql: "http://api.github.localhost/graphql",
  uploads: "http://uploads.github.localhost"
} as const;

export type EgressProxyOptions = {
  /** The git server's origin (`http://127.0.0.1:<port>`). */
  gitOrigin: string;
  /** The API stub's origin. */
  apiOrigin: string;
  grant: EgressGrant | (() => EgressGrant);
  /** Where the gateway's forwarded requests go; Node's fetch when not given (a test maps a registry's name to its port). */
  upstream?: (request: Request) => Promise<Response>;
};

/** Of a connection, not of a message: Node's http writes its own. */
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade"]);

export class EgressProxy {
  readonly refusals: EgressRefusal[] = [];
  readonly seen: { method: string; url: string }[] = [];
  /** Exceptions out of the gateway or while streaming its answer back (answered 502 when they can be): a test expects none. */
  readonly errors: string[] = [];
  readonly gateway: EgressGateway;
  readonly #server: Server;

  private constructor(options: EgressProxyOptions) {
    const endpoints: GitHubEndpoints = {
      ...SANDBOX_GITHUB,
      upstream: { web: options.gitOrigin, api: options.apiOrigin, graphql: `${options.apiOrigin}/graphql` }
    };
    const grant = options.grant;
    this.gateway = new EgressGateway({
      endpoints,
      grant: async () => (typeof grant === "function" ? grant() : grant),
      upstream: options.upstream ?? ((request) => fetch(request)),
      refused: (refusal) => {
        this.refusals.push(refusal);
      }
    });
    this.#server = createServer((request, response) => void this.#handle(request, response));
    this.#server.on("connect", (_request, socket) => {
      socket.end("HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n");
    });
  }

  static async start(options: EgressProxyOptions): Promise<EgressProxy> {
    const proxy = new EgressProxy(options);
    await new Promise<void>((resolve, reject) => {
      proxy.#server.once("error", reject);
      proxy.#server.listen(0, "127.0.0.1", resolve);
    });
    return proxy;
  }

  /** What `http_proxy` is set to. */
  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  async #handle(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const method = incoming.method ?? "GET";
    const target = incoming.url ?? "";
    this.seen.push({ method, url: target });
    if (!/^https?:\/\//i.test(target)) {
      incoming.resume();
      outgoing.writeHead(400, { "content-type": "text/plain" }).end("a forward proxy takes absolute-form requests\n");
      return;
    }
    try {
      const headers = new Headers();
      for (let i = 0; i < incoming.rawHeaders.length; i += 2) headers.append(incoming.rawHeaders[i]!, incoming.rawHeaders[i + 1]!);
      const init: RequestInit & { duplex?: "half" } = { method, headers };
      if (method !== "GET" && method !== "HEAD") {
        init.body = bodyOf(incoming);
        init.duplex = "half";
      }
      const response = await this.gateway.fetch(new Request(target, init));
      await send(response, outgoing);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.errors.push(message);
      if (!outgoing.headersSent) outgoing.writeHead(502, { "content-type": "text/plain" }).end(`egress proxy: ${message}\n`);
      else outgoing.destroy();
    }
  }
}

/**
 * The request body as a Web stream, read only as the gateway pulls. Not
 * `Readable.toWeb`: when its reader cancels, that adapter goes on
 * enqueueing the chunks already in flight and throws outside any handler
 * (it took the proxy down on a refused `gh api -X PATCH`). A cancel here
 * stops reading and discards the rest, keeping the connection for the
 * answer.
 */
function bodyOf(incoming: IncomingMessage): ReadableStream<Uint8Array> {
  const chunks = incoming.iterator({ destroyOnReturn: false });
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(value as Buffer);
      },
      async cancel() {
        await chunks.return?.();
        incoming.resume();
      }
    },
    { highWaterMark: 0 }
  );
}

async function send(response: Response, outgoing: ServerResponse): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (!HOP_BY_HOP.has(name) && name !== "set-cookie") headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length > 0) headers["set-cookie"] = cookies;
  // Node's fetch has already decoded a compressed upstream body; its length and encoding no longer describe it.
  if (headers["content-encoding"]) {
    delete headers["content-encoding"];
    delete headers["content-length"];
  }
  outgoing.writeHead(response.status, headers);
  if (response.body === null) {
    outgoing.end();
    return;
  }
  await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>), outgoing);
}
