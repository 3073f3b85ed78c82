/**
 * A duplicate storm through the real entrypoint over real Durable Object
 * storage: 50 concurrent dispatches of one comment give one submission and
 * one user message, and duplicates of an accepted comment are answered from
 * the `agent-think:dispatch:<commentId>` record without storing their run context (a
 * redelivery's token does not replace the stored one). The guard's rules on
 * their own: test/unit/dispatch-once.test.ts.
 */
import { exports } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { RunContext } from "../src/run/run-context";
import { dispatchKey } from "../src/run/dispatch-once";
import { agentFor, uniqueRepo, waitForStatus } from "./helpers";

const STORM_CALLS = 50;

const dispatchInput = (overrides: Record<string, unknown> = {}) => ({
  repo: uniqueRepo(),
  issueNumber: 14,
  instruction: "TEST: reply ok",
  installationToken: "ghs_stormtesttoken0000000001",
  ...overrides
});

describe("duplicate storm", () => {
  it("gives 50 concurrent dispatches of one comment exactly one submission", async () => {
    const input = dispatchInput({ commentId: 5_000_001 });
    const results = await Promise.all(Array.from({ length: STORM_CALLS }, () => exports.AgentThink.dispatch(input)));
    const ids = new Set(results.map((result) => result.submissionId));
    expect(ids.size).toBe(1);
    const agent = await agentFor(results[0]!.session);
    await waitForStatus(agent, results[0]!.submissionId);
    expect(await agent.listSubmissions()).toHaveLength(1);
    expect((await agent.transcript()).filter((message) => message.role === "user")).toHaveLength(1);
    const recorded = await runInDurableObject(agent, (_instance, state) => state.storage.get<string>(dispatchKey(5_000_001)));
    expect(recorded).toBe(results[0]!.submissionId);
  });

  it("answers duplicates of an accepted comment without storing their run context", async () => {
    const input = dispatchInput({ commentId: 5_000_002 });
    const first = await exports.AgentThink.dispatch(input);
    const agent = await agentFor(first.session);
    await waitForStatus(agent, first.submissionId);
    const before = await runInDurableObject(agent, (_instance, state) => state.storage.get<RunContext>("agent-think:run-context"));
    const redelivery = { ...input, installationToken: "ghs_stormtesttoken0000000002" };
    const results = await Promise.all(Array.from({ length: STORM_CALLS }, () => exports.AgentThink.dispatch(redelivery)));
    expect(new Set(results.map((result) => result.submissionId))).toEqual(new Set([first.submissionId]));
    const after = await runInDurableObject(agent, (_instance, state) => state.storage.get<RunContext>("agent-think:run-context"));
    expect(after).toEqual(before);
    expect(await agent.listSubmissions()).toHaveLength(1);
  });

});
