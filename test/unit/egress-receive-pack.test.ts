/**
 * The push reader and git's refusal report, against bytes built here from
 * gitprotocol-pack(5) and gitprotocol-common(5) rather than with the
 * module's own pktLine: a pkt-line is four lowercase hex digits giving the
 * length of the whole line (header included), `0000` is a flush, and no
 * pkt-line is longer than 65520 bytes. Bodies arrive split at every
 * awkward place a network can split them.
 */
import { concat, chunked, readAll } from "./bytes";
import { describe, expect, it } from "vitest";
import {
  MAX_COMMAND_SECTION_BYTES,
  isZeroId,
  packStart,
  pushRefusal,
  readCommands,
  refusalReport,
  type RefUpdate
} from "../../src/egress/receive-pack";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const OLD = "1".repeat(40);
const NEW = "2".repeat(40);
const ZERO = "0".repeat(40);
const OLD256 = "a".repeat(64);
const NEW256 = "b".repeat(64);
const ZERO256 = "0".repeat(64);
const BRANCH = "agent/issue-7";
const CAPS = "report-status side-band-64k quiet object-format=sha1 agent=git/2.43.0";
/** LARGE_PACKET_MAX in git's pkt-line.h: the longest pkt-line, header included. */
const LARGE_PACKET_MAX = 65520;

/** One pkt-line, written from the protocol: 4 hex digits of the total length, then the data. */
function pkt(data: string | Uint8Array): Uint8Array {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  return concat(encoder.encode((bytes.length + 4).toString(16).padStart(4, "0")), bytes);
}

const FLUSH = encoder.encode("0000");

/** A pack-like tail with every byte value in it, including NUL and bytes that are not UTF-8. */
function packTail(): Uint8Array {
  const bytes = new Uint8Array(2048);
  for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 131 + 7) % 256;
  return concat(encoder.encode("PACK\0\0\0\x02\0\0\0\x01"), bytes);
}

/** A push of one branch as git sends it: the command with capabilities, a flush, the pack. */
function push(commands: RefUpdate[], capabilities = CAPS, tail = packTail()): Uint8Array {
  const lines = commands.map((command, index) =>
    pkt(`${command.old} ${command.new} ${command.ref}${index === 0 ? `\0${capabilities}` : ""}\n`)
  );
  return concat(...lines, FLUSH, tail);
}

const update = (ref: string, old = OLD, next = NEW): RefUpdate => ({ old, new: next, ref });

async function failure(bytes: Uint8Array | ReadableStream<Uint8Array>, chunk = 7): Promise<string> {
  const read = await readCommands(bytes instanceof Uint8Array ? chunked(bytes, chunk) : bytes);
  if (read.ok) throw new Error(`expected a refusal, read ${read.commands.length} commands`);
  return read.reason;
}

/** Split `bytes` into pkt-lines the way git's reader does; throws where git would die. */
function parsePkts(bytes: Uint8Array): (Uint8Array | null)[] {
  const out: (Uint8Array | null)[] = [];
  let at = 0;
  while (at < bytes.length) {
    const header = decoder.decode(bytes.subarray(at, at + 4));
    if (!/^[0-9a-f]{4}$/.test(header)) throw new Error(`bad pkt-line header ${JSON.stringify(header)} at ${at}`);
    const length = Number.parseInt(header, 16);
    if (length === 0) {
      out.push(null);
      at += 4;
      continue;
    }
    if (length < 4 || length > LARGE_PACKET_MAX) throw new Error(`bad pkt-line length ${length} at ${at}`);
    if (at + length > bytes.length) throw new Error(`pkt-line at ${at} runs past the end`);
    out.push(bytes.subarray(at + 4, at + length));
    at += length;
  }
  return out;
}

/** The report-status lines of a side-band reply: channel 2 as text, channel 1 re-read as pkt-lines. */
function demux(bytes: Uint8Array): { progress: string; report: (string | null)[] } {
  const packets = parsePkts(bytes);
  expect(packets.at(-1)).toBeNull();
  let progress = "";
  const band1: Uint8Array[] = [];
  for (const packet of packets.slice(0, -1)) {
    if (packet === null) throw new Error("flush inside the side-band stream");
    if (packet[0] === 1) band1.push(packet.subarray(1));
    else if (packet[0] === 2) progress += decoder.decode(packet.subarray(1));
    else throw new Error(`bad band #${packet[0]}`);
  }
  return { progress, report: parsePkts(concat(...band1)).map((line) => (line === null ? null : decoder.decode(line))) };
}

