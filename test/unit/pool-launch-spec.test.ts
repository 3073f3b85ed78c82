import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { experimental_readRawConfig } from "wrangler";
import {
  CONTAINER_IMAGE_NAME,
  CONTAINER_PORT,
  containerBackendOptions,
  containerInstance,
  containerLaunchEnv,
  DEFAULT_INSTANCE_TYPE,
  SANDBOX_GH_TOKEN,
  warmLaunchSpec,
  WORKSPACE_SYNC_IGNORE
} from "../../src/pool/launch-spec";

const GHES = { GITHUB_API_URL: "https://ghe.example.com/api/v3" };
/** Where the container's requests go: a stand-in for the SandboxEgress entrypoint. */
const GATEWAY = { fetch: async () => new Response("gateway") } as unknown as Fetcher;
const options = (env: Parameters<typeof containerBackendOptions>[0] = {}) => containerBackendOptions(env, GATEWAY);

describe("launch spec", () => {
  it("is the backend's spec for containerBackendOptions()", () => {
    const backend = options();
    expect(warmLaunchSpec()).toEqual({
      env: { PORT: String(backend.containerPort), MOUNT_POINT: "/workspace", MOUNT_IGNORE: backend.ignore.join(","), ...backend.containerEnv },
      enableInternet: false,
      name: backend.name,
      instance: backend.instance
    });
  });

  it("sends every request of the container through the egress gateway, with no direct internet", () => {
    expect(options().egress).toEqual({ mode: "http-gateway", gateway: GATEWAY });
    expect(warmLaunchSpec().enableInternet).toBe(false);
  });

  it("keeps dependency trees and caches out of the sync, but never the clone's history or a built page", () => {
    expect(options().ignore).toEqual(WORKSPACE_SYNC_IGNORE);
    expect(WORKSPACE_SYNC_IGNORE).toContain("**/node_modules");
    expect(WORKSPACE_SYNC_IGNORE.some((pattern) => /\.git$|dist/.test(pattern))).toBe(false);
  });

  it("sizes the container from CONTAINER_INSTANCE_TYPE, standard-2 when blank, and refuses an unknown type by name", () => {
    expect(containerInstance({})).toBe(DEFAULT_INSTANCE_TYPE);
    expect(containerInstance({ CONTAINER_INSTANCE_TYPE: " " })).toBe("standard-2");
    expect(containerInstance({ CONTAINER_INSTANCE_TYPE: "standard-4" })).toBe("standard-4");
    expect(warmLaunchSpec({ CONTAINER_INSTANCE_TYPE: "basic" }).instance).toBe("basic");
    expect(options({ CONTAINER_INSTANCE_TYPE: "basic" }).instance).toBe("basic");
    expect(() => containerInstance({ CONTAINER_INSTANCE_TYPE: "huge" })).toThrow(/CONTAINER_INSTANCE_TYPE must be one of lite, basic/);
  });

  it("gives a slow first boot its whole attempt: 90 s per attempt, not the package's 15 s", () => {
    const backend = options();
    expect(backend.connectTimeoutMs / (backend.restartAttempts + 1)).toBeGreaterThanOrEqual(90_000);
  });

  it("is stable: the same spec every time, so the env digest matches", () => {
    expect(warmLaunchSpec()).toEqual(warmLaunchSpec());
    expect(containerLaunchEnv()).toEqual(containerLaunchEnv());
    expect(warmLaunchSpec(GHES)).toEqual(warmLaunchSpec({ ...GHES }));
  });

  it("points the container's gh at the deploy's GitHub, with no credential in the env", () => {
    expect(containerLaunchEnv()).toEqual({
      COMPUTER_VAR_GIT_TERMINAL_PROMPT: "0",
      COMPUTER_VAR_GH_PROMPT_DISABLED: "1",
      COMPUTER_VAR_GH_HOST: "github.com",
      COMPUTER_VAR_GH_TOKEN: SANDBOX_GH_TOKEN,
      COMPUTER_VAR_GH_ENTERPRISE_TOKEN: SANDBOX_GH_TOKEN
    });
    // gh's "token" is a fixed word, the same for every run: no run's value reaches the env.
    expect(SANDBOX_GH_TOKEN).toBe("no-token-in-sandbox");
    expect(containerLaunchEnv({ GITHUB_API_URL: "https://api.github.com" }).COMPUTER_VAR_GH_HOST).toBe("github.com");
    expect(containerLaunchEnv({ GITHUB_API_URL: "https://api.octocorp.ghe.com" }).COMPUTER_VAR_GH_HOST).toBe("octocorp.ghe.com");
    const env = warmLaunchSpec(GHES).env;
    expect(env.COMPUTER_VAR_GH_HOST).toBe("ghe.example.com");
    expect(JSON.stringify(env)).not.toContain("github.com");
    expect(Object.entries(env).filter(([key, value]) => /TOKEN/.test(key) && value !== SANDBOX_GH_TOKEN)).toEqual([]);
  });

  it("is the backend's spec for an Enterprise host too", () => {
    const backend = options(GHES);
    expect(backend.containerEnv.COMPUTER_VAR_GH_HOST).toBe("ghe.example.com");
    expect(warmLaunchSpec(GHES).env).toEqual({ PORT: String(backend.containerPort), MOUNT_POINT: "/workspace", MOUNT_IGNORE: backend.ignore.join(","), ...backend.containerEnv });
  });

  it("refuses a GITHUB_API_URL that names no GitHub, by name", () => {
    expect(() => options({ GITHUB_API_URL: "https://ghe.example.com" })).toThrow(/^GITHUB_API_URL must be/);
    expect(() => warmLaunchSpec({ GITHUB_API_URL: "https://ghe.example.com" })).toThrow(/^GITHUB_API_URL must be/);
  });

  it("names the image wrangler.jsonc declares for the Sandbox", () => {
    const config = experimental_readRawConfig({ config: "wrangler.jsonc" }).rawConfig as {
      containers?: Array<{ class_name: string; images?: Record<string, unknown> }>;
    };
    const sandbox = config.containers?.find((container) => container.class_name === "Sandbox");
    expect(Object.keys(sandbox?.images ?? {})).toContain(CONTAINER_IMAGE_NAME);
  });

  it("matches the port the image's computerd listens on", () => {
    expect(readFileSync("Dockerfile", "utf8")).toMatch(new RegExp(`^EXPOSE ${CONTAINER_PORT}$`, "m"));
  });
});
