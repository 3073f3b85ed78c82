/**
 * `npm run test:container`'s decision up to the Docker engine's seam
 * (scripts/lib/container-suite.ts): no engine, one skipped line and exit 0
 * (or a failure where REQUIRE_DOCKER=true); an engine, the image built with
 * the arguments wrangler deploy uses, then the suite against that image; a
 * failed build stops there. The engine's side is tests-container/.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { present } from "../../scripts/lib/external-tools";
import { CONTAINER_TEST_IMAGE, type ContainerSuiteCommand, runContainerSuite } from "../../scripts/lib/container-suite";

const ROOT = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const PACKAGE = JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8")) as { scripts: Record<string, string> };

/** Runs the suite against answers keyed by command line; records what it ran and printed. */
async function suite(answers: Record<string, number>, env: Record<string, string> = {}) {
  const ran: ContainerSuiteCommand[] = [];
  const out: string[] = [];
  const err: string[] = [];
  const code = await runContainerSuite({
    root: "/checkout",
    env,
    run: async (command) => {
      ran.push(command);
      const line = [command.command, ...command.args].join(" ");
      const answer = answers[line];
      if (answer === undefined) throw new Error(`unexpected command: ${line}`);
      return { code: answer };
    },
    readFile: (path) => (path === "/checkout/Dockerfile" ? "FROM scratch\n" : ""),
    out: (text) => out.push(text),
    err: (text) => err.push(text)
  });
  return { code, ran, out: out.join(""), err: err.join("") };
}

const BUILD = `docker build --load -t ${CONTAINER_TEST_IMAGE} --platform linux/amd64 --provenance=false -f - /checkout`;
const SUITE = "npx vitest run --config tests-container/vitest.config.ts";

describe("npm run test:container", () => {
  it("is the script package.json names", () => {
    expect(PACKAGE.scripts["test:container"]).toBe("tsx scripts/test-container.ts");
  });

  it("prints one skipped line and exits 0 when no Docker engine answers, asking nothing more", async () => {
    const run = await suite({ "docker info": 1 });
    expect(run.code).toBe(0);
    expect(run.out).toBe("skipped: no Docker engine answers; to run it: a Docker engine that answers `docker info`\n");
    expect(run.err).toBe("");
    expect(run.ran.map((command) => command.command + " " + command.args.join(" "))).toEqual(["docker info"]);
  });

  it("fails instead of skipping where REQUIRE_DOCKER=true (the container workflow) and no engine answers", async () => {
    const run = await suite({ "docker info": 1 }, { REQUIRE_DOCKER: "true" });
    expect(run.code).toBe(1);
    expect(run.out).toBe("");
    expect(run.err).toMatch(/^test:container: no Docker engine answers, and REQUIRE_DOCKER=true says this machine must have one/);
  });

  it("builds the image as wrangler deploy does, the Dockerfile on stdin, then runs the suite against that image", async () => {
    const run = await suite({ "docker info": 0, [BUILD]: 0, [SUITE]: 0 });
    expect(run.code).toBe(0);
    expect(run.out).toBe("");
    expect(run.ran.map((command) => [command.command, ...command.args].join(" "))).toEqual(["docker info", BUILD, SUITE]);
    expect(run.ran[1]).toMatchObject({ stdin: "FROM scratch\n", inherit: true });
    expect(run.ran[2]).toMatchObject({ env: { CONTAINER_TEST_IMAGE }, inherit: true });
  });

  it("passes on the suite's failure as its exit code", async () => {
    const run = await suite({ "docker info": 0, [BUILD]: 0, [SUITE]: 1 });
    expect(run.code).toBe(1);
  });

  it("stops at a failed build with its exit code and says the suite did not run", async () => {
    const run = await suite({ "docker info": 0, [BUILD]: 2 });
    expect(run.code).toBe(2);
    expect(run.ran).toHaveLength(2);
    expect(run.err).toBe("test:container: the image did not build (docker build exited 2); the suite did not run\n");
  });

  // The real script, where no engine answers (where one does, it would build for minutes: that is tests-container/'s job).
  it.skipIf(present("docker"))("run for real without an engine, it prints the skipped line and exits 0", () => {
    const result = spawnSync(`${ROOT}/node_modules/.bin/tsx`, ["scripts/test-container.ts"], { cwd: ROOT, encoding: "utf8", env: { ...process.env, REQUIRE_DOCKER: "" } });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe("skipped: no Docker engine answers; to run it: a Docker engine that answers `docker info`\n");
  });
});
