/**
 * A real smart-HTTP git server for the egress tests and the gateway bench:
 * git's own `git-http-backend` run as a CGI behind a Node `http` server on
 * 127.0.0.1, holding bare repositories under a temp directory.
 *
 * It asks for credentials the way GitHub does for a private repository:
 * HTTP Basic with `x-access-token:<token>`. The read token may fetch
 * (upload-pack); only the write token may push (receive-pack); anything
 * else gets 401 with `WWW-Authenticate: Basic realm="GitHub"` (with
 * `publicRead`, a read with no token is served, as for a public repository),
 * and the read token pushing gets 403. http-backend enables receive-pack only when
 * REMOTE_USER is set, so it is set for the write token alone. Every request
 * is recorded with the token it carried. `/owner/name/…` is served as
 * `owner/name.git`, as GitHub does.
 *
 * `startApi` adds one piece of GitHub's REST API on a second port: the
 * compare API (`GET /repos/o/r/compare/A...B`) the gateway asks before a push
 * moves a branch, answered from the repository with `git merge-base
 * --is-ancestor` (ahead, behind, identical, diverged; 404 for a commit it
 * does not hold) and recorded in `compareCalls`; every other API request
 * goes on to the API stub it is given. It does not speak HTTPS or LFS, and
 * it knows nothing of the gateway: the tests put the gateway in front.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type TokenKind = "read" | "write" | "none" | "unknown";
export type GitServerRequest = { method: string; path: string; token: TokenKind; status: number };
/** A compare API call, with the token it carried and what it was answered. */
export type CompareCall = { path: string; token: TokenKind; status: number; answer: string | null };
export type RefList = { ref: string; oid: string }[];

export type GitHttpServerOptions = {
  readToken: string;
  writeToken: string;
  /** Serve reads without a token, as GitHub serves a public repository (pushes still need the write token). */
  publicRead?: boolean;
};

export type CreateRepoOptions = {
  /** Extra files for the first commit on `main`, path → bytes (the bench's large content). */
  files?: Record<string, Uint8Array>;
};

const HTTP_BACKEND = join(execFileSync("git", ["--exec-path"], { encoding: "utf8" }).trim(), "git-http-backend");
/** CGI headers end within this many bytes; more means http-backend is not answering as a CGI. */
const MAX_CGI_HEADER_BYTES = 64 * 1024;
const AUTHOR = { GIT_AUTHOR_NAME: "Fixture", GIT_AUTHOR_EMAIL: "fixture@example.invalid" };
/** 2024-01-01T00:00:00Z: a fixed date, so a repository's object ids are the same every run. */
const FIXED_EPOCH_SECONDS = 1_704_067_200;

export class GitHttpServer {
  /** Every request in arrival order, with the token it carried and the status it got. */
  readonly requests: GitServerRequest[] = [];
  readonly compareCalls: CompareCall[] = [];
  readonly root: string;
  readonly #options: GitHttpServerOptions;
  readonly #server: Server;
  readonly #env: Record<string, string | undefined>;
  #api: Server | null = null;

