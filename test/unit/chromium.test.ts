import { describe, expect, test } from "vitest";
import { chooseChromium, CHROMIUM_ARGS, NoChromiumError, type ChromiumDeps } from "../../scripts/lib/chromium";

/** A machine with these files; `unpacked` records whether the npm build was unpacked. */
function machine(files: string[], over: Partial<ChromiumDeps> = {}) {
  const record = { unpacked: 0 };
  const deps: ChromiumDeps = {
    env: {},
    platform: "linux",
    arch: "x64",
    exists: (path) => files.includes(path),
    unpackBundled: async () => {
      record.unpacked += 1;
      return "/tmp/chromium";
    },
    ...over
  };
  return { deps, record };
}

describe("which Chromium the browser tests drive", () => {
  test("CHROMIUM_PATH wins over a system Chromium, and nothing is unpacked", async () => {
    const { deps, record } = machine(["/opt/chrome/chrome", "/usr/bin/chromium"], { env: { CHROMIUM_PATH: "/opt/chrome/chrome" } });
    expect(await chooseChromium(deps)).toEqual({ path: "/opt/chrome/chrome", source: "CHROMIUM_PATH" });
    expect(record.unpacked).toBe(0);
  });

  test("a CHROMIUM_PATH that does not exist is an error naming it, not a silent fallback", async () => {
    const { deps, record } = machine(["/usr/bin/chromium"], { env: { CHROMIUM_PATH: "/nowhere/chrome" } });
    await expect(chooseChromium(deps)).rejects.toThrow(new NoChromiumError("CHROMIUM_PATH=/nowhere/chrome does not exist: point it at a Chromium or Chrome binary, or unset it"));
    expect(record.unpacked).toBe(0);
  });

  test("a system Chromium is preferred to the npm build", async () => {
    const debian = machine(["/usr/bin/chromium"]);
    expect(await chooseChromium(debian.deps)).toEqual({ path: "/usr/bin/chromium", source: "system" });
    const ubuntu = machine(["/usr/bin/chromium-browser"]);
    expect(await chooseChromium(ubuntu.deps)).toEqual({ path: "/usr/bin/chromium-browser", source: "system" });
    expect(debian.record.unpacked + ubuntu.record.unpacked).toBe(0);
  });

  test("Linux x64 with none falls back to the build @sparticuz/chromium ships", async () => {
    const { deps, record } = machine([]);
    expect(await chooseChromium(deps)).toEqual({ path: "/tmp/chromium", source: "@sparticuz/chromium" });
    expect(record.unpacked).toBe(1);
  });

  test.each([
    ["darwin", "arm64", "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"],
    ["win32", "x64", "chrome.exe"],
    ["linux", "arm64", "your distribution's chromium package"]
  ])("%s-%s with none fails with one line that says what to install", async (platform, arch, hint) => {
    const { deps, record } = machine([], { platform, arch });
    const error = await chooseChromium(deps).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(NoChromiumError);
    const message = (error as Error).message;
    expect(message).not.toContain("\n");
    expect(message).toContain(`no Chromium for ${platform}-${arch}`);
    expect(message).toContain("CHROMIUM_PATH");
    expect(message).toContain(hint);
    expect(record.unpacked).toBe(0);
  });

  test("launches with our own flags, never ones that turn web security off", () => {
    expect(CHROMIUM_ARGS).toContain("--headless");
    expect(CHROMIUM_ARGS).toContain("--disable-background-networking");
    expect(CHROMIUM_ARGS.some((flag) => /disable-web-security|disable-site-isolation|allow-running-insecure/.test(flag))).toBe(false);
  });
});
