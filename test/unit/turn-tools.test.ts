/**
 * The run's own tools wired to the running turn (src/steps/turn-tools.ts):
 * a published reproduction is linked for the turn (ledger, progress comment,
 * thread page) under the run's issue and tier, a plan and a result are kept
 * only for a running turn, and the result is redacted before it is kept.
 */
import { describe, expect, it } from "vitest";
import type { PublishInput, PublishResult } from "../../src/repro/publish";
import type { PublishingRun } from "../../src/repro/publisher";
import type { RunContext } from "../../src/run/run-context";
import { TurnTools } from "../../src/steps/turn-tools";

const RUN: RunContext = { repo: "acme/widgets", issueNumber: 7, instruction: "x", installationToken: "ghs_secret", repoVisibility: "public", updatedAt: 1 };

function setup(options: { turn?: boolean; reporter?: boolean; published?: boolean; run?: RunContext | undefined } = {}) {
  const events: string[] = [];
  const asked: PublishingRun[] = [];
  const tools = new TurnTools({
    containerAvailable: () => true,
    view: { turn: async () => (options.turn === false ? null : { session: "acme-widgets-7", submissionId: "sub-1" }) },
    runs: { get: async () => ("run" in options ? options.run : RUN) },
    token: {
      secrets: () => ["ghs_secret"],
      redactDeep: <T>(value: T) => JSON.parse(JSON.stringify(value).replaceAll("ghs_secret", "[REDACTED]")) as T
    },
    trust: { reporter: options.reporter ?? false },
    githubApiUrl: () => "https://api.github.com",
    workspace: { bash: async () => ({ backend: "shell", exitCode: 0, stdout: "", stderr: "" }) as never },
    repros: {
      publish: async (_input: PublishInput, run: PublishingRun): Promise<PublishResult> => {
        asked.push(run);
        return options.published === false ? { published: false, error: "no page" } : ({ published: true, url: "https://agent-think.test/repro/abc/", files: 1, bytes: 2, removed: 0 } as PublishResult);
      }
    },
    pullRequests: { open: async () => ({}) as never },
    attachments: { fetch: async () => ({}) as never },
    ledger: {
      recordReproduction: async (id, url) => void events.push(`ledger repro ${id} ${url}`),
      recordResult: async (id, result) => void events.push(`ledger result ${id} ${JSON.stringify(result)}`)
    },
    progress: {
      published: async (id, url) => void events.push(`progress repro ${id} ${url}`),
      plan: async (id, steps) => void events.push(`plan ${id} ${steps.length}`)
    },
    reports: { published: (id, url, at) => void events.push(`reported repro ${id} ${url} ${at}`) },
    now: () => 42
  });
  return { tools, events, asked };
}

const URL = "https://agent-think.test/repro/abc/";

describe("TurnTools", () => {
  it("offers the run's tools", () => {
    expect(Object.keys(setup().tools.tools()).sort()).toEqual(["bash", "fetch_attachment", "open_pull_request", "publish_reproduction", "report_result", "update_plan"]);
  });

  it("publishes under the run's issue with the run's secrets, and links the page for the running turn", async () => {
    const { tools, events, asked } = setup();
    expect(await tools.publish({ directory: "/workspace/repro/dist" } as PublishInput)).toMatchObject({ published: true, url: URL });
    expect(asked).toEqual([{ issue: { repo: "acme/widgets", number: 7, url: "https://github.com/acme/widgets/issues/7" }, repoVisibility: "public", secrets: ["ghs_secret"] }]);
    expect(events).toEqual([`ledger repro sub-1 ${URL}`, `progress repro sub-1 ${URL}`, `reported repro sub-1 ${URL} 42`]);
  });

  it("publishes a reporter session's page as the reporter tier's, and links nothing that was not published or has no turn", async () => {
    const reporter = setup({ reporter: true, run: undefined });
    await reporter.tools.publish({ directory: "/workspace/repro/dist" } as PublishInput);
    expect(reporter.asked).toEqual([{ repoVisibility: undefined, secrets: ["ghs_secret"], tier: "reporter" }]);
    const refused = setup({ published: false });
    await refused.tools.publish({ directory: "/workspace/repro/dist" } as PublishInput);
    expect(refused.events).toEqual([]);
    const idle = setup({ turn: false });
    await idle.tools.publish({ directory: "/workspace/repro/dist" } as PublishInput);
    expect(idle.events).toEqual([]);
  });

  it("keeps the plan and the result for the running turn, the result redacted; without a turn, neither", async () => {
    const { tools, events } = setup();
    await tools.plan([{ step: "reproduce", status: "in_progress" }] as never);
    expect(await tools.result({ outcome: "reproduced", summary: "leaked ghs_secret" } as never)).toBe(true);
    expect(events).toEqual(["plan sub-1 1", 'ledger result sub-1 {"outcome":"reproduced","summary":"leaked [REDACTED]"}']);
    const idle = setup({ turn: false });
    await idle.tools.plan([{ step: "x", status: "pending" }] as never);
    expect(await idle.tools.result({ outcome: "reproduced", summary: "x" } as never)).toBe(false);
    expect(idle.events).toEqual([]);
  });
});
