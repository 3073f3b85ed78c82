/**
 * The webhook app's test worker: the real ingress Worker plus a recording
 * stand-in for the agent Worker's `AgentThink` entrypoint (AGENT_THINK in
 * test/wrangler.jsonc), with the same `dispatch` and `recordPullRequest`
 * signatures. It records each call (a refusing agent is refusingAgentEnv in
 * support/ingress.ts, in the test's isolate). A stop (the agent Worker's
 * grammar) answers as the agent does: the run it stopped, or "" when
 * nothing was running (unless it says SOMETHING_RUNNING). Under wrangler
 * dev (the bench) `GET /__recorded/dispatches` reports what it recorded.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { isStopInstruction, type DispatchInput, type DispatchResult } from "../../src/shared/dispatch";
import type { PullRequestEvent, PullRequestRecordResult } from "../../src/shared/command-center-events";
import ingress from "../src/index";
import { RECORDED_PATH, SOMETHING_RUNNING } from "./support/recording";

export { AgentThinkTokenBroker, CommentClaim } from "../src/index";


export class RecordingAgentThink extends WorkerEntrypoint<Env> {
  static calls: DispatchInput[] = [];
  /** Every pull request change handed over (`recordPullRequest`), in order. */
  static pullRequests: PullRequestEvent[] = [];

  /** Applied the first time a change is seen, a duplicate after, as the command center answers. */
  async recordPullRequest(event: PullRequestEvent): Promise<PullRequestRecordResult> {
    const seen = RecordingAgentThink.pullRequests.some((known) => JSON.stringify(known) === JSON.stringify(event));
    RecordingAgentThink.pullRequests.push(event);
    return seen ? { applied: false, reason: "duplicate" } : { applied: true };
  }

  async dispatch(input: DispatchInput): Promise<DispatchResult> {
    RecordingAgentThink.calls.push(input);
    const session = `${input.repo.toLowerCase().replace("/", "-")}-${input.issueNumber}`;
    const idle = isStopInstruction(input.instruction) && !input.instruction.includes(SOMETHING_RUNNING);
    return { session, threadUrl: `https://agent-think.test/thread/${session}`, submissionId: idle ? "" : `submission-${input.commentId}` };
  }
}

export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname === RECORDED_PATH) {
      const calls = RecordingAgentThink.calls;
      return Response.json({ count: calls.length, commentIds: calls.map((call) => call.commentId) });
    }
    return ingress.fetch(request, env, ctx);
  }
} satisfies ExportedHandler<Env>;
