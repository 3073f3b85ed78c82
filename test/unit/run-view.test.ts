/**
 * The session's run as a ThinkAgent's collaborators read it
 * (src/steps/run-view.ts): the running turn's context carries its own
 * submission's tier and CI failures, held to the session's tier; a run's
 * messages know where they go and who continues them; the bot is the run's,
 * else the configuration's, else none.
 */
import { describe, expect, it } from "vitest";
import type { RunContext } from "../../src/run/run-context";
import { RunView } from "../../src/steps/run-view";

const HEAD = "c".repeat(40);
const ci = { headSha: HEAD, failures: [{ name: "test", conclusion: "failure" as const, excerpt: "FAIL" }] };
const RUN: RunContext = { repo: "acme/widgets", issueNumber: 7, instruction: "x", installationToken: "", bot: { login: "agent-think[bot]", id: 9001 }, updatedAt: 1 };

function view(options: { run?: RunContext; turn?: boolean; metadata?: Record<string, unknown>; reporter?: boolean; env?: { LOCAL_DEV?: string; BOT_LOGIN?: string } } = {}) {
  return new RunView({
    runs: { get: async () => options.run },
    activeTurn: { current: async () => (options.turn === false ? null : { session: "acme-widgets-7", submissionId: "sub-1" }) },
    trust: { turn: <T extends RunContext | undefined>(run: T) => (run && options.reporter ? { ...run, tier: "reporter" as const } : run) },
    inspect: async (submissionId) => (submissionId === "sub-1" ? { metadata: options.metadata ?? {} } : null),
    session: () => "acme-widgets-7",
    env: { PUBLIC_BASE_URL: "https://agent-think.test", ...(options.env ?? {}) },
    githubApiUrl: () => "https://api.github.com"
  });
}

describe("RunView", () => {
  it("gives the running turn its own submission's tier and CI failures, and a reporter session's always the reporter's", async () => {
    expect(await view({ run: RUN, metadata: { ci, tier: "reporter" } }).turnRun()).toMatchObject({ ci, tier: "reporter" });
    expect(await view({ run: { ...RUN, ci }, metadata: {} }).turnRun()).not.toHaveProperty("ci");
    expect(await view({ run: RUN, metadata: {}, reporter: true }).turnRun()).toMatchObject({ tier: "reporter" });
    // No turn: the run context as stored; no run: nothing.
    expect(await view({ run: { ...RUN, ci }, turn: false }).turnRun()).toMatchObject({ ci });
    expect(await view({ turn: true }).turnRun()).toBeUndefined();
  });

  it("says where a run's messages go, who asked, and the handle that continues it", async () => {
    const ref = await view({ run: RUN }).runRef("sub-1", { requestedBy: "maria", continuation: true });
    expect(ref).toMatchObject({
      repo: "acme/widgets",
      issueNumber: 7,
      submissionId: "sub-1",
      threadUrl: "https://agent-think.test/thread/acme-widgets-7",
      githubWebUrl: "https://github.com",
      requestedBy: "maria",
      continueHandle: "@agent-think",
      continued: true
    });
    expect(await view().runRef("sub-1")).toBeNull();
  });

  it("acts as the run's bot, else BOT_LOGIN, else none outside local dev", () => {
    expect(view().botLogin(RUN)).toBe("agent-think[bot]");
    expect(view({ env: { BOT_LOGIN: "other[bot]" } }).botLogin({ ...RUN, bot: undefined })).toBe("other[bot]");
    expect(view({ env: {} }).botLogin({ ...RUN, bot: undefined })).toBeUndefined();
  });
});
