/**
 * The skills reach a real turn through Think's R2 skill source: with the
 * repository's SKILL.md files in the bucket (as `npm run seed:r2` puts
 * them), the model can activate a skill and gets its instructions.
 */
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import openPr from "../skills/open-pr/SKILL.md?raw";
import reproduce from "../skills/reproduce/SKILL.md?raw";
import addressReview from "../skills/address-review/SKILL.md?raw";
import { sessionName } from "../src/shared/session-name";
import { agentFor, toolParts, uniqueRepo, waitForStatus } from "./helpers";

beforeAll(async () => {
  await env.SKILLS_BUCKET.put("skills/reproduce/SKILL.md", reproduce);
  await env.SKILLS_BUCKET.put("skills/open-pr/SKILL.md", openPr);
  await env.SKILLS_BUCKET.put("skills/address-review/SKILL.md", addressReview);
});

/** Run the scripted `instruction` on a fresh issue and return its first tool call. */
async function firstToolCall(instruction: string) {
  const repo = uniqueRepo();
  const session = sessionName(repo, 2);
  const agent = await agentFor(session);
  const { submissionId } = await agent.startRun({ session, repo, issueNumber: 2, instruction, installationToken: "" });
  expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
  return toolParts(await agent.transcript())[0];
}

describe("skills from R2", () => {
  it("lets the model activate the reproduce skill and read its instructions", async () => {
    const activation = await firstToolCall("TEST: skill reproduce\nTEST: reply activated");
    expect(activation).toMatchObject({ type: "tool-activate_skill", state: "output-available" });
    const output = JSON.stringify(activation!.output);
    // The skill's own steps; the envelope and the rules are the system prompt's (src/run/run-contract.ts).
    expect(output).toContain("Decide the outcome by the evidence");
    expect(output).toContain("/opt/agent-think/repro-app");
  });

  it("lets the model activate address-review, which pushes only where the workspace block allows", async () => {
    const activation = await firstToolCall("TEST: skill address-review\nTEST: reply activated");
    expect(activation).toMatchObject({ type: "tool-activate_skill", state: "output-available" });
    const output = JSON.stringify(activation!.output);
    expect(output).toContain("pushBranch");
    expect(output).toContain("patch-suggested");
  });

  it("refuses a skill the bucket does not hold, as a tool error the model sees", async () => {
    const activation = await firstToolCall("TEST: skill deploy-to-prod\nTEST: reply ok");
    expect(activation).toMatchObject({ type: "tool-activate_skill", state: "output-error" });
  });
});
