import { describe, expect, it } from "vitest";
import {
  createInstallationCache,
  INSTALLED_KEEP_MS,
  installationsHealth,
  MAX_INSTALLATION_CHECKS,
  NOT_INSTALLED_KEEP_MS,
  type InstallationBroker
} from "../../src/health/installations";

/**
 * The broker's refusals as they arrive over RPC (the message only), worded
 * as ingress/src/token-broker.ts and ingress/src/github/app-client.ts word them.
 */
const refused = (detail: string) => new Error(`agent-think-ingress token broker: ${detail}`);
const TOKEN = "ghs_abcdefghijklmnopqrstuvwxyz0123456789";

/** A broker that records each repository asked and answers by `answer`. */
function broker(answer: (repo: string) => Promise<unknown>) {
  const asked: string[] = [];
  const probe: InstallationBroker = {
    mintInstallationToken: (repo, options) => {
      asked.push(`${options.access}:${repo}`);
      return answer(repo);
    }
  };
  return { probe, asked };
}
const installedOn =
  (...repos: string[]) =>
  (repo: string) =>
    repos.includes(repo)
      ? Promise.resolve({ token: TOKEN, expiresAt: "2026-12-01T01:00:00Z", bot: { login: "x[bot]", id: 1 } })
      : Promise.reject(refused(`the GitHub App is not installed on ${repo}`));

const deployed = (cache = createInstallationCache(), now = 1_000_000) => ({ localDev: false, now, cache, timeoutMs: 200 });
const env = (ALLOWED_REPOS: string) => ({ ALLOWED_REPOS, GITHUB_API_URL: "https://api.github.com" });

