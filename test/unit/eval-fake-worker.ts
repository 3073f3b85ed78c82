/**
 * A Worker for the eval's local-target tests: it takes every dispatch, never
 * ends a run (the case times out and is told to stop) and records what it
 * was sent.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A Worker that takes every dispatch and never ends a run, recording what it was sent. */
export async function fakeWorker(): Promise<{ url: string; dispatched: Array<Record<string, unknown>>; close: () => Promise<void> }> {
  const dispatched: Array<Record<string, unknown>> = [];
  const worker: Server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString("utf8")));
    request.on("end", () => {
      response.setHeader("content-type", "application/json");
      if (request.method === "POST" && request.url === "/dev/dispatch") {
        const body = JSON.parse(text) as Record<string, unknown>;
        dispatched.push(body);
        const session = `acme-widgets-${String(body.issueNumber)}`;
        response.writeHead(202).end(JSON.stringify({ session, threadUrl: `http://worker/thread/${session}`, submissionId: `sub_${dispatched.length}` }));
        return;
      }
      response.writeHead(200).end(JSON.stringify({ session: "s", messages: [], submission: { status: "running", createdAt: Date.now() } }));
    });
  });
  await new Promise<void>((resolve) => worker.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(worker.address() as AddressInfo).port}`;
  return { url, dispatched, close: () => new Promise<void>((resolve) => worker.close(() => resolve())) };
}
