/**
 * Bounded command output, decided where the command runs.
 *
 * `wrapCommand` turns the model's command into a small POSIX shell script
 * that sends the command's stdout and stderr to log files under
 * `/temp/agent-think/logs/` and then prints only a report: for each stream
 * its size, line count and content, or its head and tail when it is larger
 * than the bound. So a command that prints 100 MB moves a few kilobytes out
 * of the container or the shell, and the full log stays behind, named in the
 * report. `/temp` is outside the synced `/workspace`, so a log never reaches
 * the Durable Object's files from the container. Logs of output that fit are
 * removed at once.
 *
 * The worker shell's output is already bounded by just-bash (1 MiB) and
 * arrives in the Durable Object anyway, so it is cut there by `boundText`
 * instead, with no wrapper round trips.
 *
 * `parseReport` reads the report back. Marker lines carry a per-run nonce,
 * so output that imitates them cannot confuse the parser. Pure.
 */
export const LOG_DIR = "/temp/agent-think/logs";

export type StreamName = "stdout" | "stderr";

export type BoundedStream = {
  text: string;
  totalBytes: number;
  totalLines: number;
  /** Present when the text is a head and tail: the file holding the whole stream. */
  log?: string;
};

export type CommandReport = { exitCode: number; stdout: BoundedStream; stderr: BoundedStream };

export type WrapOptions = {
  /** A fresh id per run: names the log files. Letters, digits and dashes. */
  id: string;
  /** A fresh random token per run, for the report's marker lines. */
  nonce: string;
  /** The most bytes of one stream's text in the report. */
  maxBytes: number;
  /** Seconds before `timeout` stops the command (exit 124), when the shell has `timeout`. */
  timeoutSeconds?: number;
};

const SAFE = /^[A-Za-z0-9-]+$/;

export function logPath(id: string, stream: StreamName): string {
  return `${LOG_DIR}/${id}.${stream}`;
}

export function wrapCommand(command: string, options: WrapOptions): string {
  if (!SAFE.test(options.id) || !SAFE.test(options.nonce)) throw new TypeError("id and nonce must be letters, digits or dashes");
  const half = Math.max(1, Math.floor(options.maxBytes / 2));
  const marker = `@@${options.nonce}`;
  const run =
    options.timeoutSeconds === undefined
      ? `(\n${command}\n)`
      : `timeout -k 5 ${Math.max(1, Math.ceil(options.timeoutSeconds))} bash -c ${shellQuote(command)}`;
  return [
    `__d=${LOG_DIR}; mkdir -p "$__d"`,
    `${run} >"$__d/${options.id}.stdout" 2>"$__d/${options.id}.stderr"`,
    `__code=$?`,
    `for __s in stdout stderr; do`,
    `  __f="$__d/${options.id}.$__s"`,
    `  __n=$(wc -c < "$__f" | tr -d ' ')`,
    `  __l=$(wc -l < "$__f" | tr -d ' ')`,
    `  printf '\\n%s %s %s %s\\n' "${marker}" "$__s" "$__n" "$__l"`,
    `  if [ "$__n" -le ${options.maxBytes} ]; then cat "$__f"; rm -f "$__f"; else head -c ${half} "$__f"; printf '\\n%s\\n' "${marker}-gap"; tail -c ${half} "$__f"; fi`,
    `done`,
    `printf '\\n%s end %s\\n' "${marker}" "$__code"`,
    `exit $__code`
  ].join("\n");
}

/** POSIX single-quoting. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

export type ParsedReport = { ok: true; report: CommandReport } | { ok: false; reason: string };

export function parseReport(output: string, options: Pick<WrapOptions, "id" | "nonce" | "maxBytes">): ParsedReport {
  const marker = `@@${options.nonce}`;
  const header = new RegExp(`\\n${marker} (stdout|stderr) (\\d+) (\\d+)\\n`, "g");
  const heads = [...output.matchAll(header)];
  const end = new RegExp(`\\n${marker} end (-?\\d+)\\n?$`).exec(output);
  if (heads.length !== 2 || !end) return { ok: false, reason: "the command's report is incomplete" };
  const streams = {} as Record<StreamName, BoundedStream>;
  heads.forEach((match, index) => {
    const name = match[1] as StreamName;
    const start = match.index! + match[0].length;
    const stop = index + 1 < heads.length ? heads[index + 1]!.index! : end.index;
    const body = output.slice(start, stop);
    const totalBytes = Number(match[2]);
    const totalLines = Number(match[3]);
    const gap = `\n${marker}-gap\n`;
    if (totalBytes > options.maxBytes && body.includes(gap)) {
      const [head, tail] = [body.slice(0, body.indexOf(gap)), body.slice(body.indexOf(gap) + gap.length)];
      const omitted = Math.max(0, totalBytes - byteLength(head) - byteLength(tail));
      const log = logPath(options.id, name);
      streams[name] = {
        text: `${head}\n… [agent-think: ${omitted} bytes of ${totalBytes} (${totalLines} lines) left out here; the whole ${name} is in ${log}] …\n${tail}`,
        totalBytes,
        totalLines,
        log
      };
    } else {
      streams[name] = { text: body, totalBytes, totalLines };
    }
  });
  return { ok: true, report: { exitCode: Number(end[1]), stdout: streams.stdout, stderr: streams.stderr } };
}

const byteLength = (text: string) => new TextEncoder().encode(text).length;

/**
 * Bound output that is already in memory (the worker shell's, which
 * just-bash caps at 1 MiB): the same head and tail, marker and log path as
 * the wrapper's report. The caller saves `text` to `log` when it returns one.
 */
export function boundText(text: string, options: { maxBytes: number; log: string; stream: StreamName }): BoundedStream {
  const bytes = new TextEncoder().encode(text);
  const totalLines = (text.match(/\n/g) ?? []).length;
  if (bytes.length <= options.maxBytes) return { text, totalBytes: bytes.length, totalLines };
  const half = Math.max(1, Math.floor(options.maxBytes / 2));
  const decoder = new TextDecoder();
  const head = decoder.decode(bytes.subarray(0, half));
  const tail = decoder.decode(bytes.subarray(bytes.length - half));
  const omitted = bytes.length - 2 * half;
  return {
    text: `${head}\n… [agent-think: ${omitted} bytes of ${bytes.length} (${totalLines} lines) left out here; the whole ${options.stream} is in ${options.log}] …\n${tail}`,
    totalBytes: bytes.length,
    totalLines,
    log: options.log
  };
}
