/**
 * The dashboard's built JavaScript, gzipped: every dist/client/assets/*.js
 * (what `npm run build`, run by `prebench`, wrote), each through
 * node:zlib gzipSync at its default level, beside the raw size, and whether
 * `/` fetches it before it can paint: index.html names it (the entry and
 * its module preloads) or one of those imports it statically; everything
 * else is a lazy chunk (a dynamic `import()`), fetched later or never.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/** Every chunk together: 200 KB, in the decimal kilobytes Vite's build report uses. */
export const BUNDLE_GZIP_TARGET_BYTES = 200_000;
/** What `/` fetches before its first paint can run: 100 KB. */
export const INITIAL_GZIP_TARGET_BYTES = 100_000;

export type BundleFile = { file: string; bytes: number; gzipBytes: number; loadedBy: "index.html" | "static import" | "lazy" };
export type BundleFigures = {
  dir: string;
  files: BundleFile[];
  totalBytes: number;
  totalGzipBytes: number;
  /** The files index.html names and their static imports: what the first paint of `/` waits for. */
  initialGzipBytes: number;
  targetBytes: number;
  initialTargetBytes: number;
};

/**
 * The chunks a built chunk imports statically (`import … from "./x.js"`,
 * `import "./x.js"`, `export … from "./x.js"`), not its dynamic `import("./x.js")`.
 */
export function staticImports(source: string): string[] {
  const found = new Set<string>();
  for (const match of source.matchAll(/(?:^|[;}\s])(?:import|export)\s*(?:[\w*{}\s,$]+?\s*from\s*)?["']\.\/([\w.-]+\.js)["']/g)) {
    found.add(match[1]!);
  }
  return [...found];
}

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
  const sources = new Map(names.map((name) => [name, readFileSync(join(assets, name))]));
  const named = names.filter((name) => indexHtml.includes(`/assets/${name}`));
  const initial = new Set(named);
  const queue = [...named];
  for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
    for (const imported of staticImports(sources.get(name)!.toString("utf8"))) {
      if (sources.has(imported) && !initial.has(imported)) {
        initial.add(imported);
        queue.push(imported);
      }
    }
  }
  const files = names.map((file): BundleFile => {
    const source = sources.get(file)!;
    return {
      file,
      bytes: source.byteLength,
      gzipBytes: gzipSync(source).byteLength,
      loadedBy: named.includes(file) ? "index.html" : initial.has(file) ? "static import" : "lazy"
    };
  });
  const sum = (list: BundleFile[], pick: (file: BundleFile) => number) => list.reduce((total, file) => total + pick(file), 0);
  return {
    dir: assets,
    files,
    totalBytes: sum(files, (file) => file.bytes),
    totalGzipBytes: sum(files, (file) => file.gzipBytes),
    initialGzipBytes: sum(files.filter((file) => file.loadedBy !== "lazy"), (file) => file.gzipBytes),
    targetBytes: BUNDLE_GZIP_TARGET_BYTES,
    initialTargetBytes: INITIAL_GZIP_TARGET_BYTES
  };
}
