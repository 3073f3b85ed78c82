/**
 * Installation tokens: the App JWT GitHub sees (RS256, iss = App id, inside
 * GitHub's ten-minute window, signed by the App's key), the token scoped to
 * one repository, the broker the agent Worker calls over RPC (the token
 * with the App's bot, with the permissions of the access asked: write,
 * read or report) and its refusals, and no secret or token in any log
 * line on any of these paths.
 */
import { READ_ONLY_TOKEN_PERMISSIONS, REPORT_TOKEN_PERMISSIONS, TOKEN_PERMISSIONS } from "../src/github/app-client";
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { mintRepoToken } from "../src/github/app-client";
import { toPem } from "../src/github/private-key";
import { createLogger } from "../src/log";
import { AgentThinkTokenBroker } from "../src/index";
import { AppIdentityError } from "../src/github/app-identity";
import { mintForRepo, TokenBrokerError } from "../src/token-broker";
import { readConfig } from "../src/config";
import { API, BOT_LOGIN, BOT_USER_ID, githubServer, IDENTITY_CALLS, INSTALLATION_ID, status, verifyAppJwt, type GitHubOverrides } from "./support/github";
import { captureConsole, commentPayload, logEvents, refusingAgentEnv, send, sign } from "./support/ingress";
import { generatedPkcs8 } from "./support/keys";
import { createInstallationCache, installationsHealth } from "../../src/health/installations";

const { calls, minted, use: github, reset } = githubServer();

/** The broker as the agent Worker reaches it: over the service binding. */
const broker = () => env.TOKEN_BROKER;

/**
 * The same entrypoint in this isolate, for refusals: workerd prints every
 * RPC method that throws as an "uncaught exception", although the caller
 * catches it. Of a refusal only its message crosses RPC (not its class or
 * code), so the tests below judge the message.
 */
const inProcess = () => new AgentThinkTokenBroker(createExecutionContext(), env);

/** An RPC call as a plain promise (an RpcPromise handed to `rejects` leaves an unhandled rejection). */
async function call<T>(rpc: () => Promise<T>): Promise<T> {
  return await rpc();
}

describe("the App JWT and the token request", () => {
  it("signs an RS256 JWT with iss = the App id, inside GitHub's ten-minute window", async () => {
    github();
    const before = Math.floor(Date.now() / 1000);
    await call(() => broker().mintInstallationToken("acme/widgets"));
    const after = Math.floor(Date.now() / 1000);
    expect(calls.map((entry) => `${entry.method} ${entry.path}`)).toEqual([
      "GET /repos/acme/widgets/installation",
      `POST /app/installations/${INSTALLATION_ID}/access_tokens`,
      ...IDENTITY_CALLS
    ]);
    // Everything but GET /users (which an App JWT cannot call) is asked as the App.
    const asApp = calls.filter((entry) => !entry.path.startsWith("/users/"));
    expect(asApp).toHaveLength(3);
    for (const entry of asApp) {
      const jwt = await verifyAppJwt(entry.authorization);
      expect(jwt.header).toEqual({ alg: "RS256", typ: "JWT" });
      expect(String(jwt.payload.iss)).toBe(env.GITHUB_APP_ID);
      // GitHub refuses an iat in the future and an exp more than ten minutes after it.
      expect(jwt.payload.iat).toBeLessThanOrEqual(after);
      expect(jwt.payload.iat).toBeGreaterThanOrEqual(before - 90);
      expect(jwt.payload.exp - jwt.payload.iat).toBeLessThanOrEqual(600);
      expect(jwt.payload.exp).toBeGreaterThan(after);
    }
    // One repository, and only the permissions the bot uses: nothing the App gains later flows into the container.
    expect(calls[1]!.body).toEqual({
      repositories: ["widgets"],
      permissions: { issues: "write", contents: "write", pull_requests: "write", metadata: "read" }
    });
  });

  it("works the same with a PKCS#8 key", async () => {
    github();
    const pkcs8 = toPem("PRIVATE KEY", await generatedPkcs8());
    const token = await mintRepoToken({ appId: "99", privateKey: pkcs8, apiUrl: API }, { owner: "acme", name: "widgets" }, createLogger({}, [], () => {}));
    expect(token.token).toBe(minted[0]);
    // Signed by this other key, so it does not verify with the App's public key.
    await expect(verifyAppJwt(calls[0]!.authorization)).rejects.toThrow(/does not verify/);
  });
});

