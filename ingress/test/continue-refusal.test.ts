/**
 * A `continue` the agent Worker refuses because the issue has no failed
 * run to continue, as the refusal arrives over RPC (its message only): 😕,
 * and one comment to the maintainer with the agent's reason; the marker
 * says `refused`, `reason: nothing_to_continue`. A continue that the agent
 * takes is an ordinary dispatch; other refusals keep their own comments
 * (start-run.test.ts, monthly-budget.test.ts).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { NothingToContinueError } from "../../src/shared/continue-refusal";
import { githubServer } from "./support/github";
import { agentRefusingWith, captureConsole, commentPayload, dispatchesFor, logEvents, marker, send, sign } from "./support/ingress";

const { calls, use: github } = githubServer();

async function deliver(payload: ReturnType<typeof commentPayload>, agentEnv: Env) {
  const { result: response, lines } = await captureConsole(async () => send(await sign(payload), { env: agentEnv }));
  return { response, events: logEvents(lines) };
}

const posted = () => calls.filter((call) => call.method === "POST" && /\/issues\/\d+\/comments$/.test(call.path));
const reactions = () => calls.filter((call) => call.path.endsWith("/reactions")).map((call) => (call.body as { content: string }).content);

describe("a continue with nothing to continue", () => {
  beforeEach(() => {
    github();
    calls.length = 0;
  });

  it("gets 😕 and a comment saying why, to the maintainer who asked", async () => {
    const payload = commentPayload({ body: "@agent-think continue" });
    const { response, events } = await deliver(payload, agentRefusingWith(() => new NothingToContinueError("running").message));
    expect(response.status).toBe(202);
    expect(dispatchesFor(payload.comment.id).map((input) => input.instruction)).toEqual(["continue"]);
    expect(reactions()).toEqual(["eyes", "confused"]);
    expect(posted()).toHaveLength(1);
    expect((posted()[0]!.body as { body: string }).body).toBe(
      `<!-- agent-think-ingress:not-started comment=${payload.comment.id} -->\n` +
        "@octocat nothing to continue: the run on this issue is still going. It can be continued once it fails or goes quiet; `stop` ends it."
    );
    expect(events).toContainEqual(expect.objectContaining({ event: "delivery:refused", reason: "nothing_to_continue", commentId: payload.comment.id }));
    expect(events.map((event) => event.event)).not.toContain("dispatch:failed");
    expect(await marker(payload.comment.id)).toMatchObject({ state: "refused", reason: "nothing_to_continue" });
  });
});
