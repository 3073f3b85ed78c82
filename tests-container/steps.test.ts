/**
 * The image through the project's real paths, one step at a time: wrangler
 * dev with containers on, the real Sandbox, ContainerBackend and computerd,
 * the egress gateway, the scripted model (tests-container/world.ts). Each
 * step's runs and judge are in scripts/lib/container-steps.ts, unit-tested
 * without an engine; here they meet the real container. Run by
 * `npm run test:container`, which builds the image first.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CONTAINER_STEPS } from "../scripts/lib/container-steps";
import { startContainerWorld, type ContainerWorld } from "./world";

let world: ContainerWorld | undefined;

beforeAll(async () => {
  world = await startContainerWorld(CONTAINER_STEPS);
});
afterAll(async () => world?.close());

describe("the container, for real", () => {
  for (const step of CONTAINER_STEPS) {
    it(`${step.id}: ${step.shows}`, async () => {
      if (!world) throw new Error("the suite's world did not start");
      const { observed, ctx } = await world.run(step);
      expect(step.judge(observed, ctx), `issue ${ctx.issueNumber} on ${ctx.repo}; wrangler's output:\n${world.logs()}`).toEqual([]);
    });
  }
});