describe("readCommands", () => {
  it.each([1, 2, 3, 5, 47, 4096])("reads the commands and capabilities from %i-byte chunks", async (size) => {
    const input = push([update(`refs/heads/${BRANCH}`)]);
    const read = await readCommands(chunked(input, size));
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.commands).toEqual([{ old: OLD, new: NEW, ref: `refs/heads/${BRANCH}` }]);
    expect(read.capabilities).toEqual(["report-status", "side-band-64k", "quiet", "object-format=sha1", "agent=git/2.43.0"]);
    expect(await readAll(read.body)).toEqual(input);
  });

  it("replays every byte of the body unchanged when the pack arrives after the commands were read", async () => {
    const head = push([update(`refs/heads/${BRANCH}`)], CAPS, new Uint8Array(0));
    const tail = packTail();
    let step = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        // The command section split in two, then the pack in three pieces only read on demand.
        const pieces = [head.slice(0, 10), head.slice(10), tail.slice(0, 1), tail.slice(1, 1000), tail.slice(1000)];
        if (step < pieces.length) controller.enqueue(pieces[step++]!);
        else controller.close();
      }
    });
    const read = await readCommands(source);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(step).toBeLessThan(5); // the pack was not buffered before answering
    expect(await readAll(read.body)).toEqual(concat(head, tail));
  });

  it("reads several commands, with capabilities only from the first", async () => {
    const input = push([update(`refs/heads/${BRANCH}`), update("refs/tags/v1", ZERO, NEW), update("refs/heads/old", OLD, ZERO)]);
    const read = await readCommands(chunked(input, 1));
    expect(read.ok && read.commands).toEqual([
      { old: OLD, new: NEW, ref: `refs/heads/${BRANCH}` },
      { old: ZERO, new: NEW, ref: "refs/tags/v1" },
      { old: OLD, new: ZERO, ref: "refs/heads/old" }
    ]);
  });

  it("skips the shallow lines a push from a shallow clone sends before its commands", async () => {
    const input = concat(pkt(`shallow ${"3".repeat(40)}`), pkt(`shallow ${"4".repeat(40)}\n`), push([update(`refs/heads/${BRANCH}`)]));
    const read = await readCommands(chunked(input, 1));
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.commands).toEqual([update(`refs/heads/${BRANCH}`)]);
    expect(read.capabilities).toContain("report-status");
    expect(await readAll(read.body)).toEqual(input);
  });

  it("reads a command line without a trailing newline and without capabilities", async () => {
    const input = concat(pkt(`${OLD} ${NEW} refs/heads/${BRANCH}`), FLUSH);
    const read = await readCommands(chunked(input, 3));
    expect(read.ok && read.commands).toEqual([update(`refs/heads/${BRANCH}`)]);
    expect(read.ok && read.capabilities).toEqual([]);
  });

  it("reads sha256 object ids", async () => {
    const input = push([update(`refs/heads/${BRANCH}`, OLD256, NEW256), update("refs/heads/gone", OLD256, ZERO256)], "report-status object-format=sha256");
    const read = await readCommands(chunked(input, 5));
    expect(read.ok && read.commands).toEqual([update(`refs/heads/${BRANCH}`, OLD256, NEW256), update("refs/heads/gone", OLD256, ZERO256)]);
    expect(read.ok && read.capabilities).toEqual(["report-status", "object-format=sha256"]);
  });

  it("refuses a signed push (push certificate)", async () => {
    const input = concat(pkt(`push-cert\0${CAPS}\n`), pkt("certificate version 0.1\n"), pkt("push-cert-end\n"), push([update(`refs/heads/${BRANCH}`)]));
    expect(await failure(input, 1)).toMatch(/push certificate/);
  });

  it.each([
    ["a header that is not hex", encoder.encode("zzzz")],
    ["a header with a space in it", encoder.encode("00 9abc")],
    ["a delim packet", encoder.encode("0001")],
    ["a response-end packet", encoder.encode("0002")],
    ["a length of 3", encoder.encode("0003")],
    ["a negative-looking header", encoder.encode("-001")]
  ])("refuses %s", async (_name, bytes) => {
    expect(await failure(concat(bytes, push([update(`refs/heads/${BRANCH}`)])), 1)).toBe("the push is not a git receive-pack request");
  });

  it("refuses a malformed header after a good command", async () => {
    const input = concat(pkt(`${OLD} ${NEW} refs/heads/${BRANCH}\0${CAPS}\n`), encoder.encode("00g0"), FLUSH);
    expect(await failure(input, 2)).toBe("the push is not a git receive-pack request");
  });

  it.each([
    ["an empty pkt-line", pkt("")],
    ["a line that is not a command", pkt("hello world\n")],
    ["an old id that is not hex", pkt(`${"x".repeat(40)} ${NEW} refs/heads/${BRANCH}\n`)],
    ["an uppercase id", pkt(`${"A".repeat(40)} ${NEW} refs/heads/${BRANCH}\n`)],
    ["an id of 39 digits", pkt(`${"1".repeat(39)} ${NEW} refs/heads/${BRANCH}\n`)],
    ["an id of 41 digits", pkt(`${"1".repeat(41)} ${NEW} refs/heads/${BRANCH}\n`)],
    ["a missing ref", pkt(`${OLD} ${NEW}\n`)],
    ["a fourth field", pkt(`${OLD} ${NEW} refs/heads/${BRANCH} refs/heads/main\n`)],
    ["a ref after two spaces", pkt(`${OLD} ${NEW}  refs/heads/main\n`)],
    ["a shallow line after a command", concat(pkt(`${OLD} ${NEW} refs/heads/${BRANCH}\n`), pkt(`shallow ${"3".repeat(40)}\n`))]
  ])("refuses %s in the command list", async (_name, lines) => {
    expect(await failure(concat(lines, FLUSH), 1)).toBe("the push's command list is not one git sends");
  });

  it.each([
    ["nothing at all", new Uint8Array(0)],
    ["half a header", encoder.encode("00")],
    ["a header whose line never comes", encoder.encode("0063")],
    ["a command without the flush", pkt(`${OLD} ${NEW} refs/heads/${BRANCH}\0${CAPS}\n`)],
    ["a command cut short", pkt(`${OLD} ${NEW} refs/heads/${BRANCH}\n`).slice(0, 50)]
  ])("refuses a body that ends before its flush: %s", async (_name, bytes) => {
    expect(await failure(bytes, 1)).toBe("the push ended before its command list did");
  });

  it("reads git's probe, a lone flush, as an empty command list and replays it", async () => {
    const read = await readCommands(chunked(FLUSH, 1));
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    expect(read.commands).toEqual([]);
    expect(read.capabilities).toEqual([]);
    expect(await readAll(read.body)).toEqual(FLUSH);
  });

  it("reads shallow lines followed by a flush as an empty command list", async () => {
    const input = concat(pkt(`shallow ${"3".repeat(40)}\n`), FLUSH, packTail());
    const read = await readCommands(chunked(input, 3));
    expect(read.ok && read.commands).toEqual([]);
    expect(read.ok && (await readAll(read.body))).toEqual(input);
  });

  it("stops parsing an endless command list past MAX_COMMAND_SECTION_BYTES, reads on a little (its sender is still sending), then cancels the body", async () => {
    const line = pkt(`${OLD} ${NEW} refs/heads/${"x".repeat(200)}\n`);
    const chunk = concat(...Array.from({ length: 64 }, () => line));
    let sent = 0;
    let cancelled = false;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        sent += chunk.length;
        controller.enqueue(chunk);
      },
      cancel() {
        cancelled = true;
      }
    });
    expect(await failure(endless)).toBe("the push's command list is too long");
    expect(cancelled).toBe(true);
    expect(sent).toBeGreaterThan(5 * MAX_COMMAND_SECTION_BYTES);
    expect(sent).toBeLessThan(5 * MAX_COMMAND_SECTION_BYTES + 3 * chunk.length);
  });

  // The bound holds on what was parsed, not on how the body was chunked.
  it("refuses a command list over MAX_COMMAND_SECTION_BYTES even when it arrives in one chunk", async () => {
    const line = pkt(`${ZERO} ${NEW} refs/tags/${"t".repeat(200)}\n`);
    const count = Math.ceil((2 * MAX_COMMAND_SECTION_BYTES) / line.length);
    const input = concat(...Array.from({ length: count }, () => line), FLUSH);
    expect(await failure(chunked(input, 16 * 1024))).toBe("the push's command list is too long");
    expect(await failure(chunked(input, input.length))).toBe("the push's command list is too long");
  });

  it("reads a long command list that stays within MAX_COMMAND_SECTION_BYTES", async () => {
    const commands = Array.from({ length: 1000 }, (_, index) => update(`refs/tags/v${index}`, ZERO, NEW));
    const input = push(commands);
    const read = await readCommands(chunked(input, 1400));
    expect(read.ok && read.commands.length).toBe(1000);
  });

  it("reads the rest of a body it refuses to its end, cancelling nothing: its sender is still sending", async () => {
    let cancelled = false;
    let pulled = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        if (pulled === 1) controller.enqueue(encoder.encode("zzzz"));
        else if (pulled <= 5) controller.enqueue(encoder.encode("the rest of the body"));
        else controller.close();
      },
      cancel() {
        cancelled = true;
      }
    });
    expect(await failure(source)).toBe("the push is not a git receive-pack request");
    expect(pulled).toBe(6);
    expect(cancelled).toBe(false);
  });

  it("cancels the body it was given when the replay is cancelled", async () => {
    let cancelled: unknown = null;
    const head = push([update(`refs/heads/${BRANCH}`)], CAPS, new Uint8Array(0));
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(head);
      },
      cancel(reason) {
        cancelled = reason;
      }
    });
    const read = await readCommands(source);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    await read.body.cancel("client went away");
    expect(cancelled).toBe("client went away");
  });
});

