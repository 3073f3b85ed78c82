/**
 * A reproduction page from a real turn to a real response: the scripted
 * model writes a built page into the issue's workspace and publishes it
 * with publish_reproduction; the Worker then serves it, sandboxed, at the
 * URL the tool returned.
 */
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sessionName } from "../src/run/session-name";
import { agentFor, toolParts, uniqueRepo, waitForStatus } from "./helpers";

describe("publish_reproduction", () => {
  it("publishes the built page from the workspace and the Worker serves it at the returned URL", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, 5);
    const agent = await agentFor(session);
    const instruction = [
      "TEST: write /workspace/repro/dist/index.html <!doctype html><button id=trigger>Trigger bug</button><script type=module crossorigin src=./assets/app.js></script>",
      "TEST: write /workspace/repro/dist/assets/app.js document.getElementById('trigger').onclick = () => (document.body.dataset.clicked = 'yes');",
      "TEST: publish /workspace/repro/dist",
      "TEST: reply published"
    ].join("\n");
    const { submissionId } = await agent.startRun({ session, repo, issueNumber: 5, instruction, installationToken: "" });
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
    const publish = toolParts(await agent.transcript()).find((part) => part.type === "tool-publish_reproduction");
    const url = `https://agent-think.test/repro/${session}/`;
    expect(publish?.output).toEqual({ published: true, url, files: 2, bytes: expect.any(Number), removed: 0 });

    const page = await exports.default.fetch(url);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toMatch(/^sandbox allow-scripts/);
    expect(await page.text()).toContain("Trigger bug");
    const script = await exports.default.fetch(`${url}assets/app.js`);
    expect(script.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await script.text()).toContain("clicked");
  });

  it("answers the model with what is wrong when there is no built page", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, 5);
    const agent = await agentFor(session);
    const { submissionId } = await agent.startRun({
      session,
      repo,
      issueNumber: 5,
      instruction: "TEST: publish /workspace/nothing-here\nTEST: reply ok",
      installationToken: ""
    });
    await waitForStatus(agent, submissionId);
    const publish = toolParts(await agent.transcript()).find((part) => part.type === "tool-publish_reproduction");
    expect(publish?.output).toEqual({ published: false, error: "/workspace/nothing-here does not exist: build the page first" });
    expect((await exports.default.fetch(`https://agent-think.test/repro/${session}/`)).status).toBe(404);
  });
});
