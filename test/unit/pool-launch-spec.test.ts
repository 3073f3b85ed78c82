import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { experimental_readRawConfig } from "wrangler";
import {
  CONTAINER_IMAGE_NAME,
  CONTAINER_PORT,
  containerBackendOptions,
  containerLaunchEnv,
  warmLaunchSpec
} from "../../src/pool/launch-spec";

describe("launch spec", () => {
  it("is the backend's spec for containerBackendOptions()", () => {
    const options = containerBackendOptions();
    expect(warmLaunchSpec()).toEqual({
      env: { PORT: String(options.containerPort), MOUNT_POINT: "/workspace", ...options.containerEnv },
      enableInternet: options.egress.mode === "direct",
      name: options.name
    });
  });

  it("is stable: the same spec every time, so the env digest matches", () => {
    expect(warmLaunchSpec()).toEqual(warmLaunchSpec());
    expect(containerLaunchEnv()).toEqual(containerLaunchEnv());
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
