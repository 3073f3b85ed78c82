/**
 * No token out of a run, end to end: a real `wrangler dev` behind Access
 * (LOCAL_DEV=1, the scripted model) posting to the recording GitHub
 * stand-in. The run's token is a canary shaped like nothing GitHub issues
 * (only knowing it as the run's token can redact it), and beside it a
 * GitHub-token-shaped string the run never held. Tools print both without
 * the instruction spelling either (a shell assembles them from pieces): on
 * stdout, on stderr, into a page Think's `read` reads back and the model
 * then tries to publish; and the model writes them itself, into
 * report_result and into a model error (`\xNN` escapes).
 *
 * Neither may be found in: what GitHub got (comments and reactions), the
 * transcript and the session socket's frames (except the model's own
 * report_result input: the model wrote it, and only that tool INPUT may
 * hold it), the command center, wrangler's output, or a published page.
 * The redaction is also checked positively, so a run whose tools printed
 * nothing cannot pass. The Workers-runtime version is
 * test/token-confinement.test.ts.
 */
import { randomBytes } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect } from "vitest";
import type { TranscriptMessage } from "../scripts/lib/dev-api";
import { freshIssueNumber } from "./dev-api";
import { waitForSubmission } from "./dev-api";
import { accessCookie } from "./support/access-issuer";
import { commentBody, dispatchRun, issueRecords, outputCoveringRun, standinRecords, test, waitForClosingComment, type ReportingServer } from "./support/reporting-server";
import { followSession } from "./support/session-socket";

const REDACTED = "[redacted]";
const RANDOM = randomBytes(6).toString("hex");
/** The run's token: shaped like nothing GitHub issues. */
const RUN_TOKEN = `canary-run-token-${RANDOM}`;
/** The second run's: each dispatch brings its own token, and a run's is revoked when it ends. */
const SECOND_RUN_TOKEN = `canary-run-token-${RANDOM}-second`;
const FOUND_TAIL = alphanumerics(36);
/** Shaped like a classic GitHub PAT; the run never held it. */
const FOUND = `ghp_${FOUND_TAIL}`;
const CANARIES = [RUN_TOKEN, SECOND_RUN_TOKEN, FOUND] as const;
/** A shell command that prints both canaries, spelling neither. */
const PRINT_BOTH = `printf 'canary-run-%s-%s and gh%s_%s\\n' token ${RANDOM} p ${FOUND_TAIL}`;
/** For the scripted model's texts: the first character as `\xNN`, so the instruction never spells the token. */
const spelled = (token: string) => `\\x${token.charCodeAt(0).toString(16)}${token.slice(1)}`;

const REPORT_RESULT = "tool-report_result";
/** UI stream chunks that carry a tool call's input (AI SDK UIMessageChunk types). */
const TOOL_INPUT_CHUNKS = new Set(["tool-input-start", "tool-input-delta", "tool-input-available", "tool-input-error"]);

function alphanumerics(count: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  return [...randomBytes(count)].map((byte) => alphabet[byte % alphabet.length]).join("");
}

function expectNowhere(places: Record<string, string>): void {
  for (const [place, text] of Object.entries(places)) {
    for (const canary of CANARIES) expect.soft(text.includes(canary), `${canary} found in ${place}`).toBe(false);
  }
}

async function getText(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const response = await fetch(url, { headers });
  return { status: response.status, text: await response.text() };
}

/**
 * The transcript with the model's own report_result inputs taken out, and
 * those inputs beside it. Everything else stays in: the report_result
 * part's output, state and ids, every other tool part whole (input and
 * output), text, reasoning and step parts, and every message's metadata.
 */
function splitModelsOwnResult(messages: readonly TranscriptMessage[]): { checked: TranscriptMessage[]; reportInputs: unknown[]; reportCallIds: Set<string> } {
  const reportInputs: unknown[] = [];
  const reportCallIds = new Set<string>();
  const checked = messages.map((message) => ({
    ...message,
    parts: message.parts.map((part) => {
      if (part.type !== REPORT_RESULT) return part;
      const { input, ...rest } = part;
      reportInputs.push(input);
      if (typeof rest.toolCallId === "string") reportCallIds.add(rest.toolCallId);
      return { ...rest, input: "(the model's own report_result input: not checked)" };
    })
  }));
  return { checked, reportInputs, reportCallIds };
}

/**
 * The socket's frames with those that carry report_result's input left
 * out: a `cf_agent_use_chat_response` whose chunk is a `tool-input-*` chunk
 * of a report_result call (by toolCallId). Frames carrying whole messages
 * (`cf_agent_chat_messages`, `cf_agent_message_updated`) are kept, with only
 * the report_result parts' input taken out, as in the transcript. Every
 * other frame is kept whole, tool-output chunks of report_result included.
 */
