/**
 * Which private sources a run used, said where people look: a repository
 * names a private npm registry in `.github/agent-think.yml` (`registries:`),
 * the operator's REGISTRY_SECRETS lets it name the Worker secret
 * (test/vitest.config.ts's bindings), and the run's `curl` in the worker
 * shell reaches the registry through the egress gateway, which attaches the
 * secret. With real Think turns on the scripted model and GitHub and the
 * registry played by MSW: the closing comment's footer and the thread's run
 * name the registry's host (never its path or secret); the next run of the
 * same issue, which reaches only a public registry, names none.
 */
import { env } from "cloudflare:workers";
import { http, HttpResponse } from "msw";
import { afterEach, describe, expect, it } from "vitest";
import { commandCenter } from "../src/command-center";
import { sessionName } from "../src/shared/session-name";
import { agentFor, toolParts, uniqueRepo, until, waitForStatus, waitForThread } from "./helpers";
import { recordingInternet, runBy } from "./support/container-egress";
import { FakeGitHub, serveGitHub } from "./support/github";
import { TEST_GITHUB_API_URL } from "./worker";

const REGISTRY = "npm.privsrc.example";
/** The Worker secret's value (test/vitest.config.ts): the credential the gateway attaches, and nothing else ever holds. */
const REGISTRY_TOKEN = "npm_privsrcTestTOKEN000000000000";
const CONFIG = `version: 1\nregistries:\n  - { kind: npm, host: ${REGISTRY}, path: /npm/, scope: "@privsrc", secret: PRIVSRC_NPM_TOKEN }\n`;

const github = new FakeGitHub();
const { upstream, handlers: internet } = recordingInternet("sortNumbers([10, 2]) gives [10, 2].");
/** What reached the private registry: each request's path and the Authorization it carried. */
const reached: Array<{ path: string; auth: string | null }> = [];
const registry = http.get(`https://${REGISTRY}/*`, ({ request }) => {
  reached.push({ path: new URL(request.url).pathname, auth: request.headers.get("authorization") });
  return HttpResponse.json({ name: "@privsrc/widget", "dist-tags": { latest: "2.0.0" } });
});
serveGitHub(github, [registry, ...internet]);
afterEach(() => {
  upstream.length = 0;
  reached.length = 0;
});

const TOKEN = "ghs_privateSourcesTOKEN000000000000";

describe("the private sources a run used", () => {
  it("are named by host in the closing comment's footer and on the thread's run; a run that used none names none", async () => {
    const repo = uniqueRepo("privsrc");
    const session = sessionName(repo, 3);
    github.addFile(repo, ".github/agent-think.yml", CONFIG);
    await runBy(session, "ReportingThinkAgent");
    const agent = await agentFor(session, env.ReportingThinkAgent);

    const used = await agent.startRun({
      session,
      repo,
      issueNumber: 3,
      installationToken: TOKEN,
      commentId: 31,
      instruction: [
        `TEST: run curl -s https://${REGISTRY}/npm/@privsrc%2fwidget`,
        `TEST: run curl -s -H 'authorization: Bearer sandbox-made-up' https://${REGISTRY}/npm/@privsrc%2fwidget`,
        "TEST: result reproduced Scripted."
      ].join("\n")
    });
    expect((await waitForStatus(agent, used.submissionId)).status).toBe("completed");
    const outputs = toolParts(await agent.transcript()).map((part) => (part.output as { stdout?: { text: string } } | undefined)?.stdout?.text ?? "");
    expect(outputs.filter((text) => text.includes('"@privsrc/widget"'))).toHaveLength(2);
    // Both requests carried the Worker's secret, put there by the gateway (the sandbox's own header replaced).
    expect(reached).toEqual([
      { path: "/npm/@privsrc%2fwidget", auth: `Bearer ${REGISTRY_TOKEN}` },
      { path: "/npm/@privsrc%2fwidget", auth: `Bearer ${REGISTRY_TOKEN}` }
    ]);

    const closing = await github.closingComment(repo, 3);
    expect(closing).toContain(`· private source: \`${REGISTRY}\` ·`);
    // The host only: never the registry's path, the secret's name or its value.
    expect(closing).not.toContain("/npm/");
    expect(closing).not.toContain("PRIVSRC_NPM_TOKEN");
    expect(closing).not.toContain(REGISTRY_TOKEN);

    // The next run of the issue reaches only the public registry: it used no private source.
    upstream.length = 0;
    reached.length = 0;
    const none = await agent.startRun({
      session,
      repo,
      issueNumber: 3,
      installationToken: TOKEN,
      commentId: 32,
      instruction: ["TEST: run curl -s https://registry.npmjs.org/left-pad", "TEST: result reproduced Scripted again."].join("\n")
    });
    expect((await waitForStatus(agent, none.submissionId)).status).toBe("completed");
    // Off GitHub (the Worker reads the issue itself before each run), the sandbox reached the public registry alone, with no credential.
    expect(upstream.filter((call) => !call.url.startsWith(TEST_GITHUB_API_URL))).toEqual([{ method: "GET", url: "https://registry.npmjs.org/left-pad", auth: null }]);
    expect(reached).toEqual([]);
    const second = await github.closingComment(repo, 3, 2);
    expect(second).toContain("<sub>agent-think ·");
    expect(second).not.toContain("private source");

    // The thread's detail: the first run names the host, the second nothing (its events arrive fire and forget).
    await waitForThread(session, (thread) => thread.submissionId === none.submissionId && thread.status === "done");
    const center = await commandCenter(env);
    const runs = await until(async () => {
      const detail = await center.threadDetail(session);
      const byId = new Map(detail?.runs.map((run) => [run.submissionId, run]));
      return byId.get(used.submissionId)?.privateSources && byId.get(none.submissionId)?.status === "done" ? byId : null;
    }, "both runs on the thread, the first with its private source");
    expect(runs.get(used.submissionId)?.privateSources).toEqual([REGISTRY]);
    expect(runs.get(none.submissionId)?.privateSources).toBeUndefined();
  });

  it("a reporter-tier run on the same repository gets no registry: its request is refused at the gateway and nothing reaches the registry", async () => {
    const repo = uniqueRepo("privsrc");
    const session = sessionName(repo, 4, "reporter");
    github.addFile(repo, ".github/agent-think.yml", CONFIG);
    await runBy(session, "ReportingThinkAgent");
    const agent = await agentFor(session, env.ReportingThinkAgent);
    const { submissionId } = await agent.startRun({
      session,
      repo,
      issueNumber: 4,
      // No GitHub token: nothing to revoke at the end (the registry's credential is not GitHub's).
      installationToken: "",
      commentId: 41,
      requestedBy: { login: "octocat" },
      tier: "reporter",
      instruction: [`reproduce this issue`, `TEST: run curl -s https://${REGISTRY}/npm/@privsrc%2fwidget`, "TEST: result reproduced Scripted."].join("\n")
    });
    expect((await waitForStatus(agent, submissionId)).status).toBe("completed");
    const outputs = toolParts(await agent.transcript()).map((part) => (part.output as { stdout?: { text: string } } | undefined)?.stdout?.text ?? "");
    expect(outputs[0]).toMatch(new RegExp(`^egress refused: ${REGISTRY.replaceAll(".", "\\.")} is not on this run's network allowlist`));
    expect(reached).toEqual([]);
    expect(await github.closingComment(repo, 4)).not.toContain("private source");
  });
});