describe("packStart", () => {
  const pack = encoder.encode("PACK\0\0\0\x02\0\0\0\x00");

  async function startOf(input: Uint8Array, chunk = 3) {
    const read = await readCommands(chunked(input, chunk));
    if (!read.ok) throw new Error(read.reason);
    return { start: await packStart(read.source, read.end, read.capabilities), read };
  }

  it("is right after the command list's flush when the client sent no push options", async () => {
    const head = push([update(`refs/heads/${BRANCH}`)], CAPS, new Uint8Array(0));
    const { start } = await startOf(concat(head, pack));
    expect(start).toBe(head.length);
  });

  it("is after the push options and their flush when the client asked for push-options", async () => {
    const head = push([update(`refs/heads/${BRANCH}`)], `${CAPS} push-options`, new Uint8Array(0));
    const options = concat(pkt("ci.skip\n"), pkt("merge_request.create\n"), FLUSH);
    const { start, read } = await startOf(concat(head, options, pack), 1);
    expect(start).toBe(head.length + options.length);
    // What was read to find it is still replayed whole.
    expect(await readAll(read.body)).toEqual(concat(head, options, pack));
  });

  it.each([
    ["ended", new Uint8Array(0)],
    ["ended", pkt("ci.skip\n")],
    ["malformed", encoder.encode("zzzz")]
  ])("is %s when the push options are cut short or not pkt-lines", async (answer, options) => {
    const head = push([update(`refs/heads/${BRANCH}`)], `${CAPS} push-options`, new Uint8Array(0));
    expect((await startOf(concat(head, options))).start).toBe(answer);
  });
});

