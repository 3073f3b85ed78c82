import { describe, expect, it } from "vitest";
import { createLogger, formatLogLine, LOG_PREFIX, REDACTED } from "../../src/run/log";

describe("structured logs", () => {
  it("writes one prefixed JSON object with an event field", () => {
    const line = formatLogLine("tool", { session: "a-b-1", tool: "exec" });
    expect(line.startsWith(LOG_PREFIX)).toBe(true);
    expect(JSON.parse(line.slice(LOG_PREFIX.length))).toEqual({ event: "tool", session: "a-b-1", tool: "exec" });
    expect(line).not.toContain("\n");
  });

  it("redacts the run's secrets wherever they appear", () => {
    const lines: string[] = [];
    const token = "ghs_abcdefghijklmnop";
    const log = createLogger({ session: "s" }, () => [token], (line) => lines.push(line));
    log("turn:error", { error: `request failed with Authorization: Bearer ${token}` });
    expect(lines[0]).not.toContain(token);
    expect(lines[0]).toContain(REDACTED);
  });

  it("ignores empty or very short secrets rather than redacting common text", () => {
    expect(formatLogLine("x", { a: "abc" }, ["", "a"])).toContain('"a":"abc"');
  });
});
