/**
 * The issue's images and attachments, with real Think turns, GitHub as MSW
 * plays it and the image hosts only through MSW handlers
 * (src/steps/issue-attachments.ts, src/github/attachment-fetch.ts,
 * src/steps/run-attachments.ts):
 * - an image in the body reaches the model (the gateway's OpenAI request,
 *   as the provider got it) as an image part of the right media type;
 * - a 404, an oversize file and a fake PNG each become a note in the
 *   block's `attachments`, and the run completes;
 * - a non-image attachment is listed, and `fetch_attachment` writes it
 *   under /workspace/attachments; a URL the block does not list is refused
 *   without a request;
 * - an image fetch carries a credential only to an upload's own path on the
 *   deployment's host (after a 404 there), and it is the run's read-only
 *   token, never its write token; never to camo, the user-content hosts,
 *   another link on the deployment's host or another repository's upload;
 * - the fallback (Anthropic) gets the same image as a base64 image block;
 * - a turn recovered after an eviction (a new isolate) fetches the image
 *   again, with the scripted model, which reads only the text.
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { http, HttpResponse } from "msw";
import { describe, expect, it } from "vitest";
import type { WorkspaceFacts } from "../src/steps/prepare";
import { sessionName } from "../src/shared/session-name";
import type { ThinkAgent } from "../src/agent";
import { agentFor, captureConsole, commandRunning, evict, uniqueRepo, until, waitForStatus } from "./helpers";
import { FakeGitHub, serveGitHub } from "./support/github";
import { imageHostHandlers, PNG_BYTES, type ImageHostRequest } from "./support/image-hosts";
import { anthropicText, ANTHROPIC_MESSAGES_URL, openaiText, openaiToolCall, providerError, providerHandlers, type RecordedRequest } from "./support/providers";
import { GatewayThinkAgent } from "./worker";

const github = new FakeGitHub();
const server = serveGitHub(github);

const TOKEN = "ghs_attachmentsRunTOKEN0000000000000";
const NUMBER = 31;
/** The tests' GitHub is an Enterprise Server at github.test (TEST_GITHUB_API_URL): its web host is the deployment's own. */
const OWN = "https://github.test";
const UUID = "0f3a7c1e-2b4d-4e6f-8a9b-1c2d3e4f5a6b";
const OTHER_UUID = "9e8d7c6b-5a49-4382-9170-6f5e4d3c2b1a";
/** The read-only token the test broker mints for `repo` (test/worker.ts TestTokenBroker). */
const readOnlyToken = (repo: string) => `ghs_testReadOnly_${repo.replace(/\W/g, "_")}`;

/** A run on `repo#NUMBER` whose model (OpenAI through the gateway) answers with `replies`, one per request; what it was sent. */
async function run(repo: string, replies: Array<() => Response>, anthropic: () => Response = () => providerError(500, "not the fallback")) {
  const recorded: RecordedRequest[] = [];
  let asked = 0;
  server.use(...providerHandlers({ openai: () => (replies[asked++] ?? (() => openaiText("done")))(), anthropic }, recorded));
  const session = sessionName(repo, NUMBER);
  GatewayThinkAgent.withGitHub.add(session);
  const { result } = await captureConsole(async () => {
    const agent = await agentFor(session, env.GatewayThinkAgent);
    const { submissionId } = await agent.startRun({
      session,
      repo,
      issueNumber: NUMBER,
      instruction: "reproduce this issue",
      installationToken: TOKEN,
      commentId: 5151,
      requestedBy: { login: "octocat" }
    });
    return { agent, status: await waitForStatus(agent, submissionId) };
  });
  expect(result.status.status).toBe("completed");
  return { recorded, agent: result.agent, session };
}

/** The workspace facts the first model request carried. */
function factsIn(request: RecordedRequest): WorkspaceFacts {
  const texts: string[] = [];
  const walk = (node: unknown): void => {
    if (typeof node === "string") texts.push(node);
    else if (node && typeof node === "object") Object.values(node).forEach(walk);
  };
  walk(JSON.parse(request.body));
  const text = texts.find((candidate) => candidate.includes("<agent-think-workspace>\n{"))!;
  const block = text.slice(text.indexOf("<agent-think-workspace>\n{"), text.indexOf("</agent-think-workspace>"));
  return JSON.parse(block.slice(block.indexOf("{"), block.lastIndexOf("}") + 1)) as WorkspaceFacts;
}

