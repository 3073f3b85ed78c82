/**
 * `npm run test:container` as a command over a runner seam: ask the Docker
 * engine whether it answers, skip with one line when none does (fail under
 * REQUIRE_DOCKER=true, as the container workflow sets), else build the image
 * from Dockerfile with the arguments `wrangler deploy` passes and run the
 * tests-container/ suite against it. scripts/test-container.ts wires it.
 */
import { EXTERNAL_TOOLS } from "./external-tools";

/** One command as the runner starts it; `stdin` is written to it, `inherit` streams its output to ours. */
export type ContainerSuiteCommand = { command: string; args: string[]; stdin?: string; env?: Record<string, string>; inherit?: boolean };

export type ContainerSuiteDeps = {
  root: string;
  env: Record<string, string | undefined>;
  run: (command: ContainerSuiteCommand) => Promise<{ code: number }>;
  readFile: (path: string) => string;
  out: (text: string) => void;
  err: (text: string) => void;
};

/** The tag the suite builds and tests-container/ runs (CONTAINER_TEST_IMAGE tells the tests). */
export const CONTAINER_TEST_IMAGE = "agent-think-container-test:local";

/** What a run with no engine prints, alone on its line. */
export const SKIPPED_LINE = `skipped: ${EXTERNAL_TOOLS.docker.missing}; to run it: ${EXTERNAL_TOOLS.docker.install}`;

/** The engine probe: the same question wrangler asks before it builds. */
export const ENGINE_PROBE: ContainerSuiteCommand = { command: "docker", args: ["info"] };

/**
 * The image build as wrangler 4.164 runs it for a `dockerfile` container
 * (constructBuildCommand in its cli.js): --load, amd64, no provenance, the
 * Dockerfile on stdin and the Dockerfile's folder as the context, so the
 * context holds only what .dockerignore lets through.
 */
export function buildCommand(root: string, dockerfile: string, tag = CONTAINER_TEST_IMAGE): ContainerSuiteCommand {
  return {
    command: "docker",
    args: ["build", "--load", "-t", tag, "--platform", "linux/amd64", "--provenance=false", "-f", "-", root],
    stdin: dockerfile,
    inherit: true
  };
}

/** The suite itself, told which image to run. */
export function suiteCommand(tag = CONTAINER_TEST_IMAGE): ContainerSuiteCommand {
  return { command: "npx", args: ["vitest", "run", "--config", "tests-container/vitest.config.ts"], env: { CONTAINER_TEST_IMAGE: tag }, inherit: true };
}

/** Runs the suite; resolves to the process's exit code. */
export async function runContainerSuite(deps: ContainerSuiteDeps): Promise<number> {
  const engine = await deps.run(ENGINE_PROBE);
  if (engine.code !== 0) {
    if (deps.env.REQUIRE_DOCKER === "true") {
      deps.err(`test:container: ${EXTERNAL_TOOLS.docker.missing}, and REQUIRE_DOCKER=true says this machine must have one (${EXTERNAL_TOOLS.docker.install})\n`);
      return 1;
    }
    deps.out(`${SKIPPED_LINE}\n`);
    return 0;
  }
  const build = await deps.run(buildCommand(deps.root, deps.readFile(`${deps.root}/Dockerfile`)));
  if (build.code !== 0) {
    deps.err(`test:container: the image did not build (docker build exited ${build.code}); the suite did not run\n`);
    return build.code;
  }
  return (await deps.run(suiteCommand())).code;
}
