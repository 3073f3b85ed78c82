/**
 * The test git server's own rules (test/support/git-http-server.ts): a
 * private repository answers no one without a token, a public one serves
 * reads to anyone and pushes only to the write token, as GitHub does. The
 * real-container suite serves its repository public.
 */
import { execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lacks, needs } from "../support/external-tools";
import { GitHttpServer } from "../support/git-http-server";

const run = promisify(execFile);
const TOKENS = { readToken: "read-token-for-the-test", writeToken: "write-token-for-the-test" };
const GIT_ENV = { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" };

/** git's exit code and what it printed; never throws. */
async function git(args: string[], cwd?: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await run("git", args, { cwd, env: GIT_ENV });
    return { code: 0, output: stdout + stderr };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof failed.code === "number" ? failed.code : 1, output: `${failed.stdout ?? ""}${failed.stderr ?? ""}` };
  }
}

describe.each([false, true])(`the test git server, publicRead %s${needs("git-http-backend")}`, (publicRead) => {
  let server: GitHttpServer;
  beforeAll(async () => {
    if (lacks("git-http-backend")) return;
    server = await GitHttpServer.start({ ...TOKENS, publicRead });
    server.createRepo("acme/widgets");
  });
  afterAll(async () => server?.close());

  it.skipIf(lacks("git-http-backend"))(publicRead ? "serves a read with no token" : "asks a read with no token to authenticate", async () => {
    const listed = await git(["ls-remote", `${server.origin}/acme/widgets`, "refs/heads/main"]);
    if (publicRead) expect(listed, listed.output).toMatchObject({ code: 0, output: expect.stringMatching(/^[0-9a-f]{40}\trefs\/heads\/main$/m) });
    else expect(listed.code, listed.output).not.toBe(0);
    expect(server.requests[0]).toMatchObject({ token: "none", status: publicRead ? 200 : 401 });
  });

  it.skipIf(lacks("git-http-backend"))("refuses a push with no token, and main stays where it was", async () => {
    const before = server.refs("acme/widgets");
    const clone = join(mkdtempSync(join(tmpdir(), "git-server-test-")), "clone");
    const url = `http://x-access-token:${TOKENS.readToken}@${server.origin.slice("http://".length)}/acme/widgets`;
    expect((await git(["clone", "-q", url, clone])).code).toBe(0);
    expect((await git(["-c", "user.name=t", "-c", "user.email=t@example.invalid", "commit", "-q", "--allow-empty", "-m", "more"], clone)).code).toBe(0);
    const pushed = await git(["push", `${server.origin}/acme/widgets`, "HEAD:main"], clone);
    expect(pushed.code, pushed.output).not.toBe(0);
    expect(server.refs("acme/widgets")).toEqual(before);
    expect(server.requests.filter((request) => request.path.includes("receive-pack")).map((request) => request.status)).toEqual([401]);
  });
});