describe("isZeroId", () => {
  it("is true only for an id of zeros", () => {
    expect(isZeroId(ZERO)).toBe(true);
    expect(isZeroId(ZERO256)).toBe(true);
    expect(isZeroId(OLD)).toBe(false);
    expect(isZeroId(`${"0".repeat(39)}1`)).toBe(false);
  });
});

describe("pushRefusal", () => {
  const allowed = `refs/heads/${BRANCH}`;

  it("allows an update of the push branch", () => {
    expect(pushRefusal([update(allowed)], BRANCH)).toBeNull();
  });

  it("allows creating the push branch (zero old id)", () => {
    expect(pushRefusal([update(allowed, ZERO, NEW)], BRANCH)).toBeNull();
    expect(pushRefusal([update(allowed, ZERO256, NEW256)], BRANCH)).toBeNull();
  });

  it("refuses any push when the run has no push branch", () => {
    expect(pushRefusal([update(allowed)], null)).toBe("push refused: this run may not push at all");
  });

  it.each([
    ["the default branch", "refs/heads/main"],
    ["a tag", "refs/tags/v1.0.0"],
    ["a branch whose name only starts with the push branch", `refs/heads/${BRANCH}-2`],
    ["a branch under the push branch", `refs/heads/${BRANCH}/x`],
    ["the branch name without refs/heads/", BRANCH],
    ["HEAD", "HEAD"],
    ["a ref outside refs/heads", `refs/pull/${BRANCH}`]
  ])("refuses %s, naming both refs", (_name, ref) => {
    expect(pushRefusal([update(ref)], BRANCH)).toBe(`push refused: this run may update only ${allowed}, not ${ref}`);
  });

  it("passes an empty command list (git's probe) only when the run has a push branch", () => {
    expect(pushRefusal([], BRANCH)).toBeNull();
    expect(pushRefusal([], null)).toBe("push refused: this run may not push at all");
  });

  it("refuses deleting the push branch (zero new id)", () => {
    expect(pushRefusal([update(allowed, OLD, ZERO)], BRANCH)).toBe(`push refused: this run may not delete ${allowed}`);
    expect(pushRefusal([update(allowed, OLD256, ZERO256)], BRANCH)).toBe(`push refused: this run may not delete ${allowed}`);
  });

  it("refuses the whole push when one of its commands is not allowed, in either order", () => {
    expect(pushRefusal([update(allowed), update("refs/heads/main")], BRANCH)).toMatch(/not refs\/heads\/main$/);
    expect(pushRefusal([update("refs/heads/main"), update(allowed)], BRANCH)).toMatch(/not refs\/heads\/main$/);
    expect(pushRefusal([update(allowed), update(allowed, OLD, ZERO)], BRANCH)).toMatch(/may not delete/);
  });
});