function framesWithoutModelsOwnResult(frames: readonly string[], reportCallIds: ReadonlySet<string>): { checked: string[]; excluded: string[] } {
  const checked: string[] = [];
  const excluded: string[] = [];
  for (const text of frames) {
    let frame: { type?: unknown; body?: unknown; messages?: unknown; message?: unknown };
    try {
      frame = JSON.parse(text) as typeof frame;
    } catch {
      checked.push(text);
      continue;
    }
    if (frame.type === "cf_agent_use_chat_response" && typeof frame.body === "string") {
      let chunk: { type?: unknown; toolCallId?: unknown; toolName?: unknown } | undefined;
      try {
        chunk = JSON.parse(frame.body) as typeof chunk;
      } catch {
        chunk = undefined;
      }
      const ofReportResult = typeof chunk?.toolCallId === "string" && reportCallIds.has(chunk.toolCallId);
      if (typeof chunk?.type === "string" && TOOL_INPUT_CHUNKS.has(chunk.type) && ofReportResult) {
        excluded.push(text);
        continue;
      }
    }
    if (Array.isArray(frame.messages)) {
      checked.push(JSON.stringify({ ...frame, messages: splitModelsOwnResult(frame.messages as TranscriptMessage[]).checked }));
      continue;
    }
    if (typeof frame.message === "object" && frame.message !== null && Array.isArray((frame.message as TranscriptMessage).parts)) {
      checked.push(JSON.stringify({ ...frame, message: splitModelsOwnResult([frame.message as TranscriptMessage]).checked[0] }));
      continue;
    }
    checked.push(text);
  }
  return { checked, excluded };
}

/** The UI stream chunk types the socket's `cf_agent_use_chat_response` frames carried. */
function streamChunkTypes(frames: readonly string[]): string[] {
  return frames.flatMap((text) => {
    try {
      const frame = JSON.parse(text) as { type?: unknown; body?: unknown };
      if (frame.type !== "cf_agent_use_chat_response" || typeof frame.body !== "string" || frame.body === "") return [];
      const chunk = JSON.parse(frame.body) as { type?: unknown };
      return typeof chunk.type === "string" ? [chunk.type] : [];
    } catch {
      return [];
    }
  });
}

/** Every file of the local R2 state (the REPROS bucket's blobs and metadata among them), as text: no page may hold a canary. */
async function reproBucketFiles(persistTo: string): Promise<string> {
  const root = join(persistTo, "v3", "r2");
  const texts: string[] = [];
  const walk = async (directory: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(directory, { withFileTypes: true });
    } catch {
      return; // no bucket has been written yet
    }
    for (const entry of entries) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) await walk(path);
      else texts.push((await readFile(path)).toString("latin1"));
    }
  };
  await walk(root);
  return texts.join("\n");
}

async function commandCenter(server: ReportingServer): Promise<string> {
  const response = await getText(`${server.url}/api/command-center?limit=200`, await server.jwtHeader());
  expect(response.status, response.text).toBe(200);
  return response.text;
}