/** The Responses API's image inputs in a request: `{ type: "input_image", image_url: "data:<type>;base64,…" }`. */
function imagesIn(request: RecordedRequest): string[] {
  const found: string[] = [];
  const walk = (node: unknown): void => {
    if (node && typeof node === "object") {
      const part = node as { type?: string; image_url?: string };
      if (part.type === "input_image" && typeof part.image_url === "string") found.push(part.image_url);
      Object.values(node).forEach(walk);
    }
  };
  walk(JSON.parse(request.body));
  return found;
}

/** The output the latest tool call got, from the request after it. */
function toolOutput(request: RecordedRequest): string {
  const body = JSON.parse(request.body) as { input: Array<{ type: string; output?: unknown }> };
  const output = body.input.findLast((item) => item.type === "function_call_output")?.output;
  return typeof output === "string" ? output : JSON.stringify(output);
}

const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

describe("the issue's images and attachments", () => {
  it("give the model an image in the body as an image part, and note a 404, an oversize file and a fake PNG while the run completes", async () => {
    const repo = uniqueRepo();
    const requests: ImageHostRequest[] = [];
    server.use(
      ...imageHostHandlers(requests, {
        [`${OWN}/user-attachments/assets/${UUID}`]: () => new HttpResponse(PNG_BYTES, { headers: { "content-type": "image/png" } }),
        "https://user-images.githubusercontent.com/1/gone.png": () => new HttpResponse(null, { status: 404 }),
        "https://camo.githubusercontent.com/big/0123": () => new HttpResponse(new Uint8Array(6 * 1024 * 1024), { headers: { "content-type": "image/png" } }),
        "https://user-images.githubusercontent.com/1/fake.png": () => new HttpResponse("<html>not a png</html>", { headers: { "content-type": "image/png" } })
      })
    );
    github.setIssue(repo, NUMBER, {
      body: [
        `The dialog is cut off: <img width="400" alt="the dialog" src="${OWN}/user-attachments/assets/${UUID}">`,
        "![gone](https://user-images.githubusercontent.com/1/gone.png)",
        "![big](https://camo.githubusercontent.com/big/0123)",
        "![fake](https://user-images.githubusercontent.com/1/fake.png)",
        "![elsewhere](https://evil.example/tracker.png)",
        "```",
        "![in code](https://user-images.githubusercontent.com/1/code.png)",
        "```"
      ].join("\n")
    });
    const { recorded } = await run(repo, [() => openaiText("done")]);
    const facts = factsIn(recorded[0]!);
    expect(facts.attachments).toEqual([
      { url: `${OWN}/user-attachments/assets/${UUID}`, kind: "image", where: "body", alt: "the dialog", status: "shown", image: 1, mediaType: "image/png", bytes: PNG_BYTES.byteLength },
      { url: "https://user-images.githubusercontent.com/1/gone.png", kind: "image", where: "body", alt: "gone", status: "failed", note: expect.stringMatching(/^404/) },
      { url: "https://camo.githubusercontent.com/big/0123", kind: "image", where: "body", alt: "big", status: "failed", note: expect.stringMatching(/more than the 5 MB allowed/) },
      {
        url: "https://user-images.githubusercontent.com/1/fake.png",
        kind: "image",
        where: "body",
        alt: "fake",
        status: "failed",
        bytes: 22,
        note: "not a PNG, JPEG, GIF or WebP image by its bytes, served as image/png: not shown; fetch_attachment fetches it"
      },
      { url: "https://evil.example/tracker.png", kind: "image", where: "body", alt: "elsewhere", status: "not fetched", note: expect.stringMatching(/never fetched/) }
    ]);
    // The image part, as OpenAI got it: the PNG's bytes with their media type.
    expect(imagesIn(recorded[0]!)).toEqual([`data:image/png;base64,${base64(PNG_BYTES)}`]);
    // Nothing from another host or in code was asked for; no image host saw the token.
    expect(requests.map((request) => request.url).sort()).toEqual(
      [
        `${OWN}/user-attachments/assets/${UUID}`,
        "https://camo.githubusercontent.com/big/0123",
        "https://user-images.githubusercontent.com/1/fake.png",
        "https://user-images.githubusercontent.com/1/gone.png"
      ].sort()
    );
    expect(requests.every((request) => request.authorization === null)).toBe(true);
  });

  it("list a non-image attachment, and fetch_attachment writes it under /workspace/attachments; a URL not in the block is refused", async () => {
    const repo = uniqueRepo();
    const requests: ImageHostRequest[] = [];
    const log = "error: the build failed\n";
    const file = "https://github.com/user-attachments/files/4242/build.log";
    server.use(...imageHostHandlers(requests, { [file]: () => new HttpResponse(log, { headers: { "content-type": "text/plain" } }) }));
    github.setIssue(repo, NUMBER, { body: "The build fails." });
    github.addComments(repo, NUMBER, [`Here is the log: [build.log](${file})`]);
    const { recorded, agent } = await run(repo, [
      () => openaiToolCall("fetch_attachment", { url: "https://evil.example/payload.zip" }),
      () => openaiToolCall("fetch_attachment", { url: file }),
      () => openaiText("done")
    ]);
    expect(factsIn(recorded[0]!).attachments).toEqual([{ url: file, kind: "file", where: "comment 1", name: "build.log", status: "listed" }]);
    expect(toolOutput(recorded[1]!)).toMatch(/refused: fetch_attachment fetches only a URL listed/);
    expect(JSON.parse(toolOutput(recorded[2]!))).toEqual({ ok: true, path: "/workspace/attachments/1-build.log", bytes: log.length, mediaType: "text/plain" });
    const written = await runInDurableObject(agent as unknown as DurableObjectStub<ThinkAgent>, (instance) =>
      instance.workspace.fs.readFile("/workspace/attachments/1-build.log", "utf8")
    );
    expect(written).toBe(log);
    // Only the listed file was fetched (not at preparation: only when asked), and github.com is not this deployment's host: no token.
    expect(requests).toEqual([{ url: file, authorization: null }]);
  });

  it("send the read-only token to an upload on the deployment's own host only after it answered 404 without, and never follow a redirect with it", async () => {
    const repo = uniqueRepo();
    const requests: ImageHostRequest[] = [];
    const signed = `https://private-user-images.githubusercontent.com/9/55-${UUID}.png?jwt=signed`;
    server.use(
      ...imageHostHandlers(requests, {
        [`${OWN}/user-attachments/assets/${UUID}`]: ({ authorization }) =>
          authorization ? new HttpResponse(null, { status: 302, headers: { location: signed } }) : new HttpResponse(null, { status: 404 }),
        [signed]: () => new HttpResponse(PNG_BYTES, { headers: { "content-type": "image/png" } })
      })
    );
    github.setIssue(repo, NUMBER, { body: `![private](${OWN}/user-attachments/assets/${UUID})` });
    const { recorded } = await run(repo, [() => openaiText("done")]);
    expect(factsIn(recorded[0]!).attachments).toMatchObject([{ status: "shown", image: 1, mediaType: "image/png" }]);
    expect(imagesIn(recorded[0]!)).toHaveLength(1);
    expect(requests).toEqual([
      { url: `${OWN}/user-attachments/assets/${UUID}`, authorization: null },
      { url: `${OWN}/user-attachments/assets/${UUID}`, authorization: `Bearer ${readOnlyToken(repo)}` },
      { url: signed, authorization: null }
    ]);
  });

  it("send no token with an image elsewhere on the deployment's host or another repository's upload; the run's own repository upload gets the read-only one", async () => {
    const repo = uniqueRepo();
    const requests: ImageHostRequest[] = [];
    const privateImage = ({ authorization }: ImageHostRequest) => (authorization ? new HttpResponse(PNG_BYTES, { headers: { "content-type": "image/png" } }) : new HttpResponse(null, { status: 404 }));
    const own = `${OWN}/${repo}/assets/77/${UUID}`;
    const raw = `${OWN}/${repo}/raw/main/shot.png`;
    const other = `${OWN}/someone/else/assets/77/${OTHER_UUID}`;
    server.use(...imageHostHandlers(requests, { [own]: privateImage, [raw]: privateImage, [other]: privateImage }));
    github.setIssue(repo, NUMBER, { body: [`![own](${own})`, `![raw](${raw})`, `![other](${other})`].join("\n") });
    const { recorded } = await run(repo, [() => openaiText("done")]);
    expect(factsIn(recorded[0]!).attachments).toMatchObject([
      { url: own, status: "shown", image: 1 },
      { url: raw, status: "failed", note: expect.stringMatching(/^404/) },
      { url: other, status: "failed", note: expect.stringMatching(/^404/) }
    ]);
    expect(requests).toEqual([
      { url: own, authorization: null },
      { url: own, authorization: `Bearer ${readOnlyToken(repo)}` },
      { url: raw, authorization: null },
      { url: other, authorization: null }
    ]);
    expect(requests.some((request) => request.authorization?.includes(TOKEN))).toBe(false);
  });

  it("fetch_attachment sends the read-only token, never the run's, to a private upload on the deployment's host", async () => {
    const repo = uniqueRepo();
    const requests: ImageHostRequest[] = [];
    const file = `${OWN}/user-attachments/files/4243/private.log`;
    const log = "a private log\n";
    server.use(
      ...imageHostHandlers(requests, {
        [file]: ({ authorization }) => (authorization ? new HttpResponse(log, { headers: { "content-type": "text/plain" } }) : new HttpResponse(null, { status: 404 }))
      })
    );
    github.setIssue(repo, NUMBER, { body: `The log: [private.log](${file})` });
    const { recorded } = await run(repo, [() => openaiToolCall("fetch_attachment", { url: file }), () => openaiText("done")]);
    expect(JSON.parse(toolOutput(recorded[1]!))).toEqual({ ok: true, path: "/workspace/attachments/1-private.log", bytes: log.length, mediaType: "text/plain" });
    expect(requests).toEqual([
      { url: file, authorization: null },
      { url: file, authorization: `Bearer ${readOnlyToken(repo)}` }
    ]);
  });

  it("reach the fallback too: Anthropic gets the image as a base64 image block with its media type", async () => {
    const repo = uniqueRepo();
    const requests: ImageHostRequest[] = [];
    server.use(...imageHostHandlers(requests, { "https://user-images.githubusercontent.com/7/shot.png": () => new HttpResponse(PNG_BYTES) }));
    github.setIssue(repo, NUMBER, { body: "![shot](https://user-images.githubusercontent.com/7/shot.png)" });
    const { recorded } = await run(repo, [() => providerError(500, "primary is down")], () => anthropicText("done"));
    const request = recorded.find((entry) => entry.url === ANTHROPIC_MESSAGES_URL)!;
    const blocks = (JSON.parse(request.body) as { messages: Array<{ content: unknown }> }).messages.flatMap((message) => (Array.isArray(message.content) ? message.content : []));
    expect(blocks).toContainEqual({ type: "image", source: { type: "base64", media_type: "image/png", data: base64(PNG_BYTES) } });
  });

  it("are fetched again by a turn recovered after an eviction, and the run completes (the scripted model reads only the text)", async () => {
    const repo = uniqueRepo();
    const requests: ImageHostRequest[] = [];
    server.use(...imageHostHandlers(requests, { "https://user-images.githubusercontent.com/7/again.png": () => new HttpResponse(PNG_BYTES) }));
    github.setIssue(repo, NUMBER, { body: "![again](https://user-images.githubusercontent.com/7/again.png)" });
    const session = sessionName(repo, NUMBER);
    // Its own token, so the test can wait for the run's last act (the token revoked once its messages are out).
    const token = `${TOKEN.slice(0, -8)}recovers`;
    const { result: started } = await captureConsole(async () => {
      const agent = await agentFor(session, env.ReportingThinkAgent);
      const { submissionId } = await agent.startRun({
        session,
        repo,
        issueNumber: NUMBER,
        instruction: "TEST: run sleep 2 && echo slept\nTEST: reply recovered",
        installationToken: token,
        commentId: 5152,
        requestedBy: { login: "octocat" }
      });
      await commandRunning(agent, submissionId, "sleep 2 && echo slept");
      await evict(agent, "evicted mid-tool");
      return { submissionId };
    });
    const { result, lines } = await captureConsole(async () => waitForStatus(await agentFor(session, env.ReportingThinkAgent), started.submissionId));
    expect(result.status).toBe("completed");
    expect(lines.some((line) => line.includes('"event":"prepare:images-refetched"') && line.includes('"shown":1'))).toBe(true);
    expect(requests).toEqual([
      { url: "https://user-images.githubusercontent.com/7/again.png", authorization: null },
      { url: "https://user-images.githubusercontent.com/7/again.png", authorization: null }
    ]);
    // The run is over only once its token is revoked: waited for, so this file's GitHub still answers that.
    await until(() => github.revoked.includes(token), "the run's token to be revoked");
  });
});