describe("refusalReport", () => {
  const commands = [update("refs/heads/main")];

  it("is null when the client asked for no report", () => {
    expect(refusalReport(commands, [], "no")).toBeNull();
    expect(refusalReport(commands, ["side-band-64k", "quiet", "atomic"], "no")).toBeNull();
  });

  it("without side-band is unpack ok, one ng per command, and a flush, byte for byte", () => {
    const report = refusalReport(commands, ["report-status"], "no");
    expect(report && decoder.decode(report)).toBe("000eunpack ok\n001ang refs/heads/main no\n0000");
  });

  it("answers report-status-v2 with the same report", () => {
    const report = refusalReport(commands, ["report-status-v2", "atomic"], "no");
    expect(report && decoder.decode(report)).toBe("000eunpack ok\n001ang refs/heads/main no\n0000");
  });

  it("names every command of the push", () => {
    const reason = "push refused: this run may update only refs/heads/agent/issue-7, not refs/heads/main";
    const report = refusalReport([update("refs/heads/main"), update("refs/tags/v1", ZERO, NEW)], ["report-status"], reason);
    expect(report).toEqual(concat(pkt("unpack ok\n"), pkt(`ng refs/heads/main ${reason}\n`), pkt(`ng refs/tags/v1 ${reason}\n`), FLUSH));
  });

  it.each(["side-band-64k", "side-band"])("with %s sends the reason on band 2, then the report on band 1, then a flush", (band) => {
    const report = refusalReport(commands, ["report-status", band], "no");
    const inner = concat(pkt("unpack ok\n"), pkt("ng refs/heads/main no\n"), FLUSH);
    expect(report).toEqual(concat(pkt(concat(Uint8Array.of(2), encoder.encode("no\n"))), pkt(concat(Uint8Array.of(1), inner)), FLUSH));
    expect(demux(report!)).toEqual({ progress: "no\n", report: ["unpack ok\n", "ng refs/heads/main no\n", null] });
  });

  it("flattens newlines in the reason so each ng stays one line", () => {
    const report = refusalReport(commands, ["report-status", "side-band-64k"], "first\nsecond\r\nthird\r");
    const { progress, report: lines } = demux(report!);
    expect(progress).toBe("first second third \n");
    expect(lines).toEqual(["unpack ok\n", "ng refs/heads/main first second third \n", null]);
  });

  // A long report (here ~1000 refused tags) is split into band-1 packets of at
  // most LARGE_PACKET_MAX, as receive-pack does: one pkt-line past 65515 bytes
  // would need five hex digits of length, and git would die on "bad band".
  it("keeps every side-band pkt-line within git's 65520-byte limit when the push names many refs", () => {
    const tags = Array.from({ length: 1000 }, (_, index) => update(`refs/tags/release-${String(index).padStart(4, "0")}`, ZERO, NEW));
    const reason = pushRefusal(tags, BRANCH)!;
    const report = refusalReport(tags, ["report-status", "side-band-64k"], reason)!;
    const { report: lines } = demux(report);
    expect(lines).toHaveLength(1002);
    expect(lines[1]).toBe(`ng refs/tags/release-0000 ${reason}\n`);
  });
});
