/**
 * The App's own identity through real turns (src/run/bot-identity.ts): the
 * bot a dispatch names is stored with the run and is who the container's git
 * commits as, with GitHub's id and no lookup (and no credential: the
 * container holds none); a continuation takes the token
 * broker's bot, and so does a renewal; a run outside local dev with a token
 * and no bot anywhere is refused, saying what is missing, before anything is
 * stored. The marker search trusting the run's bot: test/reporting.test.ts;
 * a dispatch refused for want of one: test/dispatch.test.ts.
 */
import { env, exports } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ThinkAgent } from "../src/agent";
import { gitIdentityScript, identityMarker } from "../src/run/git-identity";
import type { RunContext } from "../src/run/run-context";
import { sessionName } from "../src/shared/session-name";
import { createService } from "../src/service";
import { agentFor, uniqueRepo, waitForStatus, waitForThread, type TestAgent } from "./helpers";
import { containerFor, type RecordingContainer } from "./support/containers";
import { TEST_BROKER_BOT } from "./worker";

const ISSUE = 12;
const TOKEN = "ghs_botIdentityTOKEN_000000000000";
/** An App other than the stand-in's, as GitHub would name it. */
const ACME = { login: "acme-think[bot]", id: 41898282 };

const production = env as unknown as { ProductionThinkAgent: DurableObjectNamespace<ThinkAgent> };

async function storedRun(agent: DurableObjectStub): Promise<RunContext | undefined> {
  return runInDurableObject(agent, (_instance, state) => state.storage.get<RunContext>("agent-think:run-context"));
}

/** The identity scripts the container was given, in order. */
const logins = (container: RecordingContainer) => container.identities();

describe("the bot a dispatch names", () => {
  it("is stored with the run, and the container's git commits as it, with GitHub's id and no lookup", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, ISSUE);
    const { container } = await containerFor(session);
    const { submissionId } = await exports.AgentThink.dispatch({
      repo,
      issueNumber: ISSUE,
      instruction: "TEST: container echo as-acme\nTEST: reply done",
      installationToken: TOKEN,
      bot: ACME
    });
    const agent = await agentFor(session);
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");

    expect((await storedRun(agent))?.bot).toEqual(ACME);
    expect(container.commands()).toEqual(["prepare: clone", "as-acme"]);
    const [login] = logins(container);
    expect(login).toBe(gitIdentityScript(ACME, await identityMarker(ACME)));
    expect(login).toContain(`login='${ACME.login}'`);
    expect(login).toContain(`id='${ACME.id}'`);
    expect(login).not.toContain("gh api");
  });

  it("gives way to the broker's when a renewal names one, and git commits as that", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, ISSUE);
    const { container } = await containerFor(session);
    const dispatched = { login: TEST_BROKER_BOT.login, id: 1234 };
    const { submissionId } = await exports.AgentThink.dispatch({
      repo,
      issueNumber: ISSUE,
      instruction: "TEST: container echo renewed\nTEST: reply done",
      installationToken: TOKEN,
      // Already expired: the first step renews it through the broker.
      installationTokenExpiresAt: new Date(Date.now() - 60_000).toISOString(),
      bot: dispatched
    });
    const agent = await agentFor(session);
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");

    const minted = `ghs_testMinted_${repo.replace(/\W/g, "_")}`;
    expect(await storedRun(agent)).toMatchObject({ installationToken: minted, bot: TEST_BROKER_BOT });
    // The clone before the model's first step commits as the dispatched bot; the renewal before that step names the broker's, which the next container command sets up.
    expect(logins(container)).toEqual([
      gitIdentityScript(dispatched, await identityMarker(dispatched)),
      gitIdentityScript(TEST_BROKER_BOT, await identityMarker(TEST_BROKER_BOT))
    ]);
  });
});

describe("a continuation", () => {
  it("takes the token broker's bot, through the dashboard's Continue", async () => {
    const repo = uniqueRepo();
    const { session, submissionId } = await exports.AgentThink.dispatch({
      repo,
      issueNumber: ISSUE,
      instruction: "TEST: fail-once the model fell over\nTEST: reply recovered",
      installationToken: ""
    });
    const agent = await agentFor(session);
    expect((await waitForStatus(agent, submissionId)).status).toBe("error");
    await waitForThread(session, (thread) => thread.status === "error");
    expect((await storedRun(agent))?.bot).toBeUndefined();

    const outcome = await createService(env).continueRun(session);
    expect(outcome.ok).toBe(true);
    expect((await storedRun(agent))?.bot).toEqual(TEST_BROKER_BOT);
    if (outcome.ok) expect((await waitForStatus(agent, outcome.result.submissionId)).status).toBe("completed");
  });

  it("outside local dev, with no bot from the broker or the run and no BOT_LOGIN, is refused and stores nothing", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, ISSUE);
    const agent = (await agentFor(session, production.ProductionThinkAgent)) as unknown as TestAgent & DurableObjectStub;
    // No token, no GitHub access: a run that needs no bot.
    const first = await agent.startRun({ session, repo, issueNumber: ISSUE, instruction: "TEST: reply done", installationToken: "" });
    await waitForStatus(agent, first.submissionId);
    const before = await storedRun(agent);

    // In the object, not over RPC: workerd prints an RPC method's rejection as uncaught even when it is caught.
    await expect(runInDurableObject(agent, (instance: ThinkAgent) => instance.continueRun({ installationToken: TOKEN }))).rejects.toThrow(
      /bot identity is missing: the webhook app sends it with each dispatch .*set BOT_LOGIN/
    );
    expect(await storedRun(agent)).toEqual(before);
    expect(await agent.listSubmissions()).toHaveLength(1);

    // The broker's bot is enough.
    const continued = await agent.continueRun({ installationToken: TOKEN, bot: TEST_BROKER_BOT });
    expect(await storedRun(agent)).toMatchObject({ installationToken: TOKEN, bot: TEST_BROKER_BOT });
    await waitForStatus(agent, continued.submissionId);
  });

  it("outside local dev, keeps the run's own bot when the broker names none", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, ISSUE);
    const agent = (await agentFor(session, production.ProductionThinkAgent)) as unknown as TestAgent & DurableObjectStub;
    const first = await agent.startRun({ session, repo, issueNumber: ISSUE, instruction: "TEST: reply done", installationToken: TOKEN, bot: ACME });
    await waitForStatus(agent, first.submissionId);

    const continued = await agent.continueRun({ installationToken: `${TOKEN}2` });
    expect(await storedRun(agent)).toMatchObject({ installationToken: `${TOKEN}2`, bot: ACME });
    await waitForStatus(agent, continued.submissionId);
  });

  it("outside local dev, refuses a run started with a token and no bot", async () => {
    const repo = uniqueRepo();
    const session = sessionName(repo, ISSUE);
    const agent = (await agentFor(session, production.ProductionThinkAgent)) as unknown as TestAgent & DurableObjectStub;
    await expect(
      runInDurableObject(agent, (instance: ThinkAgent) =>
        instance.startRun({ session, repo, issueNumber: ISSUE, instruction: "TEST: reply done", installationToken: TOKEN })
      )
    ).rejects.toThrow(/bot identity is missing/);
    expect(await storedRun(agent)).toBeUndefined();
    expect(await agent.listSubmissions()).toEqual([]);
  });
});
