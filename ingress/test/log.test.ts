/** Structured logs never carry a secret, even one that slips into a message. */
import { describe, expect, it } from "vitest";
import { createLogger, formatLogLine, LOG_PREFIX, REDACTED } from "../src/log";

describe("createLogger", () => {
  it("writes one prefixed JSON line with the event and the base fields", () => {
    const lines: string[] = [];
    createLogger({ worker: "w" }, [], (line) => lines.push(line))("delivery:accepted", { repo: "acme/widgets" });
    expect(lines).toEqual([`${LOG_PREFIX}{"event":"delivery:accepted","worker":"w","repo":"acme/widgets"}`]);
  });

  it("redacts known secrets, PEM lines and tokens added later, wherever they appear", () => {
    const lines: string[] = [];
    const pem = `-----BEGIN RSA PRIVATE KEY-----\n${"A".repeat(64)}\n${"B".repeat(64)}\n-----END RSA PRIVATE KEY-----`;
    const log = createLogger({}, ["webhook-secret-value", pem], (line) => lines.push(line));
    log.addSecret("ghs_minted0000000000");
    log("x", { error: `bad secret webhook-secret-value, token ghs_minted0000000000, key line ${"B".repeat(64)}`, key: pem });
    const line = lines.join("\n");
    expect(line).not.toContain("webhook-secret-value");
    expect(line).not.toContain("ghs_minted0000000000");
    expect(line).not.toContain("A".repeat(64));
    expect(line).not.toContain("B".repeat(64));
    expect(line.split(REDACTED).length - 1).toBeGreaterThanOrEqual(4);
  });

  it("leaves short strings alone (an empty or tiny secret must not mangle every line)", () => {
    const lines: string[] = [];
    createLogger({}, ["", "a"], (line) => lines.push(line))("event", { text: "a b c" });
    expect(lines[0]).toContain('"text":"a b c"');
  });
});

describe("formatLogLine", () => {
  it("keeps the event when a field has the same name", () => {
    expect(formatLogLine("delivery:ignored", { event: "issue_comment", reason: "x" }, [])).toBe(
      `${LOG_PREFIX}{"event":"delivery:ignored","reason":"x"}`
    );
  });
});
