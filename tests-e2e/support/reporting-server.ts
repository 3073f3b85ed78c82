/**
 * The agent Worker as an operator runs it, for tests that read back what a
 * run said to GitHub: `wrangler dev` behind Cloudflare Access (fixture.ts's
 * startAccessDevServer: the team's JWKS over HTTPS, LOCAL_DEV=1, the
 * scripted model) with GITHUB_API_URL pointed at the recording GitHub
 * stand-in (scripts/lib/github-standin.ts). `reportingServer` is one
 * for each e2e job (worker-scoped, as fixture.ts's `sharedServer`): its
 * files (progress-comment, repro-pages, token-confinement) each dispatch
 * runs on fresh issues and read back only those, so one start (about 5 CPU
 * seconds) serves them all. The stand-in is closed after wrangler's group
 * is stopped, so nothing posts to a closed port.
 *
 * Also what such a test reads back: the stand-in's records over its own
 * HTTP (`GET /_standin/records`) and what it refused (`GET
 * /_standin/refusals`: requests GitHub would refuse), a run's closing
 * comment once it lands, and the Worker's structured log lines in
 * wrangler's output.
 */
import { expect } from "vitest";
import { startGitHubStandin, type GitHubStandin, type StandinRecord } from "../../scripts/lib/github-standin";
import { startAccessDevServer, test as base, type AccessDevServer } from "../fixture";
import type { DispatchResult } from "../../scripts/lib/dev-api";
import { dispatch, type DispatchBody } from "../dev-api";
import { accessHeader } from "./access-issuer";

export type ReportingServer = AccessDevServer & {
  /** The GitHub stand-in the Worker posts reactions and comments to. */
  github: Pick<GitHubStandin, "url">;
  /** Fresh Access credentials, as Access sends them to the origin (the JWT header). */
  jwtHeader(): Promise<Record<string, string>>;
};

const CLOSING_TIMEOUT_MS = 15_000;
const POLL_MS = 150;

export const test = base.extend("reportingServer", { scope: "worker" }, async ({}, { onCleanup }): Promise<ReportingServer> => {
  const github = await startGitHubStandin();
  let server: Awaited<ReturnType<typeof startAccessDevServer>>;
  try {
    server = await startAccessDevServer({ localDev: true, githubApiUrl: github.url });
  } catch (error) {
    await github.close();
    throw error;
  }
  onCleanup(async () => {
    await server.stop();
    await github.close();
  });
  return {
    ...server,
    github: { url: github.url },
    jwtHeader: async () => accessHeader(await server.access.sign())
  };
});

/** `POST /dev/dispatch` with a valid Access JWT. */
export async function dispatchRun(server: ReportingServer, body: DispatchBody): Promise<DispatchResult> {
  return dispatch(server.url, body, await server.jwtHeader());
}

/** Everything the stand-in was asked so far, read the way an operator would (`GET /_standin/records`). */
export async function standinRecords(github: Pick<GitHubStandin, "url">): Promise<StandinRecord[]> {
  const response = await fetch(`${github.url}/_standin/records`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { records: StandinRecord[] }).records;
}

/** What the stand-in refused (`GET /_standin/refusals`): a request GitHub's REST description, or GitHub, would refuse too. Empty when all was well. */
export async function standinRefusals(github: Pick<GitHubStandin, "url">): Promise<StandinRecord[]> {
  const response = await fetch(`${github.url}/_standin/refusals`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { refusals: StandinRecord[] }).refusals;
}

/** The records about one issue: its comments, and the reactions on comments of its repository. */
export function issueRecords(records: readonly StandinRecord[], repo: string, issueNumber: number): StandinRecord[] {
  const comments = `/repos/${repo}/issues/${issueNumber}/comments`;
  const reactions = `/repos/${repo}/issues/comments/`;
  return records.filter((record) => record.path === comments || (record.path.startsWith(reactions) && record.path.endsWith("/reactions")));
}

/** The body of a posted comment, or undefined for any other record. */
export function commentBody(record: StandinRecord): string | undefined {
  if (record.method !== "POST" || !record.path.endsWith("/comments")) return undefined;
  const body = (record.body as { body?: unknown } | undefined)?.body;
  return typeof body === "string" ? body : undefined;
}

/** Waits until the stand-in holds the submission's closing comment (found by its hidden marker) and returns its body. */
export async function waitForClosingComment(github: Pick<GitHubStandin, "url">, submissionId: string): Promise<string> {
  const marker = `<!-- agent-think:${submissionId}:closing -->`;
  const deadline = Date.now() + CLOSING_TIMEOUT_MS;
  let records: StandinRecord[] = [];
  while (Date.now() < deadline) {
    records = await standinRecords(github);
    const closing = records.map(commentBody).find((body) => body?.includes(marker));
    if (closing !== undefined) return closing;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  throw new Error(`no closing comment for ${submissionId} after ${CLOSING_TIMEOUT_MS} ms; the stand-in got: ${JSON.stringify(records.map((record) => `${record.method} ${record.path}`))}`);
}

/** The Worker's structured log lines (`agent-think {json}`) in wrangler's output, parsed. */
export function logEvents(output: string): Array<{ event: string; [field: string]: unknown }> {
  const events: Array<{ event: string; [field: string]: unknown }> = [];
  for (const line of output.split("\n")) {
    const start = line.indexOf("agent-think {");
    if (start < 0) continue;
    try {
      const value: unknown = JSON.parse(line.slice(start + "agent-think ".length).trim());
      if (typeof value === "object" && value !== null && typeof (value as { event?: unknown }).event === "string") {
        events.push(value as { event: string });
      }
    } catch {
      // A line cut by the tail's start, or not ours.
    }
  }
  return events;
}

/**
 * Waits until wrangler's kept tail covers the whole run: it holds the run's
 * `submitted` line (logged while dispatch answered, before the turn did
 * anything) and its terminal line (`turn:done`, `turn:error`; logged just
 * after the closing comment is queued). Without this, "nothing leaked to
 * the output" could pass on a tail that had already scrolled past a leak.
 * Returns the tail read then.
 */
export async function outputCoveringRun(server: Pick<AccessDevServer, "output">, submissionId: string, terminalEvent: string): Promise<string> {
  const deadline = Date.now() + CLOSING_TIMEOUT_MS;
  for (;;) {
    const output = server.output();
    const names = logEvents(output)
      .filter((event) => event.submissionId === submissionId)
      .map((event) => event.event);
    if (names.includes("submitted") && names.includes(terminalEvent)) return output;
    if (Date.now() > deadline) {
      throw new Error(`wrangler's tail does not cover run ${submissionId} (its events: ${names.join(", ") || "none"}):\n${output.slice(-3_000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
