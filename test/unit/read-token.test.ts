/**
 * The gateway's read-only token (src/run/read-token.ts): minted once and
 * reused while it has time left, renewed before it expires (the one it
 * replaces handed back for revocation), registered for redaction (a revoked
 * one still is), given back when its turn ends, and when the broker cannot
 * give one, no token at all (never the run's), with the broker asked again
 * only after a pause.
 */
import { describe, expect, it } from "vitest";
import { ReadOnlyToken } from "../../src/run/read-token";
import { TOKEN_REFRESH_MARGIN_MS, TOKEN_REFRESH_RETRY_MS, type MintedToken } from "../../src/run/run-token";

const START = Date.parse("2026-11-30T12:00:00Z");
const inHours = (hours: number) => new Date(START + hours * 3_600_000).toISOString();

function setup(answers: Array<MintedToken | Error>) {
  let now = START;
  const asked: string[] = [];
  const secrets: string[] = [];
  const events: string[] = [];
  const retired: string[] = [];
  const token = new ReadOnlyToken({
    mint: async (repo) => {
      asked.push(repo);
      const answer = answers.shift() ?? new Error("no more answers");
      if (answer instanceof Error) throw answer;
      return answer;
    },
    secrets: { add: (secret) => secrets.push(secret) },
    now: () => now,
    log: (event) => events.push(event),
    retired: (old) => retired.push(old)
  });
  return { token, asked, secrets, events, retired, advance: (ms: number) => (now += ms) };
}

describe("the gateway's read-only token", () => {
  it("is minted once, reused while it has time left, and renewed before it expires", async () => {
    const { token, asked, secrets, retired, advance } = setup([
      { token: "ghs_readOne", expiresAt: inHours(1) },
      { token: "ghs_readTwo", expiresAt: inHours(2) }
    ]);
    expect(await token.fresh("acme/widgets")).toBe("ghs_readOne");
    expect(await token.fresh("acme/widgets")).toBe("ghs_readOne");
    expect(asked).toEqual(["acme/widgets"]);
    advance(3_600_000 - TOKEN_REFRESH_MARGIN_MS + 1);
    expect(await token.fresh("acme/widgets")).toBe("ghs_readTwo");
    expect(secrets).toEqual(["ghs_readOne", "ghs_readTwo"]);
    expect(retired).toEqual(["ghs_readOne"]);
    // A revoked token is still one no output may hold.
    expect(token.secrets()).toEqual(["ghs_readOne", "ghs_readTwo"]);
  });

  it("is given back when its turn ends, and the next turn mints its own", async () => {
    const { token, asked } = setup([
      { token: "ghs_readOne", expiresAt: inHours(1) },
      { token: "ghs_readTwo", expiresAt: inHours(1) }
    ]);
    expect(token.take()).toBeUndefined();
    expect(await token.fresh("acme/widgets")).toBe("ghs_readOne");
    expect(token.take()).toBe("ghs_readOne");
    expect(await token.fresh("acme/widgets")).toBe("ghs_readTwo");
    expect(asked).toHaveLength(2);
  });

  it("is none at all when the broker fails, and the broker is asked again only after the pause", async () => {
    const { token, asked, events, advance } = setup([new Error("broker down"), { token: "" }]);
    expect(await token.fresh("acme/widgets")).toBe("");
    expect(await token.fresh("acme/widgets")).toBe("");
    expect(asked).toHaveLength(1);
    advance(TOKEN_REFRESH_RETRY_MS);
    // An empty answer is no token either.
    expect(await token.fresh("acme/widgets")).toBe("");
    expect(asked).toHaveLength(2);
    expect(events).toEqual(["github:read-token-failed", "github:read-token-failed"]);
  });

  it("asks once for callers that come together, and mints anew for another repository", async () => {
    const { token, asked } = setup([
      { token: "ghs_readA", expiresAt: inHours(1) },
      { token: "ghs_readB", expiresAt: inHours(1) }
    ]);
    expect(await Promise.all([token.fresh("acme/a"), token.fresh("acme/a")])).toEqual(["ghs_readA", "ghs_readA"]);
    expect(await token.fresh("acme/b")).toBe("ghs_readB");
    expect(asked).toEqual(["acme/a", "acme/b"]);
  });
});
