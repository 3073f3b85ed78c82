/**
 * The AgentThink RPC contracts, through the real entrypoint class over real
 * Durable Object storage: dispatch's result shape, idempotency per comment,
 * FIFO turns in one session, distinct sessions per issue, status that leaks
 * nothing, reset, and bad input that writes nothing: a malformed field, a
 * configuration that cannot run (dispatch and Continue both refuse each
 * model configuration that cannot work), a token with no App's bot to act
 * as, or a repository outside ALLOWED_REPOS.
 */
import { env, exports } from "cloudflare:workers";
import { listDurableObjectIds } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { parseEnvelope } from "../src/run/envelope";
import { sessionName } from "../src/shared/session-name";
import { createService } from "../src/service";
import { agentFor, gate, uniqueRepo, waitForStatus, waitForThread } from "./helpers";
import { containerFor } from "./support/containers";

const entry = () => exports.AgentThink;

const dispatchInput = (overrides: Record<string, unknown> = {}) => ({
  repo: uniqueRepo(),
  issueNumber: 1859,
  instruction: "TEST: reply ok",
  installationToken: "ghs_dispatchtesttoken000000",
  ...overrides
});

describe("dispatch", () => {
  it("returns the session, the thread URL and the submission id", async () => {
    const input = dispatchInput({ repo: "Cloudflare/Agents", issueNumber: 1859, commentId: 900_001 });
    const result = await entry().dispatch(input);
    expect(Object.keys(result).sort()).toEqual(["session", "submissionId", "threadUrl"]);
    expect(result.session).toBe("cloudflare-agents-1859");
    expect(result.threadUrl).toBe("https://agent-think.test/thread/cloudflare-agents-1859");
    expect(result.submissionId).toMatch(/\S{8,}/);
    await waitForStatus(await agentFor(result.session), result.submissionId);
  });

  it("gives the same comment the same submission and starts nothing new", async () => {
    const input = dispatchInput({ commentId: 424_242 });
    const [first, second] = [await entry().dispatch(input), await entry().dispatch(input)];
    const concurrent = await Promise.all(Array.from({ length: 10 }, () => entry().dispatch(input)));
    expect(second).toEqual(first);
    expect(new Set(concurrent.map((result) => result.submissionId))).toEqual(new Set([first.submissionId]));
    const agent = await agentFor(first.session);
    await waitForStatus(agent, first.submissionId);
    expect(await agent.listSubmissions()).toHaveLength(1);
    const messages = await agent.transcript();
    expect(messages.filter((message) => message.role === "user")).toHaveLength(1);
  });

  it("queues a new comment behind the running turn in the same session", async () => {
    const repo = uniqueRepo();
    // The first turn's command goes on once the test has seen the second one wait behind it.
    const { container } = await containerFor(sessionName(repo, 1859));
    const looked = gate();
    container.during(/echo going/, () => looked.promise);
    const first = await entry().dispatch(
      dispatchInput({ repo, commentId: 1, instruction: "TEST: container echo going\nTEST: reply first" })
    );
    const second = await entry().dispatch(dispatchInput({ repo, commentId: 2, instruction: "TEST: reply second" }));
    expect(second.session).toBe(first.session);
    expect(second.submissionId).not.toBe(first.submissionId);
    const agent = await agentFor(first.session);

    await waitForStatus(agent, first.submissionId, ["running"]);
    expect((await agent.submissionStatus(second.submissionId))?.status).toBe("pending");
    expect(await agent.listSubmissions({ status: "running" })).toHaveLength(1);
    looked.open();

    const done = await waitForStatus(agent, second.submissionId);
    const firstDone = await waitForStatus(agent, first.submissionId);
    expect([firstDone.status, done.status]).toEqual(["completed", "completed"]);
    expect(done.startedAt!).toBeGreaterThanOrEqual(firstDone.completedAt!);
    // Each turn's last words (the first turn also said what it ran).
    const replies = (await agent.transcript()).filter((message) => message.role === "assistant");
    expect(replies.map((message) => message.parts.filter((part) => part.type === "text").at(-1))).toMatchObject([
      { text: "first" },
      { text: "second" }
    ]);
  });

  it("puts a pull request's block in the transcript's envelope", async () => {
    const pullRequest = {
      number: 1859,
      headRepo: "forker/agents",
      headRef: "fix-parser",
      headSha: "ec26c3e57ca3a959ca5aad62de7213c562f8c821",
      baseRef: "main",
      fork: true,
      reviewComment: { id: 284_312_630, path: "src/parse.ts", startLine: 3, line: 4, side: "RIGHT", diffHunk: "@@ -1 +1 @@\n-old\n+new" }
    };
    const input = dispatchInput({ pullRequest });
    const result = await entry().dispatch(input);
    const agent = await agentFor(result.session);
    await waitForStatus(agent, result.submissionId);
    const [first] = (await agent.transcript()).filter((message) => message.role === "user");
    const text = String(first?.parts.find((part) => part.type === "text")?.text);
    const { reviewComment, ...pull } = pullRequest;
    expect(parseEnvelope(text)).toMatchObject({
      kind: "pull_request",
      issue: { number: 1859 },
      pullRequest: { ...pull, url: `https://github.com/${input.repo}/pull/1859`, reviewComment: { ...reviewComment, url: `https://github.com/${input.repo}/pull/1859#discussion_r284312630` } }
    });
  });

  it("keeps distinct issues in distinct sessions and treats names case-insensitively", async () => {
    const suffix = crypto.randomUUID().slice(0, 6);
    const pairs = [
      [`a-b${suffix}/c`, 1],
      [`a/b${suffix}-c`, 1],
      [`a/b${suffix}`, 1],
      [`a/b${suffix}`, 11]
    ] as const;
    const sessions = [];
    for (const [repo, issueNumber] of pairs) {
      sessions.push((await entry().dispatch(dispatchInput({ repo, issueNumber }))).session);
    }
    expect(new Set(sessions).size).toBe(pairs.length);
    const upper = await entry().dispatch(dispatchInput({ repo: `A/B${suffix.toUpperCase()}`, issueNumber: 1 }));
    expect(upper.session).toBe(sessions[2]);
  });

  it("reports status without leaking the instruction or metadata, and null for unknown ids", async () => {
    const secretInstruction = "TEST: reply the-instruction-is-private";
    const result = await entry().dispatch(dispatchInput({ instruction: secretInstruction, commentId: 77 }));
    const agent = await agentFor(result.session);
    await waitForStatus(agent, result.submissionId);
    const status = await entry().getSubmissionStatus({ session: result.session, submissionId: result.submissionId });
    expect(status).toMatchObject({ status: "completed" });
    expect(Object.keys(status!).every((key) => ["status", "error", "createdAt", "startedAt", "completedAt"].includes(key))).toBe(true);
    expect(JSON.stringify(status)).not.toContain("private");
    expect(JSON.stringify(status)).not.toContain("comment");
    expect(await entry().getSubmissionStatus({ session: result.session, submissionId: "no-such-id" })).toBeNull();
  });

  it("resets a session: cancels queued turns and clears the transcript", async () => {
    const repo = uniqueRepo();
    const running = await entry().dispatch(dispatchInput({ repo, commentId: 5, instruction: "TEST: sleep 20000\nTEST: reply late" }));
    const queued = await entry().dispatch(dispatchInput({ repo, commentId: 6 }));
    const agent = await agentFor(running.session);
    await waitForStatus(agent, running.submissionId, ["running"]);

    const reset = await entry().resetSession({ session: running.session });
    expect(reset).toEqual({ session: running.session, cancelled: 2 });
    expect((await agent.submissionStatus(running.submissionId))?.status).toBe("aborted");
    expect((await agent.submissionStatus(queued.submissionId))?.status).toBe("aborted");
    expect(await agent.transcript()).toEqual([]);

    const again = await entry().dispatch(dispatchInput({ repo, commentId: 7 }));
    expect((await waitForStatus(agent, again.submissionId)).status).toBe("completed");
  });
});

