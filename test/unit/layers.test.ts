/**
 * The import rules AGENTS.md states under "Layers": the agent Worker's and
 * the webhook app's imports point down a layer, no import of theirs goes
 * round in a circle, and no value import anywhere in the project's code. First the checker
 * itself, on a made-up tree, so it is known to fail when it should.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { circles, importGraph, layerBreaches, sourceFiles, valueCircles, type Layers } from "../../scripts/lib/import-graph";

const ROOT = join(import.meta.dirname, "../..");

/** The agent Worker, lowest first (AGENTS.md, "Layers"). */
const WORKER: Layers = [
  { name: "shared", folders: ["src/shared"] },
  { name: "run", folders: ["src/run"] },
  { name: "outside parties", folders: ["src/github", "src/model", "src/repro", "src/command-center"] },
  { name: "services", folders: ["src/egress", "src/pool", "src/report"] },
  { name: "tools", folders: ["src/tools"] },
  { name: "steps", folders: ["src/steps"] },
  { name: "agents and routes", folders: ["src", "src/http", "src/health", "src/ui", "src/ui/**"], sideways: true }
];

/** The webhook app, over the shared modules it reads (AGENTS.md, "Layers"). */
const INGRESS: Layers = [
  { name: "shared", folders: ["src/shared", "src/run"] },
  { name: "rules", folders: ["ingress/src"] },
  { name: "github", folders: ["ingress/src/github"] },
  { name: "services", folders: ["ingress/src/app-check.ts", "ingress/src/ci-failures.ts", "ingress/src/token-broker.ts"] },
  { name: "http", folders: ["ingress/src/http"] },
  { name: "entry", folders: ["ingress/src/index.ts", "ingress/src/wiring.ts"] }
];

const describeBreaches = (breaches: ReturnType<typeof layerBreaches>) => breaches.map(({ edge, reason }) => `${edge.from} -> ${edge.to} (${edge.kind}): ${reason}`);

describe("the import checker", () => {
  const root = mkdtempSync(join(tmpdir(), "agent-think-layers-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  };
  write("app/low/a.ts", 'import { b } from "../high/b";\nimport type { C } from "../high/c";\nexport const a = 1;\n');
  write("app/high/b.ts", 'import { a } from "../low/a";\nexport const b = a;\n');
  write("app/high/c.ts", 'export type C = number;\nexport const load = () => import("../low/a");\n');
  write("app/high/d.ts", 'import { type C } from "./c";\nexport type D = C;\n');
  write("app/other/e.ts", "export const e = 1;\n");
  const layers: Layers = [
    { name: "low", folders: ["app/low"] },
    { name: "high", folders: ["app/high"] }
  ];
  const edges = importGraph(root, ["app"]);

  it("reads value, type and dynamic imports, and counts `import { type A }` as a value import", () => {
    expect(edges).toEqual(
      expect.arrayContaining([
        { from: "app/low/a.ts", to: "app/high/b.ts", kind: "value" },
        { from: "app/low/a.ts", to: "app/high/c.ts", kind: "type" },
        { from: "app/high/c.ts", to: "app/low/a.ts", kind: "dynamic" },
        { from: "app/high/d.ts", to: "app/high/c.ts", kind: "value" }
      ])
    );
  });

  it("names an import that points up, of either kind, and a file in no layer", () => {
    expect(describeBreaches(layerBreaches(layers, edges, sourceFiles(root, "app")))).toEqual([
      "app/other/e.ts -> app/other/e.ts (value): app/other/ is in no layer",
      "app/low/a.ts -> app/high/b.ts (value): low imports up into high",
      "app/low/a.ts -> app/high/c.ts (type): low imports up into high"
    ]);
  });

  it("finds a circle of value imports, and not one closed only by a type or dynamic import", () => {
    expect(valueCircles(edges)).toEqual([["app/high/b.ts", "app/low/a.ts"]]);
  });

  it("finds a circle closed by a type import when type imports count", () => {
    const typed = importGraph(root, ["app"]).filter((edge) => edge.from !== "app/high/b.ts");
    expect(valueCircles(typed)).toEqual([]);
    expect(circles([...typed, { from: "app/high/c.ts", to: "app/low/a.ts", kind: "type" }], ["value", "type"])).toEqual([["app/high/c.ts", "app/low/a.ts"]]);
  });
});

describe("the project's imports", () => {
  const worker = importGraph(ROOT, ["src"]);
  const ingress = importGraph(ROOT, ["ingress/src"]);

  it("point down the agent Worker's layers", () => {
    expect(describeBreaches(layerBreaches(WORKER, worker, sourceFiles(ROOT, "src")))).toEqual([]);
  });

  it("point down the webhook app's layers", () => {
    const files = sourceFiles(ROOT, "ingress/src");
    const breaches = layerBreaches(INGRESS, ingress, files).filter(({ edge }) => files.includes(edge.from));
    expect(describeBreaches(breaches)).toEqual([]);
  });

  it("go round in no circle at all, type imports included, in the Workers' own code", () => {
    expect(circles([...worker, ...ingress], ["value", "type"])).toEqual([]);
  });

  it("go round in no circle of value imports, in the Workers, the scripts, the bench or the tests", () => {
    const everything = importGraph(ROOT, ["src", "ingress/src", "scripts", "bench", "test", "tests-e2e", "ingress/test"]);
    expect(valueCircles(everything)).toEqual([]);
  });
});
