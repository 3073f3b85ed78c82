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
  warmLaunchSpec,
  WORKSPACE_SYNC_IGNORE
} from "../../src/pool/launch-spec";

const GHES = { GITHUB_API_URL: "https://ghe.example.com/api/v3" };

describe("launch spec", () => {
  it("is the backend's spec for containerBackendOptions()", () => {
    const options = containerBackendOptions();
    expect(warmLaunchSpec()).toEqual({
      env: { PORT: String(options.containerPort), MOUNT_POINT: "/workspace", MOUNT_IGNORE: options.ignore.join(","), ...options.containerEnv },
      enableInternet: options.egress.mode === "direct",
      name: options.name,
      instance: options.instance
    });
  });

  it("keeps dependency trees and caches out of the sync, but never the clone's history or a built page", () => {
    expect(containerBackendOptions().ignore).toEqual(WORKSPACE_SYNC_IGNORE);
    expect(WORKSPACE_SYNC_IGNORE).toContain("**/node_modules");
    expect(WORKSPACE_SYNC_IGNORE.some((pattern) => /\.git$|dist/.test(pattern))).toBe(false);
  });

  it("sizes the container from CONTAINER_INSTANCE_TYPE, standard-2 when blank, and refuses an unknown type by name", () => {
    expect(containerInstance({})).toBe(DEFAULT_INSTANCE_TYPE);
    expect(containerInstance({ CONTAINER_INSTANCE_TYPE: " " })).toBe("standard-2");
    expect(containerInstance({ CONTAINER_INSTANCE_TYPE: "standard-4" })).toBe("standard-4");
    expect(warmLaunchSpec({ CONTAINER_INSTANCE_TYPE: "basic" }).instance).toBe("basic");
    expect(containerBackendOptions({ CONTAINER_INSTANCE_TYPE: "basic" }).instance).toBe("basic");
    expect(() => containerInstance({ CONTAINER_INSTANCE_TYPE: "huge" })).toThrow(/CONTAINER_INSTANCE_TYPE must be one of lite, basic/);
  });

  it("gives a slow first boot its whole attempt: 90 s per attempt, not the package's 15 s", () => {
    const options = containerBackendOptions();
    expect(options.connectTimeoutMs / (options.restartAttempts + 1)).toBeGreaterThanOrEqual(90_000);
  });

  it("is stable: the same spec every time, so the env digest matches", () => {
    expect(warmLaunchSpec()).toEqual(warmLaunchSpec());
    expect(containerLaunchEnv()).toEqual(containerLaunchEnv());
    expect(warmLaunchSpec(GHES)).toEqual(warmLaunchSpec({ ...GHES }));
  });

  it("points the container's gh at the deploy's GitHub, with no token in the env", () => {
    expect(containerLaunchEnv()).toEqual({
      COMPUTER_VAR_GIT_TERMINAL_PROMPT: "0",
      COMPUTER_VAR_GH_PROMPT_DISABLED: "1",
      COMPUTER_VAR_GH_HOST: "github.com"
    });
    expect(containerLaunchEnv({ GITHUB_API_URL: "https://api.github.com" }).COMPUTER_VAR_GH_HOST).toBe("github.com");
    expect(containerLaunchEnv({ GITHUB_API_URL: "https://api.octocorp.ghe.com" }).COMPUTER_VAR_GH_HOST).toBe("octocorp.ghe.com");
    const env = warmLaunchSpec(GHES).env;
    expect(env.COMPUTER_VAR_GH_HOST).toBe("ghe.example.com");
    expect(JSON.stringify(env)).not.toContain("github.com");
    expect(Object.keys(env).filter((key) => /TOKEN/.test(key))).toEqual([]);
  });

  it("is the backend's spec for an Enterprise host too", () => {
    const options = containerBackendOptions(GHES);
    expect(options.containerEnv.COMPUTER_VAR_GH_HOST).toBe("ghe.example.com");
    expect(warmLaunchSpec(GHES).env).toEqual({ PORT: String(options.containerPort), MOUNT_POINT: "/workspace", MOUNT_IGNORE: options.ignore.join(","), ...options.containerEnv });
  });

  it("refuses a GITHUB_API_URL that names no GitHub, by name", () => {
    expect(() => containerBackendOptions({ GITHUB_API_URL: "https://ghe.example.com" })).toThrow(/^GITHUB_API_URL must be/);
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
