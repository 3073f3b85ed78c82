/**
 * `npm run test:container`: the real-container suite. Where no Docker engine
 * answers it prints one "skipped: ..." line and exits 0; where one does it
 * builds the image from Dockerfile as `wrangler deploy` would and runs
 * tests-container/ against it. The decision is scripts/lib/container-suite.ts.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type ContainerSuiteCommand, runContainerSuite } from "./lib/container-suite";

const root = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");

/** Starts one command from the checkout; the probe's output stays quiet, the build and the suite stream theirs. */
function run({ command, args, stdin, env, inherit }: ContainerSuiteCommand): Promise<{ code: number }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: [stdin === undefined ? "ignore" : "pipe", inherit ? "inherit" : "ignore", inherit ? "inherit" : "ignore"]
    });
    // A missing docker binary is the same answer as an engine that does not reply.
    child.on("error", () => resolve({ code: 127 }));
    child.on("close", (code) => resolve({ code: code ?? 1 }));
    if (stdin !== undefined) child.stdin?.end(stdin);
  });
}

process.exitCode = await runContainerSuite({
  root,
  env: process.env,
  run,
  readFile: (path) => readFileSync(path, "utf8"),
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text)
});
