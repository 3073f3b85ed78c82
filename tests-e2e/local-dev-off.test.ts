/**
 * The agent Worker as a deploy runs it (no LOCAL_DEV), against a real
 * `wrangler dev`, with one page of each kind published in its reproductions
 * bucket before it starts.
 *
 * Without Access and without the opt-out it fails closed: the API, the
 * sockets, the dashboard and a private reproduction answer 503 with a page
 * naming CF_ACCESS_TEAM_DOMAIN, CF_ACCESS_AUD and ACCESS=off; a public
 * repository's reproduction stays public. With ACCESS=off (the operator's
 * explicit opt-out) it is open as before, and the dev surface still does
 * not exist: /dev/* answers exactly like any unknown path, so production
 * never exposes an unauthenticated dispatch.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect } from "vitest";
import { NOT_CONFIGURED } from "../src/http/access";
import { ROOT, startDevServer, test as base, type DevServer } from "./fixture";
import { probe } from "./support/raw-http";

const PUBLIC_ID = "0123456789abcdef0123456789abcdef";
const PRIVATE_ID = "fedcba9876543210fedcba9876543210";
const BUCKET = "agent-think-repros";
/** What a browser sends for a reproduction's frame, the only request its page's document answers (src/http/repro-routes.ts). */
const FRAME = { "sec-fetch-dest": "iframe" };

type Deployed = DevServer & { publicPage: string; privatePage: string };

/**
 * A state directory whose reproductions bucket holds a public and a private
 * page (wrangler's own local R2). Written once, by two `wrangler r2 object
 * put` (about 1.7 CPU seconds each), and copied for each server: the
 * copy is taken after wrangler has exited, so its SQLite files are whole.
 */
let pages: Promise<string> | undefined;
async function publishedPages(): Promise<string> {
  const template = await (pages ??= (async () => {
    const directory = await mkdtemp(join(tmpdir(), "agent-think-deployed-pages-"));
    const page = join(directory, "page.html");
    for (const [key, text] of [
      [`repros/${PUBLIC_ID}/index.html`, "<p>public page</p>"],
      [`repros/private/${PRIVATE_ID}/index.html`, "<p>private page</p>"]
    ] as const) {
      await writeFile(page, text);
      await promisify(execFile)(
        join(ROOT, "node_modules", ".bin", "wrangler"),
        ["r2", "object", "put", `${BUCKET}/${key}`, "--file", page, "--content-type", "text/html; charset=utf-8", "--local", "--persist-to", directory],
        { cwd: ROOT, env: { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ""}` } }
      );
    }
    return directory;
  })());
  const persistTo = await mkdtemp(join(tmpdir(), "agent-think-deployed-"));
  await cp(join(template, "v3"), join(persistTo, "v3"), { recursive: true });
  return persistTo;
}

afterAll(async () => {
  if (pages) await rm(await pages, { recursive: true, force: true });
});

async function deployed(vars: Record<string, string>, onCleanup: (cleanup: () => Promise<void>) => void): Promise<Deployed> {
  const persistTo = await publishedPages();
  const server = await startDevServer({ localDev: false, persistTo, vars });
  onCleanup(async () => {
    await server.stop();
    await rm(persistTo, { recursive: true, force: true });
  });
  return { ...server, publicPage: `/repro/${PUBLIC_ID}/`, privatePage: `/repro/private/${PRIVATE_ID}/` };
}

const test = base
  .extend("withoutAccess", { scope: "file" }, ({}, { onCleanup }) => deployed({}, onCleanup))
  .extend("optedOut", { scope: "file" }, ({}, { onCleanup }) => deployed({ ACCESS: "off" }, onCleanup));

describe("a deploy without Access and without ACCESS=off", () => {
  test("answers 503 naming both variables and the opt-out to the API, a socket, the dashboard and a private reproduction", async ({ withoutAccess: server }) => {
    for (const path of ["/api/command-center", "/api/health", "/", "/thread/acme-widgets-1", "/agents/think-agent/acme-widgets-1/get-messages", server.privatePage, "/dev/dispatch", "/nope"]) {
      const response = await fetch(`${server.url}${path}`, { redirect: "manual" });
      expect(response.status, path).toBe(503);
      const page = await response.text();
      expect(page, path).toBe(NOT_CONFIGURED);
      for (const name of ["CF_ACCESS_TEAM_DOMAIN", "CF_ACCESS_AUD", "ACCESS=off"]) expect(page).toContain(name);
    }
    const socket = await probe(server.url, { path: "/agents/command-center-agent/main", websocket: true, headers: { Origin: server.url } });
    expect(socket.status, socket.body).toBe(503);
    expect(socket.frames).toEqual([]);
    // The dispatch CLI's socket (no Origin) is no way around it.
    expect((await probe(server.url, { path: "/agents/command-center-agent/main", websocket: true })).status).toBe(503);
  });

  test("still serves a public repository's reproduction", async ({ withoutAccess: server }) => {
    // The page itself, as its wrapper's frame asks for it (a top-level visit gets the wrapper).
    const response = await fetch(`${server.url}${server.publicPage}`, { headers: FRAME });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe("<p>public page</p>");
  });
});

describe("a deploy with ACCESS=off", () => {
  test("is open: the API, a socket and a private reproduction", async ({ optedOut: server }) => {
    const snapshot = await fetch(`${server.url}/api/command-center`);
    expect(snapshot.status).toBe(200);
    expect(await snapshot.json()).toMatchObject({ threads: expect.any(Array) });
    const health = (await (await fetch(`${server.url}/api/health`)).json()) as { checks: Array<{ id: string }> };
    expect(health.checks.find((check) => check.id === "access")).toMatchObject({ status: "warn", unsafe: true });
    const socket = await probe(server.url, {
      path: "/agents/command-center-agent/main",
      websocket: true,
      headers: { Origin: server.url },
      until: (frames) => frames.some((frame) => frame.text.includes('"cf_agent_state"')),
      frameWindowMs: 5_000
    });
    expect(socket.status, socket.body).toBe(101);
    const granted = await fetch(`${server.url}${server.privatePage}`, { headers: FRAME });
    expect(granted.status).toBe(200);
    expect(await granted.text()).toBe("<p>private page</p>");
  });

  test("/dev/* are plain 404s without LOCAL_DEV", async ({ optedOut: server }) => {
    const dispatch = await fetch(`${server.url}/dev/dispatch`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ repo: "acme/widgets", issueNumber: 1, instruction: "TEST: reply should not run" })
    });
    expect(dispatch.status).toBe(404);
    expect(await dispatch.text()).toBe("not found");

    const messages = await fetch(`${server.url}/dev/messages/x-y-1`);
    expect(messages.status).toBe(404);
    expect(await messages.text()).toBe("not found");

    const unknown = await fetch(`${server.url}/nope`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe("not found");
  });
});
