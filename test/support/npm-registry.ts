/**
 * A real private npm registry for the egress tests: verdaccio (from npm)
 * in a child process on 127.0.0.1, in a temporary directory, where every
 * package needs a logged-in user to read or publish. `addUser` creates one
 * and returns its token; `publish` puts a package in with the real npm.
 * `publicUrl` is the origin the registry writes into tarball links: the
 * name the sandbox knows it by, not its loopback address.
 */
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { freePort } from "../../scripts/lib/wrangler-dev";

const run = promisify(execFile);
const VERDACCIO = join(import.meta.dirname, "../../node_modules/verdaccio/bin/verdaccio");
const READY_TIMEOUT_MS = 60_000;

export class PrivateRegistry {
  readonly origin: string;
  readonly #dir: string;
  readonly #child: ChildProcess;
  #output = "";

  private constructor(dir: string, origin: string, child: ChildProcess) {
    this.#dir = dir;
    this.origin = origin;
    this.#child = child;
    const keep = (chunk: Buffer) => (this.#output = (this.#output + chunk.toString("utf8")).slice(-8_000));
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
  }

  static async start(publicUrl: string): Promise<PrivateRegistry> {
    const dir = mkdtempSync(join(tmpdir(), "agent-think-registry-"));
    const config = [
      `storage: ${join(dir, "storage")}`,
      "auth:",
      "  htpasswd:",
      `    file: ${join(dir, "htpasswd")}`,
      "    max_users: 10",
      "packages:",
      "  '**':",
      "    access: $authenticated",
      "    publish: $authenticated",
      "uplinks: {}",
      "log: { type: stdout, format: json, level: error }"
    ].join("\n");
    writeFileSync(join(dir, "config.yaml"), `${config}\n`);
    const port = await freePort();
    // With this process's Node (22, as verdaccio asks), whatever `node` PATH finds first.
    const child = spawn(process.execPath, [VERDACCIO, "--config", join(dir, "config.yaml"), "--listen", `127.0.0.1:${port}`], {
      env: { ...process.env, VERDACCIO_PUBLIC_URL: publicUrl },
      stdio: ["ignore", "pipe", "pipe"]
    });
    const registry = new PrivateRegistry(dir, `http://127.0.0.1:${port}`, child);
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`verdaccio exited (${child.exitCode}):\n${registry.#output}`);
      const ready = await fetch(`${registry.origin}/-/ping`).then((response) => response.ok, () => false);
      if (ready) return registry;
      if (Date.now() > deadline) {
        await registry.close();
        throw new Error(`verdaccio did not answer within ${READY_TIMEOUT_MS} ms:\n${registry.#output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** A new user, and the token the registry gives it. */
  async addUser(name: string, password: string): Promise<string> {
    const response = await fetch(`${this.origin}/-/user/org.couchdb.user:${name}`, {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name, password })
    });
    const body = (await response.json()) as { token?: string };
    if (!response.ok || !body.token) throw new Error(`verdaccio refused the user: ${response.status} ${JSON.stringify(body)}`);
    return body.token;
  }

  /** Publishes `name@version` (a module exporting `exported`) with the real npm, as `token`'s user. */
  async publish(name: string, version: string, exported: string, token: string): Promise<void> {
    const work = mkdtempSync(join(this.#dir, "publish-"));
    mkdirSync(join(work, "home"));
    writeFileSync(join(work, "package.json"), JSON.stringify({ name, version, main: "index.js" }));
    writeFileSync(join(work, "index.js"), `module.exports = ${JSON.stringify(exported)};\n`);
    const host = this.origin.slice("http:".length);
    writeFileSync(join(work, "home", ".npmrc"), `${host}/:_authToken=${token}\n`);
    await run("npm", ["publish", "--registry", `${this.origin}/`, "--no-update-notifier"], {
      cwd: work,
      env: { PATH: process.env.PATH, HOME: join(work, "home"), npm_config_cache: join(work, "cache") } as unknown as NodeJS.ProcessEnv
    });
  }

  async close(): Promise<void> {
    this.#child.kill("SIGTERM");
    if (this.#child.exitCode === null) await new Promise((resolve) => this.#child.once("exit", resolve));
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
