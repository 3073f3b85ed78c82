/**
 * Bounded command output, decided where the command runs. `wrapCommand` turns the model's
 * command into a POSIX script that sends stdout and stderr to logs under `/temp/agent-think/logs/`
 * (outside the synced /workspace) and prints only a report: each stream's size, lines and
 * content, or its head and tail past the bound. Kept logs are capped (MAX_LOG_FILE_BYTES), the
 * directory pruned (MAX_LOG_DIR_BYTES); with `timeoutSeconds` the command runs under coreutils'
 * `timeout`, and only timeout's own diagnostics set `timedOut`/`killed`. `parseReport` reads the
 * report back; `boundText` cuts the worker shell's output in the Durable Object instead.
 * The rules, and why: docs/containers.md, "Bounded output". Pure.
 */
export const LOG_DIR = "/temp/agent-think/logs";
/** Seconds between the timeout's TERM and the KILL that follows if the command is still running. */
export const KILL_GRACE_SECONDS = 5;
/** A kept log larger than this keeps only its first and last half. */
export const MAX_LOG_FILE_BYTES = 64 * 1024 * 1024;
/** The logs directory is pruned to this many bytes of logs after every command. */
export const MAX_LOG_DIR_BYTES = 256 * 1024 * 1024;

export type StreamName = "stdout" | "stderr";

export type BoundedStream = {
  text: string;
  totalBytes: number;
  totalLines: number;
  /** Present when the text is a head and tail: the file holding the stream (its middle cut when it was huge). */
  log?: string;
};

export type CommandReport = {
  exitCode: number;
  stdout: BoundedStream;
  stderr: BoundedStream;
  /** The wrapper's timeout fired (it sent TERM), whatever the exit code. */
  timedOut: boolean;
  /** The command outlived the TERM by the grace and was killed with KILL. */
  killed: boolean;
};

export type WrapOptions = {
  /** A fresh id per run: names the log files. Letters, digits and dashes. */
  id: string;
  /** A fresh random token per run, for the report's marker lines. */
  nonce: string;
  /** The most bytes of one stream's text in the report. */
  maxBytes: number;
  /** Seconds before `timeout` stops the command (exit 124; 137 when it had to KILL). Needs GNU coreutils. */
  timeoutSeconds?: number;
  /** Seconds from TERM to KILL; `KILL_GRACE_SECONDS` by default. */
  killGraceSeconds?: number;
  /** An absolute directory for the logs; `LOG_DIR` by default. */
  logDir?: string;
  /** `MAX_LOG_FILE_BYTES` by default. */
  maxLogFileBytes?: number;
  /** `MAX_LOG_DIR_BYTES` by default. */
  maxLogDirBytes?: number;
};

const SAFE = /^[A-Za-z0-9-]+$/;

function logDirOf(options: Pick<WrapOptions, "logDir">): string {
  const dir = (options.logDir ?? LOG_DIR).replace(/\/+$/, "");
  if (!dir.startsWith("/")) throw new TypeError("logDir must be an absolute path");
  return dir;
}

/** A fresh id for one command's logs: letters, digits and dashes, as `wrapCommand` requires. */
export const commandId = (): string => `${Date.now().toString(36)}-${crypto.randomUUID().slice(0, 8)}`;

export function logPath(id: string, stream: StreamName, dir: string = LOG_DIR): string {
  return `${dir}/${id}.${stream}`;
}

const seconds = (value: number) => String(Math.max(1, Math.ceil(value)));
const bytes = (value: number) => Math.max(1, Math.floor(value));