describe("AgentThinkTokenBroker.mintInstallationToken", () => {
  it("returns the token, its expiry and the App's bot for an allowlisted repository (any case)", async () => {
    github();
    const result = await call(() => broker().mintInstallationToken("Acme/Widgets"));
    expect(result.token).toBe(minted[0]);
    expect(Date.parse(result.expiresAt)).toBeGreaterThan(Date.now());
    expect(result.bot).toEqual({ login: BOT_LOGIN, id: BOT_USER_ID });
    expect(calls[1]!.body).toEqual({ repositories: ["Widgets"], permissions: TOKEN_PERMISSIONS });
    // The bot user is read with the token just minted.
    expect(calls[3]!.authorization).toBe(`token ${minted[0]}`);
    // The identity is kept: the next token asks GitHub for the token only.
    calls.length = 0;
    expect((await call(() => broker().mintInstallationToken("acme/widgets"))).bot).toEqual({ login: BOT_LOGIN, id: BOT_USER_ID });
    expect(calls.map((entry) => entry.path)).toEqual(["/repos/acme/widgets/installation", `/app/installations/${INSTALLATION_ID}/access_tokens`]);
  });

  it("asks GitHub for exactly the permissions of each access: write, read, report", async () => {
    github();
    const asked: Array<[string, unknown, string]> = [];
    for (const options of [undefined, { access: "write" as const }, { access: "read" as const }, { access: "report" as const }]) {
      calls.length = 0;
      const before = minted.length;
      const result = await call(() => broker().mintInstallationToken("acme/widgets", options));
      const mint = calls.filter((entry) => entry.path.endsWith("/access_tokens"));
      expect(mint).toHaveLength(1);
      expect(minted).toHaveLength(before + 1);
      // The token handed out is the one GitHub minted for that request, with the App's bot.
      expect(result).toMatchObject({ token: minted.at(-1), bot: { login: BOT_LOGIN, id: BOT_USER_ID } });
      asked.push([options?.access ?? "(none)", mint[0]!.body, result.token]);
    }
    expect(asked.map(([access, body]) => [access, body])).toEqual([
      ["(none)", { repositories: ["widgets"], permissions: { issues: "write", contents: "write", pull_requests: "write", metadata: "read" } }],
      ["write", { repositories: ["widgets"], permissions: TOKEN_PERMISSIONS }],
      ["read", { repositories: ["widgets"], permissions: { issues: "read", contents: "read", pull_requests: "read", metadata: "read" } }],
      ["report", { repositories: ["widgets"], permissions: { issues: "write", metadata: "read" } }]
    ]);
    expect(READ_ONLY_TOKEN_PERMISSIONS).toEqual({ issues: "read", contents: "read", pull_requests: "read", metadata: "read" });
    expect(REPORT_TOKEN_PERMISSIONS).toEqual({ issues: "write", metadata: "read" });
    // Four mints, four tokens.
    expect(new Set(asked.map(([, , token]) => token)).size).toBe(4);
  });

  it("mints a read token that also reads other repositories of the owner (a git registry entry), for those alone", async () => {
    github();
    await call(() => broker().mintInstallationToken("acme/widgets", { access: "read", repositories: ["acme/shared", "Acme/helpers", "acme/shared"] }));
    const mint = calls.filter((entry) => entry.path.endsWith("/access_tokens"));
    expect(mint.map((entry) => entry.body)).toEqual([{ repositories: ["widgets", "shared", "helpers"], permissions: READ_ONLY_TOKEN_PERMISSIONS }]);
  });

  it("refuses other repositories with a write or report token, of another owner, malformed or too many, asking GitHub nothing", async () => {
    github();
    const refused = /^agent-think-ingress token broker: options\.repositories must be at most 10 other repositories of acme, as "owner\/name", and only with access "read"$/;
    const cases: unknown[] = [
      { access: "write", repositories: ["acme/shared"] },
      { access: "report", repositories: ["acme/shared"] },
      { repositories: ["acme/shared"] },
      { access: "read", repositories: ["evil/shared"] },
      { access: "read", repositories: ["acme"] },
      { access: "read", repositories: "acme/shared" },
      { access: "read", repositories: Array.from({ length: 11 }, (_, i) => `acme/r${i}`) }
    ];
    for (const options of cases) {
      await expect(inProcess().mintInstallationToken("acme/widgets", options as { access: "read" }), JSON.stringify(options)).rejects.toThrow(refused);
    }
    expect(calls).toEqual([]);
  });

  it("refuses an access it does not know, asking GitHub nothing", async () => {
    github();
    for (const access of ["admin", "ci", "READ", ""]) {
      await expect(inProcess().mintInstallationToken("acme/widgets", { access: access as "read" })).rejects.toThrow(
        'agent-think-ingress token broker: options.access must be "write", "read" or "report"'
      );
    }
    await expect(inProcess().mintInstallationToken("acme/widgets", "read" as unknown as { access: "read" })).rejects.toThrow(/options\.access must be/);
    expect(calls).toEqual([]);
  });

  it("names the permissions a report token asked for when the installation refuses them (422)", async () => {
    github({ accessToken: status(422, "The permissions requested are not granted to this installation.") });
    await expect(inProcess().mintInstallationToken("acme/widgets", { access: "report" })).rejects.toThrow(
      /installation does not include acme\/widgets, or lacks a permission this token asks for \(issues: write, metadata: read\)$/
    );
  });

  it("refuses with code identity, and hands out no token, when GitHub will not say who the App is", async () => {
    github({ app: status(500, "GitHub's own words") });
    const { result: error, lines } = await captureConsole(() => inProcess().mintInstallationToken("acme/widgets").catch((caught: Error) => caught));
    // The message is what reaches the agent Worker over RPC.
    expect((error as Error).message).toMatch(
      /^agent-think-ingress token broker: the GitHub App could not learn its own identity from GitHub: GitHub answered 500 to GET \/app: check GITHUB_API_URL/
    );
    expect(String(error)).not.toContain("GitHub's own words");
    expect(String(error)).not.toContain(minted[0]!);
    // The class and code do not survive RPC; the log line keeps the code.
    expect(logEvents(lines)).toContainEqual(expect.objectContaining({ event: "broker:refused", code: "identity", repo: "acme/widgets" }));
    expect(lines.join("\n")).not.toContain(minted[0]!);
  });

  it("gives an identity failure the code identity (TokenBrokerError, in process)", async () => {
    const log = createLogger({}, [], () => {});
    const error = await mintForRepo("acme/widgets", {
      config: () => readConfig(env),
      log,
      mint: async () => ({ token: "ghs_fake000000000000", expiresAt: new Date().toISOString() }),
      identity: async () => {
        throw new AppIdentityError("GitHub answered 502 to GET /app: check GITHUB_API_URL and GitHub's status, then retry");
      }
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TokenBrokerError);
    expect((error as TokenBrokerError).code).toBe("identity");
    expect((error as TokenBrokerError).message).toBe(
      "agent-think-ingress token broker: the GitHub App could not learn its own identity from GitHub: GitHub answered 502 to GET /app: check GITHUB_API_URL and GitHub's status, then retry"
    );
  });

  it("refuses a repository off the allowlist without asking GitHub", async () => {
    github();
    await expect(inProcess().mintInstallationToken("evil/widgets")).rejects.toThrow(
      "agent-think-ingress token broker: evil/widgets is not in ALLOWED_REPOS"
    );
    expect(calls).toEqual([]);
  });

  it("refuses a malformed repository without echoing it", async () => {
    github();
    const secretish = "ghs_aTokenPassedByMistake000000000000";
    const error = await inProcess().mintInstallationToken(secretish).catch((caught: Error) => caught);
    expect((error as Error).message).toBe('agent-think-ingress token broker: repo must be "owner/name"');
    expect(String(error)).not.toContain(secretish);
    expect(calls).toEqual([]);
  });

  it("says why a repository is refused once", async () => {
    github();
    await expect(inProcess().mintInstallationToken(`${"a".repeat(40)}/widgets`)).rejects.toThrow(
      /^agent-think-ingress token broker: repo owner must be at most 39 characters$/
    );
    await expect(inProcess().mintInstallationToken(42 as unknown as string)).rejects.toThrow(
      /^agent-think-ingress token broker: repo must be a string "owner\/name"$/
    );
    expect(calls).toEqual([]);
  });

  it("says what to fix when GitHub refuses", async () => {
    const cases: [GitHubOverrides, RegExp][] = [
      [{ installation: status(404) }, /the GitHub App is not installed on acme\/widgets$/],
      [{ installation: status(401, "A JSON web token could not be decoded") }, /GitHub refused the App's JWT: check GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY$/],
      [{ accessToken: status(422, "There is at least one repository that does not exist") }, /installation does not include acme\/widgets, or lacks a permission the bot needs/],
      [{ accessToken: status(500) }, /GitHub answered 500 while minting a token for acme\/widgets$/]
    ];
    for (const [overrides, message] of cases) {
      reset();
      github(overrides);
      await expect(inProcess().mintInstallationToken("acme/widgets")).rejects.toThrow(message);
    }
  });

  it("words each refusal so the agent's App installations line reads it right (src/health/installations.ts)", async () => {
    const cases: [string, GitHubOverrides, RegExp][] = [
      ["acme/widgets", { installation: status(404) }, /^not installed on acme\/widgets: /],
      ["acme/widgets", { accessToken: status(404) }, /^not installed on acme\/widgets: /],
      ["acme/widgets", { accessToken: status(422, "There is at least one repository that does not exist") }, /^not installed on acme\/widgets: /],
      ["evil/widgets", {}, /^evil\/widgets not in the webhook app's ALLOWED_REPOS/],
      ["acme/widgets", { accessToken: status(500) }, /^not checked on acme\/widgets: /]
    ];
    for (const [repo, overrides, line] of cases) {
      reset();
      github(overrides);
      // What crosses RPC of a refusal is its message: the agent's health line gets exactly that.
      const refusal = await inProcess()
        .mintInstallationToken(repo, { access: "read" })
        .then(() => null, (error: unknown) => new Error((error as Error).message));
      expect(refusal, repo).not.toBeNull();
      const agentSide = { mintInstallationToken: () => Promise.reject(refusal) };
      const health = await installationsHealth({ ALLOWED_REPOS: repo }, agentSide, { localDev: false, now: Date.now(), cache: createInstallationCache() });
      expect(health.detail, refusal!.message).toMatch(line);
    }
  });

  it("refuses with a configuration error when the App key is unusable", async () => {
    github();
    const local = new AgentThinkTokenBroker(createExecutionContext(), { ...env, GITHUB_APP_PRIVATE_KEY: "not a key" });
    await expect(local.mintInstallationToken("acme/widgets")).rejects.toThrow(/GITHUB_APP_PRIVATE_KEY is not a PEM private key/);
    expect(calls).toEqual([]);
  });
});

describe("no secret in any log line", () => {
  it("across the webhook's token, dispatch and failure paths and the broker's", async () => {
    const webhookSecret = env.GITHUB_WEBHOOK_SECRET;
    const privateKey = env.GITHUB_APP_PRIVATE_KEY;
    github();
    const { lines } = await captureConsole(async () => {
      await send(await sign(commentPayload()));
      // The agent refuses with an error that names the token.
      await send(await sign(commentPayload({ body: "@agent-think reproduce" })), { env: refusingAgentEnv() });
      // A delivery signed with the wrong secret, which must not be echoed either.
      await send(await sign(commentPayload(), { secret: `${webhookSecret}-wrong` }));
      await call(() => broker().mintInstallationToken("acme/widgets"));
      await inProcess().mintInstallationToken("evil/widgets").catch(() => {});
      reset();
      github({ accessToken: status(500, "server error") });
      await send(await sign(commentPayload()));
      await inProcess().mintInstallationToken("acme/widgets").catch(() => {});
    });
    const text = lines.join("\n");
    // The paths ran and logged: the absence below means something.
    expect(minted).toHaveLength(3);
    for (const event of ["token:minted", "dispatch:done", "dispatch:failed", "broker:minted", "broker:refused", "token:failed", "delivery:rejected"]) {
      expect(text).toContain(`"event":"${event}"`);
    }
    for (const token of minted) expect(text).not.toContain(token);
    expect(text).not.toContain(webhookSecret);
    const keyLines = privateKey.split("\n").filter((line) => line.length >= 16 && !line.startsWith("-----"));
    expect(keyLines.length).toBeGreaterThan(10);
    for (const line of keyLines) expect(text).not.toContain(line);
  });
});
