/**
 * The real-container suite's host side (tests-container/world.ts), run here
 * with no container engine: the git server, the stand-in, the UDP listener
 * and wrangler dev start, a step's runs are dispatched and read back, and
 * the judge names what is missing (no container). The worker shell's curl
 * goes through the same egress gateway, so it shows GITHUB_GIT_URL sending
 * git to the host's server, as the container's git will.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTAINER_STEPS, type ContainerStep } from "../scripts/lib/container-steps";
import { startContainerWorld, type ContainerWorld } from "../tests-container/world";
import { lacks, needs } from "../test/support/external-tools";

const START_TIMEOUT_MS = 120_000;
let world: ContainerWorld | undefined;

const advertisement: ContainerStep = {
  id: "shell-git",
  shows: "the worker shell reads the repository's ref advertisement through the gateway",
  runs: () => [['TEST: run curl -s "https://github.com/acme/widgets.git/info/refs?service=git-upload-pack"', "TEST: reply done"].join("\n")],
  judge: () => []
};

describe(`the real-container suite's world, without an engine${needs("git-http-backend")}`, { skip: lacks("git-http-backend") }, () => {
  beforeAll(async () => {
    world = await startContainerWorld(CONTAINER_STEPS, { containers: false });
  }, START_TIMEOUT_MS);
  afterAll(async () => world?.close());

  it("a step's runs are dispatched and read back, and its judge says the container command could not run", async () => {
    const step = CONTAINER_STEPS.find((candidate) => candidate.id === "command")!;
    const { observed, ctx } = await world!.run(step);
    expect(observed.statuses).toEqual(["completed"]);
    expect(observed.commands).toEqual([{ command: "node --version && echo from-the-container", stdout: "", stderr: "", error: expect.stringMatching(/^container backend unavailable/) }]);
    expect(observed.refs.before["refs/heads/main"]).toMatch(/^[0-9a-f]{40}$/);
    expect(observed.udp).toEqual({ received: 0, control: true });
    expect(step.judge(observed, ctx)).toEqual(expect.arrayContaining([expect.stringMatching(/^a command could not run: .*container backend unavailable/)]));
  });

  it("GITHUB_GIT_URL: git's requests for the deploy's GitHub reach the host's git server through the gateway", async () => {
    const { observed } = await world!.run(advertisement);
    const [curl] = observed.tools.filter((call) => call.tool === "bash");
    const stdout = (curl?.output as { stdout?: { text?: string } } | undefined)?.stdout?.text ?? "";
    expect(stdout, world!.logs()).toContain("# service=git-upload-pack");
    expect(stdout).toMatch(/[0-9a-f]{40} refs\/heads\/main/);
  });
});
