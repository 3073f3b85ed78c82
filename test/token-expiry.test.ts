/**
 * Installation tokens expire after an hour; a run may take longer. In real
 * turns, a run whose dispatch token is about to expire gets a fresh one from
 * the token broker (TestTokenBroker in test/worker.ts) before the next model
 * step, or when the egress gateway next asks for the run's grant, so the
 * sandbox's next push goes with the fresh token (the grant is read while a
 * recording container's command runs, as the container's own requests
 * would be answered then). The hour runs down where the test says: the
 * stored expiry is moved inside the margin while a command runs, as the
 * clock would move it, so no test waits for it or races it. The container
 * itself never holds one. The token
 * it replaced is revoked. A token handed over later (a `stop` comment's, a
 * continuation's) is kept with its expiry too. The rule alone, on a fake
 * clock: test/unit/run-token.test.ts.
 */
import { exports } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LOG_PREFIX } from "../src/run/log";
import type { RunContext } from "../src/run/run-context";
import { TOKEN_REFRESH_MARGIN_MS } from "../src/run/run-token";
import { sessionName } from "../src/shared/session-name";
import { agentFor, captureConsole, uniqueRepo, waitForStatus, type TestAgent } from "./helpers";
import { containerFor, type RecordingContainer } from "./support/containers";
import { TestTokenBroker } from "./worker";

const ISSUE = 11;
/** Half an hour: well outside the renewal margin, however long the run takes to get going. */
const TIME_LEFT_MS = 30 * 60_000;

/**
 * A run on a new issue with a recording container, dispatched with a token
 * expiring at `expiresAt`, followed to its end with the console captured.
 * While the command `runsDown.mark` runs, the stored token's expiry moves
 * inside the margin, `before` or `after` the gateway is asked for that
 * command's grant.
 */
async function run(instruction: string, expiresAt: number, runsDown?: { mark: string; when: "before" | "after" }) {
  const repo = uniqueRepo();
  const session = sessionName(repo, ISSUE);
  const { container } = await containerFor(session);
  // What the gateway would attach to a push while each marked command runs.
  const pushedWith = new Map<string, string>();
  // Each mark's own command only (a bare "one" would match other scripts' words, "done" and "none").
  const marks: Record<string, RegExp> = { before: /\becho before\b/, "gh auth token": /\bgh auth token\b/, one: /\becho one\b/ };
  for (const [mark, pattern] of Object.entries(marks)) {
    container.during(pattern, async () => {
      const agent = (await agentFor(session)) as TestAgent;
      const runDown = runsDown?.mark === mark ? () => expiresSoon(agent) : async () => {};
      if (runsDown?.when === "before") await runDown();
      const push = await agent.egressGrant({ url: `https://github.com/${repo}.git/git-receive-pack`, method: "POST" });
      pushedWith.set(mark, push.grant.writeToken);
      if (runsDown?.when === "after") await runDown();
    });
  }
  const installationToken = `ghs_dispatched_${crypto.randomUUID().replaceAll("-", "")}`;
  const { result, lines } = await captureConsole(async () => {
    const { submissionId } = await exports.AgentThink.dispatch({
      repo,
      issueNumber: ISSUE,
      instruction,
      installationToken,
      installationTokenExpiresAt: new Date(expiresAt).toISOString(),
      commentId: 1
    });
    const agent = await agentFor(session);
    return { agent, status: await waitForStatus(agent, submissionId) };
  });
  return {
    ...result,
    repo,
    container,
    pushedWith,
    installationToken,
    // What TestTokenBroker mints for this repository.
    minted: `ghs_testMinted_${repo.replace(/\W/g, "_")}`,
    events: lines
      .filter((line) => line.startsWith(LOG_PREFIX))
      .map((line) => JSON.parse(line.slice(LOG_PREFIX.length)) as Record<string, unknown>)
      .filter((event) => event.session === session)
  };
}

const RUN_CONTEXT_KEY = "agent-think:run-context";

/** The run context as stored: the token and when it expires. */
async function storedRun(agent: DurableObjectStub): Promise<RunContext | undefined> {
  return runInDurableObject(agent, (_instance, state) => state.storage.get<RunContext>(RUN_CONTEXT_KEY));
}

/** The stored token's hour runs down: a minute less than the margin left, as the clock would leave it. */
async function expiresSoon(agent: object): Promise<void> {
  await runInDurableObject(agent as DurableObjectStub, async (_instance, state) => {
    const run = await state.storage.get<RunContext>(RUN_CONTEXT_KEY);
    if (run) await state.storage.put<RunContext>(RUN_CONTEXT_KEY, { ...run, tokenExpiresAt: Date.now() + TOKEN_REFRESH_MARGIN_MS - 60_000 });
  });
}