describe("bad input", () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ["repo without a name", { repo: "acme" }, "repo"],
    ["repo owner of hyphens only", { repo: "--/widgets" }, "repo"],
    ["repo owner with a short code too short", { repo: "acme_x/widgets" }, "repo"],
    ["repo name ending in .git", { repo: "acme/widgets.git" }, "repo"],
    ["repo with a space", { repo: "acme/wid gets" }, "repo"],
    ["repo name '..'", { repo: "acme/.." }, "repo"],
    ["owner longer than 39", { repo: `${"a".repeat(40)}/x` }, "repo"],
    ["issue number zero", { issueNumber: 0 }, "issueNumber"],
    ["negative issue number", { issueNumber: -3 }, "issueNumber"],
    ["fractional issue number", { issueNumber: 1.5 }, "issueNumber"],
    ["issue number as a string", { issueNumber: "12" }, "issueNumber"],
    ["empty instruction", { instruction: "   " }, "instruction"],
    ["instruction over the limit", { instruction: "x".repeat(8_001) }, "instruction"],
    ["token that is not a string", { installationToken: 12345 }, "installationToken"],
    ["commentId that is not a number", { commentId: "77" }, "commentId"],
    ["issueTitle that is not a string", { issueTitle: { evil: true } }, "issueTitle"],
    ["requestedBy without a login", { requestedBy: { avatarUrl: "https://x.test/a.png" } }, "requestedBy.login"],
    ["requestedBy with a javascript avatar", { requestedBy: { login: "octo", avatarUrl: "javascript:alert(1)" } }, "requestedBy.avatarUrl"],
    ["bot with a login that is not a bot's", { bot: { login: "agent-think", id: 1 } }, "bot.login"],
    ["bot with an id of zero", { bot: { login: "agent-think[bot]", id: 0 } }, "bot.id"],
    ["bot without an id", { bot: { login: "agent-think[bot]" } }, "bot.id"],
    ["a pull request with another number than the issue's", { pullRequest: { number: 5 } }, "pullRequest.number"],
    ["a pull request with an unknown field", { pullRequest: { number: 4, title: "x" } }, "pullRequest.title"],
    ["a pull request head that is not a commit SHA", { pullRequest: { number: 4, headSha: "main" } }, "pullRequest.headSha"],
    [
      "a review comment's diff hunk over the limit",
      { pullRequest: { number: 4, reviewComment: { id: 1, path: "a.ts", diffHunk: "x".repeat(4_097) } } },
      "pullRequest.reviewComment.diffHunk"
    ],
    ["an unknown field", { repository: "acme/widgets" }, "repository"]
  ];

  // The entrypoint's methods are the service's (src/index.ts). The cases call
  // the service in this isolate: an RPC method that throws is printed by
  // workerd as an "uncaught exception" even when the caller catches it.
  const service = () => createService(env);

  it.each(cases)("rejects %s, naming the field, and writes nothing", async (_name, overrides, field) => {
    const before = (await listDurableObjectIds(env.ThinkAgent)).length;
    const input = { ...dispatchInput({ repo: "acme/untouched-by-bad-input", issueNumber: 4 }), ...overrides };
    await expect(service().dispatch(input)).rejects.toThrow(new RegExp(`invalid input: ${field.replace(".", "\\.")}:`));
    expect((await listDurableObjectIds(env.ThinkAgent)).length).toBe(before);
  });

  it("says each reason once", async () => {
    await expect(service().dispatch({ ...dispatchInput(), repo: "acme" })).rejects.toThrow(/^invalid input: repo: must be "owner\/name"$/);
    await expect(service().dispatch({ ...dispatchInput(), repo: `${"a".repeat(40)}/x` })).rejects.toThrow(
      /^invalid input: repo: owner must be at most 39 characters$/
    );
  });

  it("rejects a missing token and a non-object input", async () => {
    const { installationToken: _omit, ...withoutToken } = dispatchInput();
    await expect(service().dispatch(withoutToken)).rejects.toThrow(/invalid input: installationToken:/);
    await expect(service().dispatch("acme/widgets#1")).rejects.toThrow(/^invalid input: input: expected object, received string$/);
  });

  it("rejects bad status and reset inputs, naming the field", async () => {
    await expect(service().getSubmissionStatus({ session: "Not A Session", submissionId: "x" })).rejects.toThrow(/invalid input: session:/);
    await expect(service().getSubmissionStatus({ session: "a-b-1" })).rejects.toThrow(/invalid input: submissionId:/);
    await expect(service().resetSession({ session: "a-b-1", extra: 1 })).rejects.toThrow(/invalid input: extra:/);
  });

  it("fails dispatch clearly when no model is configured outside LOCAL_DEV, writing nothing", async () => {
    const before = (await listDurableObjectIds(env.ThinkAgent)).length;
    const input = dispatchInput();
    const service = createService({ ...env, MODEL_PROVIDER: "", LOCAL_DEV: "", ALLOWED_REPOS: input.repo });
    await expect(service.dispatch(input)).rejects.toThrow(
      /model is not configured: set AI_GATEWAY_ACCOUNT_ID, AI_GATEWAY_ID/
    );
    expect((await listDurableObjectIds(env.ThinkAgent)).length).toBe(before);
  });

  const gatewayEnv = {
    MODEL_PROVIDER: "",
    LOCAL_DEV: "",
    AI_GATEWAY_ACCOUNT_ID: "acct",
    AI_GATEWAY_ID: "gw",
    AI_GATEWAY_KEYS: "",
    CLOUDFLARE_AIG_TOKEN: "",
    OPENAI_API_KEY: "",
    ANTHROPIC_API_KEY: ""
  };
  const modelRefusals: Array<[string, Partial<Env>, RegExp]> = [
    ["no gateway token and no provider keys", {}, /^the model has no credentials: set CLOUDFLARE_AIG_TOKEN .*OPENAI_API_KEY and ANTHROPIC_API_KEY$/],
    ["a blank gateway token", { CLOUDFLARE_AIG_TOKEN: "  " }, /^CLOUDFLARE_AIG_TOKEN is blank \(only whitespace\): set CLOUDFLARE_AIG_TOKEN/],
    ["stored keys without a gateway token", { AI_GATEWAY_KEYS: "stored", OPENAI_API_KEY: "sk-a", ANTHROPIC_API_KEY: "sk-b" }, /^AI_GATEWAY_KEYS=stored needs CLOUDFLARE_AIG_TOKEN/],
    ["request keys without the Anthropic key", { AI_GATEWAY_KEYS: "request", CLOUDFLARE_AIG_TOKEN: "aig", OPENAI_API_KEY: "sk-a" }, /ANTHROPIC_API_KEY is not set: set ANTHROPIC_API_KEY/],
    ["a gateway id without an account id", { AI_GATEWAY_ACCOUNT_ID: "", CLOUDFLARE_AIG_TOKEN: "aig" }, /^model is not configured: set AI_GATEWAY_ACCOUNT_ID \(/],
    ["an account id without a gateway id", { AI_GATEWAY_ID: "", CLOUDFLARE_AIG_TOKEN: "aig" }, /^model is not configured: set AI_GATEWAY_ID \(/],
    ["a reasoning effort that is not one", { CLOUDFLARE_AIG_TOKEN: "aig", REASONING_EFFORT: "loud" }, /^REASONING_EFFORT has "loud", which is not an effort: set REASONING_EFFORT/]
  ];

  it.each(modelRefusals)("refuses dispatch and Continue with %s, naming the variable, and writes nothing", async (_name, overrides, message) => {
    const counts = async () => [(await listDurableObjectIds(env.ThinkAgent)).length, (await listDurableObjectIds(env.CommandCenterAgent)).length];
    const before = await counts();
    const repo = uniqueRepo();
    const service = createService({ ...env, ...gatewayEnv, ALLOWED_REPOS: repo, ...overrides } as Env);
    for (const refused of [
      await service.dispatch(dispatchInput({ repo, bot: { login: "agent-think[bot]", id: 9001 } })).catch((error: unknown) => error),
      await service.continueRun(sessionName(repo, 1)).catch((error: unknown) => error)
    ]) {
      expect(refused).toMatchObject({ name: "ModelConfigError", code: "model_not_configured" });
      expect((refused as Error).message).toMatch(message);
      expect((refused as Error).message).not.toMatch(/sk-a|sk-b|"aig"/);
    }
    expect(await counts()).toEqual(before);
  });

  it("refuses a token with no App's bot outside local dev, saying what is missing, and writes nothing", async () => {
    const before = (await listDurableObjectIds(env.ThinkAgent)).length;
    const input = dispatchInput();
    // As production runs: not local dev, and no BOT_LOGIN (test/wrangler.jsonc sets none).
    const service = createService({ ...env, LOCAL_DEV: "", ALLOWED_REPOS: input.repo });
    const refused = await service.dispatch(input).catch((error: unknown) => error);
    expect(refused).toMatchObject({ name: "BotIdentityError", code: "bot_identity_missing" });
    expect((refused as Error).message).toMatch(/bot identity is missing: the webhook app sends it with each dispatch .*set BOT_LOGIN/);
    const misconfigured = createService({ ...env, LOCAL_DEV: "", ALLOWED_REPOS: input.repo, BOT_LOGIN: "agent-think" } as Env);
    await expect(misconfigured.dispatch(input)).rejects.toThrow(/^BOT_LOGIN must end in \[bot\]/);
    expect((await listDurableObjectIds(env.ThinkAgent)).length).toBe(before);
  });

  it("takes a token outside local dev with the bot the webhook app named, or with BOT_LOGIN set, and no token without either", async () => {
    const repo = uniqueRepo();
    const production = { ...env, LOCAL_DEV: "", ALLOWED_REPOS: repo };
    const dispatches = [
      createService(production).dispatch(dispatchInput({ repo, issueNumber: 1, bot: { login: "agent-think[bot]", id: 9001 } })),
      createService({ ...production, BOT_LOGIN: "agent-think[bot]" } as Env).dispatch(dispatchInput({ repo, issueNumber: 2 })),
      createService(production).dispatch(dispatchInput({ repo, issueNumber: 3, installationToken: "" }))
    ];
    for (const result of await Promise.all(dispatches)) {
      expect((await waitForStatus(await agentFor(result.session), result.submissionId)).status).toBe("completed");
    }
  });

  it("fails dispatch clearly when GITHUB_API_URL names no GitHub, writing nothing", async () => {
    const before = (await listDurableObjectIds(env.ThinkAgent)).length;
    const service = createService({ ...env, GITHUB_API_URL: "https://ghe.example.com/v3" });
    await expect(service.dispatch(dispatchInput())).rejects.toThrow(/GITHUB_API_URL must be/);
    expect((await listDurableObjectIds(env.ThinkAgent)).length).toBe(before);
  });
});

