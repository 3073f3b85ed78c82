/**
 * The body of one `createCommitOnBranch` request, streamed: the GraphQL document, then the
 * input's branch, expected head, message and deletions, then each addition's contents encoded
 * to base64 as its bytes are read, so a large file never sits whole in the Worker's memory.
 * Its length is known up front (each file's size is), so it is sent with a Content-Length.
 * A file that turns out shorter or longer than its recorded size ends the stream with an error:
 * GitHub never gets a commit with a cut file. Pure apart from the readers it is given.
 */
import type { CommitMessageParts } from "./api-commit-plan";

export const CREATE_COMMIT_MUTATION =
  "mutation AgentThinkCommit($input: CreateCommitOnBranchInput!) { createCommitOnBranch(input: $input) { commit { oid } } }";

export type CommitAddition = { path: string; size: number; read: () => Promise<ReadableStream<Uint8Array>> };
export type CommitRequest = {
  /** `owner/name` */
  repo: string;
  branch: string;
  expectedHeadOid: string;
  message: CommitMessageParts;
  deletions: Array<{ path: string }>;
  additions: CommitAddition[];
};

/** The request's JSON body as a stream of UTF-8 bytes, and its exact length. */
export function commitBody(request: CommitRequest): { stream: ReadableStream<Uint8Array>; length: number } {
  const input = {
    branch: { repositoryNameWithOwner: request.repo, branchName: request.branch },
    expectedHeadOid: request.expectedHeadOid,
    message: request.message.body ? request.message : { headline: request.message.headline }
  };
  // The input up to its additions, whose contents stream in between the fixed parts.
  const head = `{"query":${JSON.stringify(CREATE_COMMIT_MUTATION)},"variables":{"input":${JSON.stringify(input).slice(0, -1)},"fileChanges":{"deletions":${JSON.stringify(request.deletions)},"additions":[`;
  const opens = request.additions.map((addition, index) => `${index > 0 ? "," : ""}{"path":${JSON.stringify(addition.path)},"contents":"`);
  const close = `"}`;
  const tail = "]}}}}";
  const encoder = new TextEncoder();
  const length =
    encoder.encode(head).length +
    opens.reduce((sum, open) => sum + encoder.encode(open).length, 0) +
    request.additions.reduce((sum, addition) => sum + base64Length(addition.size) + close.length, 0) +
    tail.length;
  async function* pieces(): AsyncGenerator<Uint8Array> {
    yield encoder.encode(head);
    for (const [index, addition] of request.additions.entries()) {
      yield encoder.encode(opens[index]!);
      yield* base64Of(await addition.read(), addition);
      yield encoder.encode(close);
    }
    yield encoder.encode(tail);
  }
  const iterator = pieces();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await iterator.next();
        if (done) controller.close();
        else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
      }
    },
    async cancel() {
      await iterator.return(undefined);
    }
  });
  return { stream, length };
}

/** Base64's length for `size` bytes, padded. */
export function base64Length(size: number): number {
  return Math.ceil(size / 3) * 4;
}

/** `stream`'s bytes as base64 (ASCII bytes), in pieces; throws when it does not hold exactly `expected.size` bytes. */
export async function* base64Of(stream: ReadableStream<Uint8Array>, expected: { path: string; size: number }): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  let carry = new Uint8Array(0);
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > expected.size) throw new Error(`${expected.path} holds more than its recorded ${expected.size} bytes`);
      const joined = concat(carry, value);
      const whole = joined.length - (joined.length % 3);
      if (whole > 0) yield ascii(encode(joined.subarray(0, whole)));
      carry = joined.slice(whole);
    }
  } finally {
    reader.releaseLock();
  }
  if (total !== expected.size) throw new Error(`${expected.path} holds ${total} bytes, not its recorded ${expected.size}`);
  if (carry.length > 0) yield ascii(encode(carry));
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

/** RFC 4648 base64 with padding, through btoa in slices (btoa takes a string of byte values). */
function encode(bytes: Uint8Array): string {
  const SLICE = 0x6000; // a multiple of 3, so only the last slice can be padded
  let out = "";
  for (let at = 0; at < bytes.length; at += SLICE) {
    out += btoa(String.fromCharCode(...bytes.subarray(at, Math.min(at + SLICE, bytes.length))));
  }
  return out;
}

function ascii(text: string): Uint8Array {
  const out = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) out[i] = text.charCodeAt(i);
  return out;
}
