/**
 * The dashboard's built JavaScript, gzipped: every dist/client/assets/*.js
 * (what `npm run build`, run by `prebench`, wrote), each through
 * node:zlib gzipSync at its default level, beside the raw size, and whether
 * `/` loads it up front (index.html names it) or later (a lazy chunk).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/** 200 KB, in the decimal kilobytes Vite's build report uses. */
export const BUNDLE_GZIP_TARGET_BYTES = 200_000;

export type BundleFile = { file: string; bytes: number; gzipBytes: number; loadedBy: "index.html" | "lazy" };
export type BundleFigures = {
  dir: string;
  files: BundleFile[];
  totalBytes: number;
  totalGzipBytes: number;
  /** Only the files index.html loads: what the first paint of `/` waits for. */
  initialGzipBytes: number;
  targetBytes: number;
};

export function measureBundle(clientDir: string): BundleFigures {
  const assets = join(clientDir, "assets");
  let names: string[];
  let indexHtml: string;
  try {
    names = readdirSync(assets).filter((name) => name.endsWith(".js")).sort();
    indexHtml = readFileSync(join(clientDir, "index.html"), "utf8");
  } catch (error) {
    throw new Error(`no built dashboard in ${clientDir} (npm run build): ${error instanceof Error ? error.message : String(error)}`);
  }
  if (names.length === 0) throw new Error(`no .js files in ${assets} (npm run build)`);
  const files = names.map((file): BundleFile => {
    const source = readFileSync(join(assets, file));
    return {
      file,
      bytes: source.byteLength,
      gzipBytes: gzipSync(source).byteLength,
      loadedBy: indexHtml.includes(`/assets/${file}`) ? "index.html" : "lazy"
    };
  });
  const sum = (list: BundleFile[], pick: (file: BundleFile) => number) => list.reduce((total, file) => total + pick(file), 0);
  return {
    dir: assets,
    files,
    totalBytes: sum(files, (file) => file.bytes),
    totalGzipBytes: sum(files, (file) => file.gzipBytes),
    initialGzipBytes: sum(files.filter((file) => file.loadedBy === "index.html"), (file) => file.gzipBytes),
    targetBytes: BUNDLE_GZIP_TARGET_BYTES
  };
}