describe("a canary token printed by tools", () => {
  test("is found nowhere it must not be: GitHub, transcript, socket, command center, wrangler's output, pages", { timeout: 60_000 }, async ({ reportingServer: server }) => {
    const repo = "acme/confinement";
    const issueNumber = freshIssueNumber();
    const commentId = freshIssueNumber();
    const run = await dispatchRun(server, {
      repo,
      issueNumber,
      commentId,
      installationToken: RUN_TOKEN,
      repoVisibility: "public",
      instruction: [
        // Time for the socket below to attach while the turn's stream is open.
        "TEST: sleep 1500",
        `TEST: run ${PRINT_BOTH}`,
        `TEST: run ${PRINT_BOTH} >&2`,
        `TEST: run mkdir -p /workspace/site && ${PRINT_BOTH} > /workspace/site/index.html`,
        "TEST: read /workspace/site/index.html",
        "TEST: publish /workspace/site",
        `TEST: result reproduced The tools printed ${spelled(RUN_TOKEN)} and ${spelled(FOUND)}.`,
        "TEST: reply done"
      ].join("\n")
    });
    const socket = await followSession(server.url, run.session, { Origin: server.url, ...accessCookie(await server.access.sign()) });

    const settled = await waitForSubmission(server.url, run, { credentials: await server.jwtHeader() });
    expect(settled.submission.status, server.output()).toBe("completed");
    const closing = await waitForClosingComment(server.github, run.submissionId);
    const output = await outputCoveringRun(server, run.submissionId, "turn:done");
    socket.close();

    // The transcript, as the dashboard reads it.
    const transcriptResponse = await getText(`${server.url}/agents/think-agent/${run.session}/get-messages`, await server.jwtHeader());
    expect(transcriptResponse.status, transcriptResponse.text).toBe(200);
    const transcript = JSON.parse(transcriptResponse.text) as TranscriptMessage[];
    const { checked, reportInputs, reportCallIds } = splitModelsOwnResult(transcript);

    // The tools did print the canaries, and each result shows the redaction.
    const toolParts = transcript.filter((message) => message.role === "assistant").flatMap((message) => message.parts).filter((part) => part.type.startsWith("tool-"));
    expect(toolParts.map((part) => part.type)).toEqual([
      "tool-bash",
      "tool-bash",
      "tool-bash",
      "tool-read",
      "tool-publish_reproduction",
      REPORT_RESULT
    ]);
    const outputs = toolParts.map((part) => JSON.stringify(part.output ?? part.errorText ?? null));
    expect(outputs[0], "bash printing to stdout").toContain(`${REDACTED} and ${REDACTED}`);
    expect(outputs[1], "bash printing to stderr").toContain(`${REDACTED} and ${REDACTED}`);
    expect(outputs[3], "read of the page").toContain(`${REDACTED} and ${REDACTED}`);
    // Nothing was published: the page held the tokens.
    expect(toolParts[4]!.output).toMatchObject({ published: false, error: expect.stringMatching(/^refused: index\.html holds a GitHub token/) });
    // The model did write the canaries into report_result: the one place they may be.
    expect(reportInputs).toHaveLength(1);
    expect(JSON.stringify(reportInputs[0])).toContain(RUN_TOKEN);
    expect(JSON.stringify(reportInputs[0])).toContain(FOUND);

    // The socket followed the run live: tool outputs with the redaction.
    const frames = framesWithoutModelsOwnResult(socket.frames, reportCallIds);
    expect(streamChunkTypes(socket.frames), "the socket saw the run's stream").toContain("tool-output-available");
    expect(frames.checked.join("\n")).toContain(`${REDACTED} and ${REDACTED}`);
    console.info(`e2e: ${socket.frames.length} socket frames, ${frames.excluded.length} left unchecked (report_result's tool-input chunks)`);

    // GitHub got the 🚀 and one closing comment, the result redacted.
    const github = issueRecords(await standinRecords(server.github), repo, issueNumber);
    expect(github.some((record) => record.path.endsWith(`/comments/${commentId}/reactions`) && (record.body as { content?: string }).content === "rocket")).toBe(true);
    expect(github.map(commentBody).filter((body) => body?.includes(":closing -->"))).toHaveLength(1);
    // And at most one progress comment (its edits, redacted too, are in the records checked below).
    expect(github.map(commentBody).filter((body) => body?.includes(":progress -->")).length).toBeLessThanOrEqual(1);
    expect(closing).toContain(`The tools printed ${REDACTED} and ${REDACTED}.`);

    // No page: the old session address is gone, and the bucket holds nothing with the canaries.
    const page = await getText(`${server.url}/repro/${run.session}/`);
    expect(page.status).toBe(404);
    expect(JSON.stringify(transcript)).not.toContain("/repro/");

    expectNowhere({
      "the stand-in's records (comments and reactions)": JSON.stringify(await standinRecords(server.github)),
      "the transcript (but report_result's input)": JSON.stringify(checked),
      "the socket's frames (but report_result's tool-input chunks and message parts' input)": frames.checked.join("\n"),
      "GET /api/command-center": await commandCenter(server),
      "wrangler's output": output,
      "GET /repro/<session>/": page.text,
      "the local R2 state (REPROS)": await reproBucketFiles(server.persistTo)
    });
  });
});

describe("a canary token the model writes into an error", () => {
  test("reaches neither the closing comment, the command center, the submission status nor wrangler's output", { timeout: 60_000 }, async ({ reportingServer: server }) => {
    const repo = "acme/confinement";
    const issueNumber = freshIssueNumber();
    const run = await dispatchRun(server, {
      repo,
      issueNumber,
      commentId: freshIssueNumber(),
      installationToken: SECOND_RUN_TOKEN,
      repoVisibility: "public",
      instruction: `TEST: fail the provider echoed ${spelled(SECOND_RUN_TOKEN)} and ${spelled(FOUND)}`
    });

    const settled = await waitForSubmission(server.url, run, { credentials: await server.jwtHeader() });
    expect(settled.submission.status, server.output()).toBe("error");
    const closing = await waitForClosingComment(server.github, run.submissionId);
    const output = await outputCoveringRun(server, run.submissionId, "turn:error");
    const center = await commandCenter(server);
    const status = JSON.stringify(settled.submission);

    const echoed = `the provider echoed ${REDACTED} and ${REDACTED}`;
    expect(closing, "the closing comment").toContain(echoed);
    expect(status, "the submission status").toContain(echoed);
    const thread = (JSON.parse(center) as { threads: Array<{ session: string }> }).threads.find((candidate) => candidate.session === run.session);
    expect(JSON.stringify(thread), "the command center's thread").toContain(echoed);
    expect(output, "wrangler's output").toContain(echoed);

    expectNowhere({
      "the closing comment": closing,
      "the stand-in's records": JSON.stringify(issueRecords(await standinRecords(server.github), repo, issueNumber)),
      "GET /api/command-center": center,
      "the submission status": status,
      "wrangler's output": output
    });
  });
});
