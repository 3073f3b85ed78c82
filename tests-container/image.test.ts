/**
 * The built image, run by the Docker engine with nothing of the project's
 * around it: a command runs in it and answers, the first thing the
 * container backend relies on. Run by `npm run test:container`, which
 * builds the image first and names it in CONTAINER_TEST_IMAGE.
 */
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";

function image(): string {
  const tag = process.env.CONTAINER_TEST_IMAGE;
  if (!tag) throw new Error("CONTAINER_TEST_IMAGE is not set: run this suite with `npm run test:container`, which builds the image and names it");
  return tag;
}

/** Runs `argv` in a fresh container of the image, past computerd's entrypoint, and returns its stdout. */
function inImage(...argv: string[]): string {
  const [entrypoint, ...args] = argv;
  return execFileSync("docker", ["run", "--rm", "--platform", "linux/amd64", "--entrypoint", entrypoint!, image(), ...args], { encoding: "utf8" });
}

describe("the image", () => {
  it("runs a command: Node 22, the version the Dockerfile's base image promises", () => {
    expect(inImage("node", "--version")).toMatch(/^v22\.\d+\.\d+\n$/);
  });
});