describe("installationsHealth", () => {
  it("is ok when the broker mints a read-only token for every listed repository, and never shows the token", async () => {
    const { probe, asked } = broker(installedOn("acme/api", "acme/web"));
    const check = await installationsHealth(env("acme/web, Acme/API"), probe, deployed());
    expect(check).toEqual({ id: "installations", label: "App installations", status: "ok", detail: "installed on acme/api, acme/web" });
    expect(asked).toEqual(["read:acme/api", "read:acme/web"]);
    expect(JSON.stringify(check)).not.toContain(TOKEN);
  });

  it("blocks a repository the App is not installed on, naming the installation settings page; warns in local dev", async () => {
    const { probe } = broker(installedOn("acme/api"));
    const check = await installationsHealth(env("acme/api,acme/web"), probe, deployed());
    expect(check.status).toBe("block");
    expect(check.detail).toContain("installed on acme/api");
    expect(check.detail).toContain("not installed on acme/web");
    expect(check.fix).toContain("https://github.com/organizations/acme/settings/installations");
    expect(check.fix).toContain("acme/web");

    const ghes = await installationsHealth({ ...env("acme/web"), GITHUB_API_URL: "https://git.acme.test/api/v3" }, broker(installedOn()).probe, deployed());
    expect(ghes.fix).toContain("https://git.acme.test/organizations/acme/settings/installations");

    const local = await installationsHealth(env("acme/web"), broker(installedOn()).probe, { ...deployed(), localDev: true });
    expect(local.status).toBe("warn");
  });

  it("reads a 422 (the installation lacks the repository or a permission) as not installed", async () => {
    const { probe } = broker(() => Promise.reject(refused("the GitHub App's installation does not include acme/web, or lacks a permission this token asks for (contents: read)")));
    const check = await installationsHealth(env("acme/web"), probe, deployed());
    expect(check).toMatchObject({ status: "block", detail: expect.stringContaining("lacks a permission") });
  });

  it("blocks a repository the webhook app's own list leaves out", async () => {
    const { probe } = broker((repo) => Promise.reject(refused(`${repo} is not in ALLOWED_REPOS`)));
    const check = await installationsHealth(env("acme/web"), probe, deployed());
    expect(check).toMatchObject({ status: "block", detail: expect.stringContaining("not in the webhook app's ALLOWED_REPOS"), fix: expect.stringContaining("ingress/wrangler.jsonc") });
  });

  it("warns, and does not keep the answer, when the broker is unbound, throws or does not answer in time", async () => {
    const unbound = await installationsHealth(env("acme/web"), undefined, deployed());
    expect(unbound).toMatchObject({ status: "warn", detail: expect.stringContaining("GITHUB_AUTH is not bound"), fix: "see the Token broker line" });

    const cache = createInstallationCache();
    const throwing = broker(() => Promise.reject(new Error(`Couldn't find a local dev session (${TOKEN})`)));
    const check = await installationsHealth(env("acme/web"), throwing.probe, deployed(cache));
    expect(check).toMatchObject({ status: "warn", detail: expect.stringContaining("the token broker was not reached") });
    expect(check.detail).not.toContain(TOKEN);
    expect(cache.size).toBe(0);

    const silent = broker(() => new Promise(() => {}));
    const late = await installationsHealth(env("acme/web"), silent.probe, deployed());
    expect(late).toMatchObject({ status: "warn", detail: expect.stringContaining("did not answer within 200 ms") });
  });

  it("warns when GitHub failed the mint, and names the reason", async () => {
    const { probe } = broker(() => Promise.reject(refused("GitHub answered 502 while minting a token for acme/web")));
    const check = await installationsHealth(env("acme/web"), probe, deployed());
    expect(check).toMatchObject({ status: "warn", detail: expect.stringContaining("GitHub answered 502") });
  });

  it("says what a wildcard entry cannot check, and asks nothing for it", async () => {
    const { probe, asked } = broker(installedOn("acme/api"));
    const check = await installationsHealth(env("acme/api,acme/*"), probe, deployed());
    expect(asked).toEqual(["read:acme/api"]);
    expect(check.status).toBe("warn");
    expect(check.detail).toContain("installed on acme/api");
    expect(check.detail).toContain("acme/* cannot be checked: ALLOWED_REPOS compares exact names");
    expect(check.fix).toContain("owner/name");
  });

  it("asks at most MAX_INSTALLATION_CHECKS repositories per load, the rest on the next load", async () => {
    const repos = Array.from({ length: MAX_INSTALLATION_CHECKS + 3 }, (_, index) => `acme/r${String(index).padStart(2, "0")}`);
    const { probe, asked } = broker(installedOn(...repos));
    const cache = createInstallationCache();
    const first = await installationsHealth(env(repos.join(",")), probe, deployed(cache));
    expect(asked).toHaveLength(MAX_INSTALLATION_CHECKS);
    expect(first).toMatchObject({ status: "warn", detail: expect.stringContaining("3 more not checked yet") });

    const second = await installationsHealth(env(repos.join(",")), probe, deployed(cache, 1_000_001));
    expect(asked).toHaveLength(MAX_INSTALLATION_CHECKS + 3);
    expect(second.status).toBe("ok");
  });

  it("keeps an installed answer 10 minutes and a refusal one, per repository", async () => {
    const cache = createInstallationCache();
    const { probe, asked } = broker(installedOn("acme/api"));
    const start = 5_000_000;
    await installationsHealth(env("acme/api,acme/web"), probe, deployed(cache, start));
    expect(asked).toHaveLength(2);
    await installationsHealth(env("acme/api,acme/web"), probe, deployed(cache, start + NOT_INSTALLED_KEEP_MS - 1));
    expect(asked).toHaveLength(2);
    await installationsHealth(env("acme/api,acme/web"), probe, deployed(cache, start + NOT_INSTALLED_KEEP_MS));
    expect(asked.slice(2)).toEqual(["read:acme/web"]);
    await installationsHealth(env("acme/api,acme/web"), probe, deployed(cache, start + INSTALLED_KEEP_MS));
    expect(asked.slice(3)).toEqual(["read:acme/api", "read:acme/web"]);
  });

  it("has nothing to check when ALLOWED_REPOS names no repository", async () => {
    const { probe, asked } = broker(installedOn());
    expect(await installationsHealth({ ALLOWED_REPOS: "", LOCAL_DEV: "1" }, probe, deployed())).toMatchObject({ status: "ok" });
    expect(await installationsHealth({ ALLOWED_REPOS: "" }, probe, deployed())).toMatchObject({ status: "warn", fix: "see the Allowed repositories line" });
    expect(await installationsHealth({ ALLOWED_REPOS: "acme" }, probe, deployed())).toMatchObject({ status: "warn" });
    expect(asked).toEqual([]);
  });
});
