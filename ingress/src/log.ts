/**
 * The webhook app's structured logs: one line per event,
 * `agent-think-ingress {json}`, with an `event` field. The logger is told
 * every secret it might meet (the webhook secret, the App's private key and
 * each of its lines, each token it minted) and replaces them anywhere in a
 * line. Pure: the sink is a parameter. docs/ingress.md, "Logs".
 */
export const LOG_PREFIX = "agent-think-ingress ";
export const REDACTED = "[redacted]";
/** Shorter strings are not worth redacting (and would mangle ordinary words). */
const MIN_SECRET_CHARS = 8;

export type LogFields = Record<string, unknown>;
export type Logger = {
  (event: string, fields?: LogFields): void;
  /** Redact `secret` from every later line too (a freshly minted token). */
  addSecret(secret: string): void;
};

export function formatLogLine(event: string, fields: LogFields, secrets: Iterable<string>): string {
  // `event` first, and never overwritten by a field of the same name.
  let json = JSON.stringify(Object.assign({ event }, fields, { event }));
  for (const secret of secrets) json = json.replaceAll(secret, REDACTED);
  return LOG_PREFIX + json;
}

/** A secret and, for a PEM, each of its base64 lines; longest first, so a whole match wins. */
export function secretFragments(secret: string): string[] {
  const normalized = secret.replace(/\\n/g, "\n");
  const parts = [secret, normalized, ...normalized.split(/\r?\n/)].map((part) => part.trim());
  // Also as JSON would escape them, since the line is JSON.
  const escaped = parts.map((part) => JSON.stringify(part).slice(1, -1));
  return [...new Set([...parts, ...escaped])].filter((part) => part.length >= MIN_SECRET_CHARS).sort((a, b) => b.length - a.length);
}

export function createLogger(
  base: LogFields,
  secrets: readonly string[] = [],
  sink: (line: string) => void = (line) => console.log(line)
): Logger {
  const known = new Set<string>();
  let ordered: string[] = [];
  const add = (secret: string) => {
    for (const fragment of secretFragments(secret)) known.add(fragment);
    ordered = [...known].sort((a, b) => b.length - a.length);
  };
  secrets.forEach(add);
  const log = ((event, fields = {}) => sink(formatLogLine(event, { ...base, ...fields }, ordered))) as Logger;
  log.addSecret = add;
  return log;
}