describe("ALLOWED_REPOS", () => {
  // Called in process, like the refusals above: an RPC method that throws is printed as uncaught.
  const agents = async () => (await listDurableObjectIds(env.ThinkAgent)).length;
  const refusal = (promise: Promise<unknown>) => promise.then(
    () => expect.unreachable("it was not refused"),
    (error: unknown) => error as Error & { code?: string }
  );

  it("refuses a repository outside the list, naming it and ALLOWED_REPOS, and writes nothing: a run and a stop alike", async () => {
    const before = await agents();
    const service = createService({ ...env, ALLOWED_REPOS: "acme/widgets, acme/gadgets" });
    for (const instruction of ["TEST: reply should not run", "stop"]) {
      const refused = await refusal(service.dispatch(dispatchInput({ repo: "evil/widgets", instruction })));
      expect(refused).toMatchObject({ name: "RepoNotAllowedError", code: "repo_not_allowed" });
      expect(refused.message).toBe("evil/widgets is not in ALLOWED_REPOS: the agent Worker runs only on the repositories it lists");
    }
    expect(await agents()).toBe(before);
  });

  it("is enforced in local dev once it lists anything", async () => {
    const before = await agents();
    const service = createService({ ...env, LOCAL_DEV: "1", ALLOWED_REPOS: "acme/widgets" });
    expect(await refusal(service.dispatch(dispatchInput({ repo: "acme/gizmos" })))).toMatchObject({ code: "repo_not_allowed" });
    expect(await agents()).toBe(before);
  });

  it("matches without case", async () => {
    const repo = uniqueRepo("Acme-Corp");
    const service = createService({ ...env, ALLOWED_REPOS: ` other/one , ${repo.toLowerCase()} ` });
    const result = await service.dispatch(dispatchInput({ repo: repo.toUpperCase() }));
    expect((await waitForStatus(await agentFor(result.session), result.submissionId)).status).toBe("completed");
  });

  it("empty allows any repository under LOCAL_DEV=1", async () => {
    const service = createService({ ...env, LOCAL_DEV: "1", ALLOWED_REPOS: "" });
    const result = await service.dispatch(dispatchInput({ installationToken: "" }));
    expect((await waitForStatus(await agentFor(result.session), result.submissionId)).status).toBe("completed");
  });

  it("empty refuses every repository as production runs (LOCAL_DEV \"\"), saying the list is empty, and writes nothing", async () => {
    const before = await agents();
    const service = createService({ ...env, LOCAL_DEV: "", ALLOWED_REPOS: " , " });
    const input = dispatchInput({ bot: { login: "agent-think[bot]", id: 9001 } });
    const refused = await refusal(service.dispatch(input));
    expect(refused).toMatchObject({ name: "RepoNotAllowedError", code: "repo_not_allowed" });
    expect(refused.message).toBe(
      `${input.repo} is not in ALLOWED_REPOS, which is empty: outside LOCAL_DEV=1 the agent Worker refuses every repository until ALLOWED_REPOS lists it`
    );
    expect(await agents()).toBe(before);
  });

  it("a list that does not parse refuses every dispatch and Continue, naming the variable, and writes nothing", async () => {
    const counts = async () => [await agents(), (await listDurableObjectIds(env.CommandCenterAgent)).length];
    const before = await counts();
    const repo = uniqueRepo();
    const service = createService({ ...env, ALLOWED_REPOS: `${repo}, widgets` });
    for (const refused of [
      await refusal(service.dispatch(dispatchInput({ repo }))),
      await refusal(service.dispatch(dispatchInput({ repo, instruction: "stop" }))),
      await refusal(service.continueRun(sessionName(repo, 1)))
    ]) {
      expect(refused).toMatchObject({ name: "AllowedReposConfigError", code: "bad_allowed_repos" });
      expect(refused.message).toMatch(/^ALLOWED_REPOS must be a comma-separated list of owner\/name, and "widgets" is not one/);
    }
    expect(await counts()).toEqual(before);
  });

  it("refuses Continue on a thread whose repository has left the list, before the claim", async () => {
    const repo = uniqueRepo();
    const { session, submissionId } = await entry().dispatch({
      repo,
      issueNumber: 3,
      instruction: "TEST: fail-once the model fell over\nTEST: reply recovered",
      installationToken: ""
    });
    const agent = await agentFor(session);
    expect((await waitForStatus(agent, submissionId)).status).toBe("error");
    await waitForThread(session, (thread) => thread.status === "error");

    const refused = await refusal(createService({ ...env, ALLOWED_REPOS: "acme/widgets" }).continueRun(session, "local operator"));
    expect(refused).toMatchObject({ name: "RepoNotAllowedError", code: "repo_not_allowed" });
    expect(refused.message).toBe(`${repo} is not in ALLOWED_REPOS: the agent Worker runs only on the repositories it lists`);
    expect(await agent.listSubmissions()).toHaveLength(1);
    // Nothing was claimed: the thread is still failed, and continues once its repository is allowed again.
    expect(await waitForThread(session, (thread) => thread.status === "error")).toMatchObject({ status: "error" });
    const continued = await createService({ ...env, ALLOWED_REPOS: repo.toUpperCase() }).continueRun(session, "local operator");
    expect(continued.ok).toBe(true);
    if (continued.ok) expect((await waitForStatus(agent, continued.result.submissionId)).status).toBe("completed");
  });
});
