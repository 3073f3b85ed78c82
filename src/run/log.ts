/**
 * Structured logs: one line per event, `agent-think {json}`, with an `event`
 * field (start, submitted, turn:start, tool, turn:done, turn:error, ...).
 *
 * The logger knows the secrets of the run it logs for and replaces any of
 * them, and anything shaped like a GitHub token, found anywhere in a line,
 * so a token that slips into an error message still never reaches a log.
 * (What libraries print to the console goes through console-guard.ts.)
 * Pure: the sink is a parameter.
 */
import { redactSecrets } from "./redact";

export { REDACTED } from "./redact";
export const LOG_PREFIX = "agent-think ";

export type LogFields = Record<string, unknown>;
export type Logger = (event: string, fields?: LogFields) => void;

export function formatLogLine(event: string, fields: LogFields, secrets: readonly string[] = []): string {
  return LOG_PREFIX + redactSecrets(JSON.stringify({ event, ...fields }), secrets);
}

export function createLogger(
  base: LogFields,
  secrets: () => readonly string[] = () => [],
  sink: (line: string) => void = (line) => console.log(line)
): Logger {
  return (event, fields = {}) => sink(formatLogLine(event, { ...base, ...fields }, secrets()));
}
