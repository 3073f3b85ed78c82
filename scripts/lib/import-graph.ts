/**
 * The project's relative imports, read with Oxc's parser (rolldown's), and the two
 * rules AGENTS.md states for them ("Layers"): an import points down a layer,
 * and no value imports go round in a circle. `import type` and `export type`
 * are erased; under verbatimModuleSyntax `import { type A }` is not, so it
 * is a value import. A dynamic `import()` counts for layers, not circles.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { parseSync } from "rolldown/utils";

export type ImportEdge = { from: string; to: string; kind: "value" | "type" | "dynamic" };

const SOURCE = /\.(ts|tsx|mts)$/;

/** Every TypeScript source under `dir` (relative to `root`), declaration files and node_modules left out. */
export function sourceFiles(root: string, dir: string): string[] {
  const found: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      if (name === "node_modules" || name.startsWith(".")) continue;
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (SOURCE.test(name) && !name.endsWith(".d.ts")) found.push(relative(root, path));
    }
  };
  walk(join(root, dir));
  return found.sort();
}

function resolveRelative(root: string, fromFile: string, specifier: string): string | undefined {
  const base = resolve(root, dirname(fromFile), specifier);
  const candidates = [base, `${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")];
  if (/\.js$/.test(base)) candidates.unshift(base.replace(/\.js$/, ".ts"), base.replace(/\.js$/, ".tsx"));
  const hit = candidates.find((path) => SOURCE.test(path) && existsSync(path) && statSync(path).isFile());
  return hit === undefined ? undefined : relative(root, hit);
}

/** The relative imports of one file's text; `file` is relative to `root`, as are the edges. */
export function importsOf(root: string, file: string, text: string): ImportEdge[] {
  const { module, errors } = parseSync(file, text, { lang: file.endsWith("x") ? "tsx" : "ts" });
  if (errors.length > 0) throw new Error(`${file} does not parse: ${errors[0]!.message}`);
  const edges: ImportEdge[] = [];
  const add = (specifier: string, kind: ImportEdge["kind"]) => {
    if (!specifier.startsWith(".")) return;
    const to = resolveRelative(root, file, specifier);
    if (to !== undefined) edges.push({ from: file, to, kind });
  };
  // Only `import type` and `export type` are erased; the statement's own words say which.
  const kindOf = (start: number) => (/^(import|export)\s+type\b/.test(text.slice(start, start + 40)) ? "type" : "value");
  for (const statement of module.staticImports) add(statement.moduleRequest.value, kindOf(statement.start));
  for (const statement of module.staticExports) {
    const request = statement.entries.find((entry) => entry.moduleRequest)?.moduleRequest;
    if (request) add(request.value, kindOf(statement.start));
  }
  for (const call of module.dynamicImports) {
    const literal = /^(["'`])([^"'`$]*)\1$/.exec(text.slice(call.moduleRequest.start, call.moduleRequest.end));
    if (literal) add(literal[2]!, "dynamic");
  }
  return edges;
}

/** The imports of every source under the given folders. */
export function importGraph(root: string, dirs: readonly string[]): ImportEdge[] {
  return dirs.flatMap((dir) => sourceFiles(root, dir).flatMap((file) => importsOf(root, file, readFileSync(join(root, file), "utf8"))));
}

/** Each circle of value imports, as the files on it. */
export const valueCircles = (edges: readonly ImportEdge[]): string[][] => circles(edges, ["value"]);

/** Each circle of imports of the given kinds, as the files on it (Tarjan's strongly connected components). */
export function circles(edges: readonly ImportEdge[], kinds: readonly ImportEdge["kind"][]): string[][] {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    if (!kinds.includes(edge.kind)) continue;
    next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let counter = 0;
  const connect = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        connect(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
      onStack.delete(member);
      component.push(member);
      if (member === node) break;
    }
    if (component.length > 1 || (next.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of next.keys()) if (!index.has(node)) connect(node);
  return found;
}

/**
 * Layers, lowest first: each a list of folders (relative to the root; a
 * folder's own files, not its subfolders'; `dir/**` for a whole subtree) or
 * single files, a file's entry winning over its folder's. A file may import its own folder (or group) and
 * any lower layer; in a layer with `sideways: true` also the layer's others.
 */
export type Layers = readonly { name: string; folders: readonly string[]; sideways?: boolean }[];

export type LayerBreach = { edge: ImportEdge; reason: string };

function folderOf(layers: Layers, file: string): { layer: number; folder: string } | undefined {
  const byFile = layers.findIndex((entry) => entry.folders.includes(file));
  if (byFile !== -1) return { layer: byFile, folder: `${layers[byFile]!.name}:files` };
  const folder = dirname(file);
  const layer = layers.findIndex((entry) => entry.folders.includes(folder));
  if (layer !== -1) return { layer, folder };
  const subtree = layers.findIndex((entry) => entry.folders.some((path) => path.endsWith("/**") && folder.startsWith(path.slice(0, -2))));
  return subtree === -1 ? undefined : { layer: subtree, folder: `${layers[subtree]!.name}:subtree` };
}

/** Every import that points up, or sideways below the top, and every file in no layer. */
export function layerBreaches(layers: Layers, edges: readonly ImportEdge[], files: readonly string[]): LayerBreach[] {
  const breaches: LayerBreach[] = [];
  for (const file of files) {
    if (!folderOf(layers, file)) breaches.push({ edge: { from: file, to: file, kind: "value" }, reason: `${dirname(file)}/ is in no layer` });
  }
  for (const edge of edges) {
    const from = folderOf(layers, edge.from);
    const to = folderOf(layers, edge.to);
    if (!from || !to || from.folder === to.folder || to.layer < from.layer) continue;
    if (to.layer === from.layer && layers[from.layer]!.sideways) continue;
    const direction = to.layer > from.layer ? "up" : "sideways";
    breaches.push({ edge, reason: `${layers[from.layer]!.name} imports ${direction} into ${layers[to.layer]!.name}` });
  }
  return breaches;
}