/** Nothing the container was given holds a token of the run's. */
function expectNoTokenIn(container: RecordingContainer, tokens: string[]): void {
  expect(container.stdins()).toEqual([]);
  for (const recorded of container.runs) for (const token of tokens) expect(recorded.script).not.toContain(token);
}

describe("a run whose token expires", () => {
  it("never uses a dispatched token that has already expired: the first step renews it, and the gateway pushes with the fresh one", async () => {
    const { agent, status, repo, container, pushedWith, installationToken, minted } = await run("TEST: container gh auth token\nTEST: reply done", Date.now() - 60_000);
    expect(status.status).toBe("completed");

    expect(TestTokenBroker.minted).toContain(repo);
    expect(pushedWith.get("gh auth token")).toBe(minted);
    expectNoTokenIn(container, [installationToken, minted]);
    const stored = await storedRun(agent);
    expect(stored?.installationToken).toBe(minted);
    // The broker's expiry is kept with the token: an hour from when it was minted.
    expect(stored!.tokenExpiresAt! - Date.now()).toBeGreaterThan(50 * 60_000);
  });

  it("renews it before the next model step once it is within the margin, and the gateway pushes with the fresh one", async () => {
    const { agent, status, container, pushedWith, installationToken, minted, events } = await run(
      ["TEST: container echo before", "TEST: tools 2", "TEST: container gh auth token", "TEST: reply done"].join("\n"),
      Date.now() + TIME_LEFT_MS,
      { mark: "before", when: "after" }
    );
    expect(status.status).toBe("completed");

    // The step after the command renewed it before its model call: before the first listing, with no grant asked
    // since the hour ran down (the gateway's last was before it, during `before`) and no bash until the second.
    const order = events.filter((event) => event.event === "token:refreshed" || event.event === "tool").map((event) => event.tool ?? event.event);
    expect(order).toEqual(["bash", "token:refreshed", "ls", "ls", "bash"]);
    expect(events.find((event) => event.event === "token:refreshed")).toMatchObject({ reason: "expiring" });
    expect(pushedWith.get("before")).toBe(installationToken);
    expect(pushedWith.get("gh auth token")).toBe(minted);
    expect((await storedRun(agent))?.installationToken).toBe(minted);
    expectNoTokenIn(container, [installationToken, minted]);
  });

  it("renews it when the gateway next needs it, so the sandbox's next request already goes with the fresh token", async () => {
    const { status, pushedWith, installationToken, minted, events } = await run(
      ["TEST: container echo before", "TEST: container gh auth token", "TEST: reply done"].join("\n"),
      Date.now() + TIME_LEFT_MS,
      { mark: "gh auth token", when: "before" }
    );
    expect(status.status).toBe("completed");

    // The step began with time left on the token; it ran down during the step's command, and the gateway's grant renewed it.
    expect(pushedWith.get("before")).toBe(installationToken);
    expect(pushedWith.get("gh auth token")).toBe(minted);
    const order = events.filter((event) => event.event === "token:refreshed" || event.event === "tool").map((event) => event.tool ?? event.event);
    expect(order).toEqual(["bash", "token:refreshed", "bash"]);
  });

  it("keeps a token with time left", async () => {
    const { status, repo, pushedWith, installationToken } = await run("TEST: container echo one\nTEST: reply done", Date.now() + TIME_LEFT_MS);
    expect(status.status).toBe("completed");
    expect(TestTokenBroker.minted).not.toContain(repo);
    expect(pushedWith.get("one")).toBe(installationToken);
  });
});

describe("a token handed to a run later", () => {
  it("is stored with its expiry: a `stop` comment's, then a continuation's", async () => {
    const repo = uniqueRepo();
    const dispatched = (token: string, instruction: string, expiresAt: string, commentId: number) =>
      exports.AgentThink.dispatch({
        repo,
        issueNumber: ISSUE,
        instruction,
        installationToken: token,
        installationTokenExpiresAt: expiresAt,
        commentId
      });
    const first = await dispatched("ghs_first_token_0000000000000", "TEST: reply done", "2031-01-01T00:00:00Z", 1);
    const agent = await agentFor(first.session);
    await waitForStatus(agent, first.submissionId);

    await dispatched("ghs_stop_token_00000000000000", "stop", "2031-01-01T01:00:00+01:00", 2);
    expect(await storedRun(agent)).toMatchObject({
      installationToken: "ghs_stop_token_00000000000000",
      tokenExpiresAt: Date.parse("2031-01-01T00:00:00Z")
    });

    const continued = await agent.continueRun({
      installationToken: "ghs_continued_token_000000000",
      installationTokenExpiresAt: "2031-01-01T02:00:00Z"
    });
    expect(await storedRun(agent)).toMatchObject({
      installationToken: "ghs_continued_token_000000000",
      tokenExpiresAt: Date.parse("2031-01-01T02:00:00Z")
    });
    await waitForStatus(agent, continued.submissionId);
  });
});