export function wrapCommand(command: string, options: WrapOptions): string {
  if (!SAFE.test(options.id) || !SAFE.test(options.nonce)) throw new TypeError("id and nonce must be letters, digits or dashes");
  const dir = logDirOf(options);
  const id = options.id;
  const max = bytes(options.maxBytes);
  const half = Math.max(1, Math.floor(max / 2));
  // A cut log keeps at least what the report shows, so the report's head and
  // tail are the stream's own.
  const keep = Math.max(half, Math.floor(bytes(options.maxLogFileBytes ?? MAX_LOG_FILE_BYTES) / 2));
  const maxDir = bytes(options.maxLogDirBytes ?? MAX_LOG_DIR_BYTES);
  const marker = `@@${options.nonce}`;
  const run =
    options.timeoutSeconds === undefined
      ? [`(\n${command}\n) >"$__o" 2>"$__e"`, `__code=$?`, `__to=`]
      : [
          // The command's stderr is fd 3; timeout's own stderr (its
          // "sending signal" lines) is the .timeout file. The subshell that
          // execs timeout keeps that redirection out of this shell, whose
          // note that its child was killed goes to its own stderr.
          `( exec timeout --verbose -k ${seconds(options.killGraceSeconds ?? KILL_GRACE_SECONDS)} ${seconds(options.timeoutSeconds)} ` +
            `bash -c ${shellQuote(`exec 2>&3 3>&-; ${command}`)} >"$__o" 3>"$__e" 2>"$__t" )`,
          `__code=$?`,
          `__to=`,
          `if [ -s "$__t" ]; then`,
          `  if grep -q 'sending signal KILL' "$__t"; then [ "$__code" -eq 137 ] && __to=kill`,
          `  elif grep -q 'sending signal' "$__t"; then [ "$__code" -eq 124 ] && __to=term; fi`,
          `  grep -v 'sending signal' "$__t" >>"$__e"`,
          `fi`,
          `rm -f "$__t"`
        ];
  return [
    `__d=${shellQuote(dir)}; mkdir -p "$__d"`,
    `__o="$__d/${id}.stdout"; __e="$__d/${id}.stderr"; __t="$__d/${id}.timeout"`,
    ...run,
    `__kept=0`,
    `for __s in stdout stderr; do`,
    `  __f="$__d/${id}.$__s"`,
    `  __n=$(wc -c < "$__f" | tr -d ' ')`,
    `  __l=$(wc -l < "$__f" | tr -d ' ')`,
    `  __c=0`,
    `  if [ "$__n" -gt ${max} ] && [ "$__n" -gt ${2 * keep} ]; then`,
    `    __c=$((__n - ${2 * keep}))`,
    `    { head -c ${keep} "$__f"; printf '\\n… [agent-think: %s bytes cut here to bound the disk] …\\n' "$__c"; tail -c ${keep} "$__f"; } >"$__f.cut" \\`,
    `      && mv -f "$__f.cut" "$__f" || { rm -f "$__f.cut"; __c=0; }`,
    `  fi`,
    `  printf '\\n%s %s %s %s %s\\n' "${marker}" "$__s" "$__n" "$__l" "$__c"`,
    `  if [ "$__n" -le ${max} ]; then cat "$__f"; rm -f "$__f"`,
    `  else head -c ${half} "$__f"; printf '\\n%s\\n' "${marker}-gap"; tail -c ${half} "$__f"; __k=$(wc -c < "$__f"); __kept=$((__kept + __k)); fi`,
    `done`,
    // Prune older logs, newest first, to the bound (see the header).
    `__open=$(ls -l /proc/[0-9]*/fd 2>/dev/null | grep -F " -> $__d/")`,
    `ls -lnt --time-style=+%s "$__d" 2>/dev/null | {`,
    `  __sum=$__kept`,
    `  while read -r __u __u __u __u __z __u __x; do`,
    `    case "$__x" in ${id}.*|*[!A-Za-z0-9.-]*) continue ;; *.stdout|*.stderr) ;; *) continue ;; esac`,
    `    __sum=$((__sum + __z))`,
    `    [ "$__sum" -le ${maxDir} ] && continue`,
    `    case "$__open" in *" -> $__d/$__x"*) continue ;; esac`,
    `    rm -f "$__d/$__x"`,
    `  done`,
    `}`,
    `[ -n "$__to" ] && printf '\\n%s timeout %s\\n' "${marker}" "$__to"`,
    `printf '\\n%s end %s\\n' "${marker}" "$__code"`,
    `exit $__code`
  ].join("\n");
}

/** POSIX single-quoting. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

export type ParsedReport = { ok: true; report: CommandReport } | { ok: false; reason: string };

export function parseReport(output: string, options: Pick<WrapOptions, "id" | "nonce" | "maxBytes" | "logDir">): ParsedReport {
  const marker = `@@${options.nonce}`;
  // The cut count is absent from an older wrapper's report.
  const header = new RegExp(`\\n${marker} (stdout|stderr) (\\d+) (\\d+)(?: (\\d+))?\\n`, "g");
  const heads = [...output.matchAll(header)];
  // The last lines of the output, or nothing: the timeout line, then the end line.
  const end = new RegExp(`(?:\\n${marker} timeout (term|kill)\\n)?\\n${marker} end (-?\\d+)\\n?$`).exec(output);
  if (heads.length !== 2 || heads[0]![1] !== "stdout" || heads[1]![1] !== "stderr" || !end) {
    return { ok: false, reason: "the command's report is incomplete" };
  }
  const dir = logDirOf(options);
  const streams = {} as Record<StreamName, BoundedStream>;
  heads.forEach((match, index) => {
    const name = match[1] as StreamName;
    const start = match.index! + match[0].length;
    const stop = index + 1 < heads.length ? heads[index + 1]!.index! : end.index;
    const body = output.slice(start, stop);
    const totalBytes = Number(match[2]);
    const totalLines = Number(match[3]);
    const cut = Number(match[4] ?? 0);
    const gap = `\n${marker}-gap\n`;
    if (totalBytes > options.maxBytes && body.includes(gap)) {
      const [head, tail] = [body.slice(0, body.indexOf(gap)), body.slice(body.indexOf(gap) + gap.length)];
      const omitted = Math.max(0, totalBytes - byteLength(head) - byteLength(tail));
      const log = logPath(options.id, name, dir);
      const where = cut > 0 ? `${log} (middle ${cut} bytes dropped)` : log;
      streams[name] = {
        text: `${head}\n… [agent-think: ${omitted} bytes of ${totalBytes} (${totalLines} lines) left out here; the whole ${name} is in ${where}] …\n${tail}`,
        totalBytes,
        totalLines,
        log
      };
    } else {
      streams[name] = { text: body, totalBytes, totalLines };
    }
  });
  return {
    ok: true,
    report: {
      exitCode: Number(end[2]),
      stdout: streams.stdout,
      stderr: streams.stderr,
      timedOut: end[1] !== undefined,
      killed: end[1] === "kill"
    }
  };
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
