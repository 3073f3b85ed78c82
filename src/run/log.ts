/**
 * Structured logs: one line per event, `agent-think {json}`, with an `event`
 * field (start, submitted, turn:start, tool, turn:done, turn:error, ...).
 *
 * The logger knows the secrets of the run it logs for and replaces any of
 * them found anywhere in a line, so a token that slips into an error message
 * still never reaches a log. Pure: the sink is a parameter.
 */
export const LOG_PREFIX = "agent-think ";

export type LogFields = Record<string, unknown>;
export type Logger = (event: string, fields?: LogFields) => void;

export const REDACTED = "[redacted]";

export function formatLogLine(event: string, fields: LogFields, secrets: readonly string[] = []): string {
  let json = JSON.stringify({ event, ...fields });
  for (const secret of secrets) {
    if (secret.length >= 8) json = json.replaceAll(secret, REDACTED);
  }
  return LOG_PREFIX + json;
}

export function createLogger(
  base: LogFields,
  secrets: () => readonly string[] = () => [],
  sink: (line: string) => void = (line) => console.log(line)
): Logger {
  return (event, fields = {}) => sink(formatLogLine(event, { ...base, ...fields }, secrets()));
}