  private constructor(options: GitHttpServerOptions) {
    this.#options = options;
    this.root = mkdtempSync(join(tmpdir(), "agent-think-git-server-"));
    mkdirSync(join(this.root, "repos"));
    mkdirSync(join(this.root, "home"));
    // git run by the server sees none of the machine's or the user's configuration, and keeps
    // every push as the pack it came in, as a host does (below 100 objects receive-pack would
    // inflate and deflate each one again into a loose file).
    this.#env = {
      PATH: process.env.PATH,
      HOME: join(this.root, "home"),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "receive.unpackLimit",
      GIT_CONFIG_VALUE_0: "1"
    };
    this.#server = createServer((request, response) => this.#handle(request, response));
  }

  static async start(options: GitHttpServerOptions): Promise<GitHttpServer> {
    const server = new GitHttpServer(options);
    await new Promise<void>((resolve, reject) => {
      server.#server.once("error", reject);
      server.#server.listen(0, "127.0.0.1", resolve);
    });
    return server;
  }

  /** `http://127.0.0.1:<port>` */
  get origin(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }

  /**
   * A bare `owner/name.git`: `main` with one commit and the annotated tag
   * v1.0.0 on it, `dev` one commit ahead of `main`. Written by one
   * `git fast-import`: every test makes its repository, and each git
   * process costs tens of milliseconds.
   */
  createRepo(name: string, options: CreateRepoOptions = {}): string {
    const bare = this.#repoDir(name);
    mkdirSync(bare, { recursive: true });
    this.#git(bare, ["init", "-q", "--bare", "-b", "main"]);
    const files: [string, Uint8Array][] = [["README.md", Buffer.from(`# ${name}\n`)], ...Object.entries(options.files ?? {})];
    const stream: Uint8Array[] = [];
    const line = (text: string) => stream.push(Buffer.from(`${text}\n`));
    const data = (bytes: Uint8Array) => {
      line(`data ${bytes.length}`);
      stream.push(bytes);
      line("");
    };
    const who = `${AUTHOR.GIT_AUTHOR_NAME} <${AUTHOR.GIT_AUTHOR_EMAIL}> ${FIXED_EPOCH_SECONDS} +0000`;
    const commit = (ref: string, mark: number, message: string, from: number | null, tree: [string, Uint8Array][]) => {
      line(`commit ${ref}`);
      line(`mark :${mark}`);
      line(`author ${who}`);
      line(`committer ${who}`);
      data(Buffer.from(`${message}\n`));
      if (from !== null) line(`from :${from}`);
      for (const [path, bytes] of tree) {
        line(`M 100644 inline ${path}`);
        data(bytes);
      }
      line("");
    };
    commit("refs/heads/main", 1, "first commit", null, files);
    line("tag v1.0.0");
    line("from :1");
    line(`tagger ${who}`);
    data(Buffer.from("v1.0.0\n"));
    commit("refs/heads/dev", 2, "dev work", 1, [["DEV.md", Buffer.from("work in progress\n")]]);
    // Kept as one pack, as a hosted repository is (below 100 objects fast-import would write loose ones): a clone then sends stored bytes instead of compressing them again.
    execFileSync("git", ["-c", "fastimport.unpackLimit=0", "fast-import", "--quiet"], { cwd: bare, env: this.#env as NodeJS.ProcessEnv, input: Buffer.concat(stream), stdio: ["pipe", "ignore", "pipe"] });
    return bare;
  }

  /** A new empty commit on `branch` of `owner/name`, as someone else pushing there would make it; returns its id. */
  commitOn(name: string, branch: string, message: string): string {
    const bare = this.#repoDir(name);
    const ref = `refs/heads/${branch}`;
    const who = `${AUTHOR.GIT_AUTHOR_NAME} <${AUTHOR.GIT_AUTHOR_EMAIL}> ${FIXED_EPOCH_SECONDS + 60} +0000`;
    const parent = this.#git(bare, ["rev-parse", ref]).trim();
    const tree = this.#git(bare, ["rev-parse", `${ref}^{tree}`]).trim();
    const body = `tree ${tree}\nparent ${parent}\nauthor ${who}\ncommitter ${who}\n\n${message}\n`;
    const commit = execFileSync("git", ["hash-object", "-t", "commit", "-w", "--stdin"], { cwd: bare, env: this.#env as NodeJS.ProcessEnv, input: body, encoding: "utf8" }).trim();
    this.#git(bare, ["update-ref", ref, commit, parent]);
    return commit;
  }

  /** Every ref of `owner/name` with its object id, sorted by name. */
  refs(name: string): RefList {
    const out = this.#git(this.#repoDir(name), ["for-each-ref", "--format=%(objectname) %(refname)"]);
    return out
      .split("\n")
      .filter(Boolean)
      .map((line) => {
        const [oid, ref] = line.split(" ") as [string, string];
        return { ref, oid };
      });
  }

  /**
   * Listen for API requests too: the compare API answered here, anything
   * else passed to `fallback` (the API stub's origin). Returns the origin.
   */
  async startApi(fallback: string): Promise<string> {
    const api = createServer((request, response) => {
      if (!this.#compare(request, response)) passOn(request, response, fallback);
    });
    await new Promise<void>((resolve, reject) => {
      api.once("error", reject);
      api.listen(0, "127.0.0.1", resolve);
    });
    this.#api = api;
    return `http://127.0.0.1:${(api.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    for (const server of [this.#server, this.#api]) {
      if (!server) continue;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    rmSync(this.root, { recursive: true, force: true });
  }

  /** GitHub's compare API for a repository held here; false when `request` is not one. */
  #compare(request: IncomingMessage, response: ServerResponse): boolean {
    const url = new URL(request.url ?? "/", "http://api.invalid");
    const match = /^\/repos\/([^/]+)\/([^/]+)\/compare\/([0-9a-f]{40,64})\.\.\.([0-9a-f]{40,64})$/.exec(url.pathname);
    if (!match || request.method !== "GET") return false;
    request.resume();
    const [, owner, name, base, head] = match;
    const token = this.#apiTokenOf(request.headers.authorization);
    const answer = (status: number, value: Record<string, unknown>) => {
      this.compareCalls.push({ path: `${url.pathname}${url.search}`, token, status, answer: typeof value.status === "string" ? value.status : null });
      response.writeHead(status, { "content-type": "application/json; charset=utf-8" }).end(JSON.stringify(value));
    };
    if (token !== "read" && token !== "write") {
      answer(401, { message: "Bad credentials" });
      return true;
    }
    const cwd = this.#repoDir(`${owner}/${name}`);
    const isAncestor = (a: string, b: string) =>
      new Promise<number | null>((resolve) => {
        execFile("git", ["merge-base", "--is-ancestor", a, b], { cwd, env: this.#env as NodeJS.ProcessEnv }, (error) => {
          resolve(error ? (typeof error.code === "number" ? error.code : null) : 0);
        });
      });
    void Promise.all([isAncestor(base!, head!), isAncestor(head!, base!)]).then(([forward, backward]) => {
      // merge-base says 0 (yes) or 1 (no); anything else is a commit the repository does not hold.
      if ((forward !== 0 && forward !== 1) || (backward !== 0 && backward !== 1)) return answer(404, { message: "Not Found" });
      const status = forward === 0 && backward === 0 ? "identical" : forward === 0 ? "ahead" : backward === 0 ? "behind" : "diverged";
      answer(200, { status, base_commit: { sha: base }, commits: [], files: [] });
    });
    return true;
  }

  #repoDir(name: string): string {
    return join(this.root, "repos", `${name}.git`);
  }

  #git(cwd: string, args: string[]): string {
    return execFileSync("git", args, { cwd, env: this.#env as NodeJS.ProcessEnv, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  }

  #tokenOf(header: string | undefined): TokenKind {
    if (!header) return "none";
    const match = /^Basic\s+(\S+)$/i.exec(header);
    if (!match) return "unknown";
    const [user, password] = Buffer.from(match[1]!, "base64").toString("utf8").split(/:(.*)/s);
    if (user !== "x-access-token") return "unknown";
    if (password === this.#options.writeToken) return "write";
    if (password === this.#options.readToken) return "read";
    return "unknown";
  }

  /** The API's own spelling: `token <t>` or `Bearer <t>`. */
  #apiTokenOf(header: string | undefined): TokenKind {
    if (!header) return "none";
    const password = /^(?:token|bearer)\s+(\S+)$/i.exec(header)?.[1];
    if (password === this.#options.writeToken) return "write";
    if (password === this.#options.readToken) return "read";
    return "unknown";
  }

  #handle(request: IncomingMessage, response: ServerResponse): void {
    const url = new URL(request.url ?? "/", "http://git.invalid");
    const method = request.method ?? "GET";
    const token = this.#tokenOf(request.headers.authorization);
    const record = (status: number) => this.requests.push({ method, path: `${url.pathname}${url.search}`, token, status });
    const push = url.searchParams.get("service") === "git-receive-pack" || url.pathname.endsWith("/git-receive-pack");
    const deny = (status: 401 | 403, message: string) => {
      record(status);
      request.resume();
      const headers: Record<string, string> = { "content-type": "text/plain; charset=utf-8" };
      if (status === 401) headers["www-authenticate"] = 'Basic realm="GitHub"';
      response.writeHead(status, headers).end(`${message}\n`);
    };
    const anonymousRead = token === "none" && !push && this.#options.publicRead === true;
    if (token !== "read" && token !== "write" && !anonymousRead) return deny(401, "Invalid username or token.");
    if (push && token !== "write") return deny(403, "Permission denied: the read token may not push.");

    let path: string;
    try {
      path = withGitSuffix(decodeURIComponent(url.pathname));
    } catch {
      record(400);
      request.resume();
      response.writeHead(400, { "content-type": "text/plain" }).end("not a path\n");
      return;
    }
    const env: Record<string, string | undefined> = {
      ...this.#env,
      GIT_PROJECT_ROOT: join(this.root, "repos"),
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: path,
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: method,
      REMOTE_ADDR: "127.0.0.1",
      SERVER_PROTOCOL: `HTTP/${request.httpVersion}`
    };
    if (push) env.REMOTE_USER = "x-access-token";
    if (request.headers["content-type"]) env.CONTENT_TYPE = request.headers["content-type"];
    if (request.headers["content-length"]) env.CONTENT_LENGTH = request.headers["content-length"];
    if (request.headers["content-encoding"]) env.HTTP_CONTENT_ENCODING = request.headers["content-encoding"];
    const protocol = request.headers["git-protocol"];
    if (typeof protocol === "string") env.GIT_PROTOCOL = protocol;

    const child = spawn(HTTP_BACKEND, [], { env: env as NodeJS.ProcessEnv, stdio: ["pipe", "pipe", "pipe"] });
    request.pipe(child.stdin);
    // A client that hangs up mid-body leaves http-backend a broken pipe; that is its business, not a crash of ours.
    child.stdin.on("error", () => {});
    child.stderr.resume();
    let head = Buffer.alloc(0);
    let answered = false;
    const fail = (message: string) => {
      if (answered) return response.destroy();
      answered = true;
      record(502);
      response.writeHead(502, { "content-type": "text/plain" }).end(`${message}\n`);
    };
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = headerEnd(head);
      if (end === null) {
        if (head.length > MAX_CGI_HEADER_BYTES) {
          child.kill();
          fail("git-http-backend sent no CGI header");
        }
        return;
      }
      child.stdout.off("data", onData);
      const { status, headers } = parseCgiHeaders(head.subarray(0, end.at).toString("latin1"));
      answered = true;
      record(status);
      response.writeHead(status, headers);
      const rest = head.subarray(end.at + end.length);
      if (rest.length > 0) response.write(rest);
      child.stdout.pipe(response);
    };
    child.stdout.on("data", onData);
    child.once("error", (error) => fail(`git-http-backend: ${error.message}`));
    child.once("close", () => {
      if (!answered) fail("git-http-backend ended without an answer");
    });
    // A client that went away mid-answer leaves nothing to answer; one that got its answer leaves the child to finish.
    response.once("close", () => {
      if (!response.writableFinished && child.exitCode === null) child.kill();
    });
  }
}

/** `request` sent on to `origin` as it came, and its answer back. */
function passOn(request: IncomingMessage, response: ServerResponse, origin: string): void {
  const target = new URL(request.url ?? "/", origin);
  const onward = httpRequest(target, { method: request.method, headers: { ...request.headers, host: target.host } }, (answer) => {
    response.writeHead(answer.statusCode ?? 502, answer.headers);
    answer.pipe(response);
  });
  onward.once("error", (error) => {
    if (!response.headersSent) response.writeHead(502, { "content-type": "text/plain" }).end(`${error.message}\n`);
    else response.destroy();
  });
  request.pipe(onward);
}

/** GitHub serves `owner/name` and `owner/name.git` alike; http-backend needs the directory's name. */
function withGitSuffix(path: string): string {
  const match = /^\/([^/]+)\/([^/]+?)(\.git)?(\/.*)?$/.exec(path);
  if (!match) return path;
  return `/${match[1]}/${match[2]}.git${match[4] ?? ""}`;
}

/** Where the CGI header block ends: the blank line (`\r\n\r\n` or `\n\n`). */
function headerEnd(bytes: Buffer): { at: number; length: number } | null {
  const crlf = bytes.indexOf("\r\n\r\n");
  const lf = bytes.indexOf("\n\n");
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { at: crlf, length: 4 };
  if (lf >= 0) return { at: lf, length: 2 };
  return null;
}

function parseCgiHeaders(block: string): { status: number; headers: Record<string, string> } {
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "status") status = Number.parseInt(value, 10) || 500;
    else headers[name] = value;
  }
  return { status, headers };
}
