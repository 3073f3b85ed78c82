/**
 * The token broker's answer as the agent Worker takes it
 * (src/github/token-broker.ts): the token, its expiry and the App's bot
 * when the broker names them; a malformed bot is an error naming the field,
 * never ignored; local dev without the webhook app means no GitHub access.
 */
import { describe, expect, it } from "vitest";
import { mintInstallationToken } from "../../src/github/token-broker";

const broker = (answer: (...args: unknown[]) => Promise<unknown>, LOCAL_DEV = "") => ({
  GITHUB_AUTH: { mintInstallationToken: answer } as unknown as Env["GITHUB_AUTH"],
  LOCAL_DEV
});

describe("mintInstallationToken", () => {
  it("passes on the token, its expiry and the App's bot", async () => {
    const bot = { login: "acme-think[bot]", id: 41898282 };
    const env = broker(async () => ({ token: "ghs_minted", expiresAt: "2025-06-01T13:00:00Z", bot }));
    expect(await mintInstallationToken(env, "acme/widgets")).toEqual({ token: "ghs_minted", expiresAt: "2025-06-01T13:00:00Z", bot });
  });

  it("asks a read token to also read a git registry entry's repositories, and never widens a write or report token", async () => {
    const asked: unknown[][] = [];
    const env = broker(async (...args: unknown[]) => {
      asked.push(args);
      return { token: "ghs_minted" };
    });
    await mintInstallationToken(env, "acme/widgets", "read", ["acme/shared"]);
    await mintInstallationToken(env, "acme/widgets", "read");
    await mintInstallationToken(env, "acme/widgets", "report", ["acme/shared"]);
    await mintInstallationToken(env, "acme/widgets", "write", ["acme/shared"]);
    expect(asked).toEqual([
      ["acme/widgets", { access: "read", repositories: ["acme/shared"] }],
      ["acme/widgets", { access: "read" }],
      ["acme/widgets", { access: "report" }],
      ["acme/widgets"]
    ]);
  });

  it("takes an older broker's answer without a bot", async () => {
    expect(await mintInstallationToken(broker(async () => ({ token: "ghs_minted" })), "acme/widgets")).toEqual({ token: "ghs_minted" });
  });

  it("refuses a malformed bot, naming the field", async () => {
    const cases: Array<[unknown, string]> = [
      [{ login: "acme-think", id: 1 }, "bot.login"],
      [{ login: "acme-think[bot]", id: 0 }, "bot.id"],
      [{ login: "acme-think[bot]", id: "41898282" }, "bot.id"],
      [{ login: "acme-think[bot]" }, "bot.id"]
    ];
    for (const [bot, field] of cases) {
      const env = broker(async () => ({ token: "ghs_minted", bot }));
      await expect(mintInstallationToken(env, "acme/widgets")).rejects.toThrow(`invalid input: ${field}:`);
    }
  });

  it("means no GitHub access in local dev when the broker cannot be reached, and fails otherwise", async () => {
    const down = async () => {
      throw new Error("no such service: agent-think-ingress");
    };
    expect(await mintInstallationToken(broker(down, "1"), "acme/widgets")).toEqual({ token: "" });
    await expect(mintInstallationToken(broker(down), "acme/widgets")).rejects.toThrow("no such service");
  });
});
