/**
 * Which Chromium the browser tests and the bench drive, and the flags they
 * launch it with. In order: `CHROMIUM_PATH`, a system Chromium, then on
 * Linux x64 the build `@sparticuz/chromium` ships inside its npm package
 * (unpacked once to the temp dir). Anywhere else it fails with one line
 * that says what to install. docs/testing.md says why this order.
 *
 * `chooseChromium` is pure (the file system and the unpacking are
 * parameters); `findChromium` wires them.
 */
import { existsSync } from "node:fs";

export type ChromiumSource = "CHROMIUM_PATH" | "system" | "@sparticuz/chromium";
export type ChromiumChoice = { path: string; source: ChromiumSource };

/** Where Debian's, Ubuntu's and Fedora's packages put it. */
export const SYSTEM_CHROMIUM_PATHS = ["/usr/bin/chromium", "/usr/bin/chromium-browser"] as const;

/**
 * Our own flags, never the npm package's (its list turns web security and
 * site isolation off for serverless use, which would void the CSP and
 * cross-origin checks the tests make). The network flags keep a closed
 * machine's browser from dialling Google at every start.
 */
export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync"
];

export class NoChromiumError extends Error {
  override name = "NoChromiumError";
}

export type ChromiumDeps = {
  env: Record<string, string | undefined>;
  platform: string;
  arch: string;
  exists(path: string): boolean;
  /** Unpacks the npm package's build and gives its path. */
  unpackBundled(): Promise<string>;
};

export async function chooseChromium(deps: ChromiumDeps): Promise<ChromiumChoice> {
  const named = deps.env.CHROMIUM_PATH?.trim();
  if (named) {
    if (!deps.exists(named)) throw new NoChromiumError(`CHROMIUM_PATH=${named} does not exist: point it at a Chromium or Chrome binary, or unset it`);
    return { path: named, source: "CHROMIUM_PATH" };
  }
  const system = SYSTEM_CHROMIUM_PATHS.find((path) => deps.exists(path));
  if (system) return { path: system, source: "system" };
  if (deps.platform === "linux" && deps.arch === "x64") return { path: await deps.unpackBundled(), source: "@sparticuz/chromium" };
  throw new NoChromiumError(noChromiumLine(deps.platform, deps.arch));
}

/** The one line a browser suite fails with where no Chromium can be had. */
export function noChromiumLine(platform: string, arch: string): string {
  const where =
    platform === "darwin"
      ? 'e.g. CHROMIUM_PATH="/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"'
      : platform === "win32"
        ? 'e.g. CHROMIUM_PATH="C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe"'
        : "e.g. CHROMIUM_PATH=/usr/bin/chromium after installing your distribution's chromium package";
  return `no Chromium for ${platform}-${arch} (the npm-shipped build is Linux x64 only): install Chromium or Google Chrome and set CHROMIUM_PATH, ${where}`;
}

let found: Promise<ChromiumChoice> | undefined;

/** This machine's Chromium, looked up once per process. */
export function findChromium(): Promise<ChromiumChoice> {
  found ??= chooseChromium({
    env: process.env,
    platform: process.platform,
    arch: process.arch,
    exists: existsSync,
    unpackBundled: async () => {
      const { default: bundled } = await import("@sparticuz/chromium");
      return await bundled.executablePath();
    }
  });
  return found;
}
