/**
 * How TurnWorkspace decides, before the clone, whether a run's commits go through GitHub's API
 * (src/steps/turn-workspace.ts, the rules in src/run/signed-commits.ts), over fakes of GitHub's
 * reads and a deploy with no container: where `.github/agent-think.yml` asks, where a rule
 * requires signatures, where a read fails (said in the block, never a silent no), and where
 * every read says no; what follows from it (the block's `commits`, no push in the egress policy,
 * the guard, the pull request target); once per submission; no reads for a run that pushes
 * nothing.
 */
import { describe, expect, it } from "vitest";
import type { RepoReader } from "../../src/github/repo-reader";
import { CONTAINER_UNAVAILABLE } from "../../src/run/bash-command";
import { CommandReplay } from "../../src/run/command-replay";
import type { RunContext } from "../../src/run/run-context";
import { TurnWorkspace } from "../../src/steps/turn-workspace";
import { API_PUSH_GATEWAY_REFUSAL } from "../../src/run/signed-commits";

const REPO = "acme/widgets";
const BRANCH = "agent-think/issue-7";

type Reads = { config?: string | Error; rules?: Record<string, boolean | Error>; defaultBranch?: string | Error };

function setup(reads: Reads, run: Partial<RunContext> = {}) {
  const map = new Map<string, unknown>();
  const storage = {
    get: <T>(key: string) => structuredClone(map.get(key)) as T | undefined,
    put: <T>(key: string, value: T) => void map.set(key, structuredClone(value)),
    delete: (key: string) => map.delete(key)
  };
  const asked: string[] = [];
  const answer = <T>(value: T | Error | undefined, fallback: T): T => {
    if (value instanceof Error) throw value;
    return value ?? fallback;
  };
  const reader: RepoReader = {
    webHost: "github.com",
    readFile: async (_repo, path) => {
      asked.push(`file ${path}`);
      if (path !== ".github/agent-think.yml") return null;
      const text = answer(reads.config, "");
      return text ? { text, bytes: text.length, truncated: false } : null;
    },
    openPullRequest: async () => null,
    issue: async () => ({ number: 7, title: "t", author: "octocat", state: "open", labels: [], body: "", comments: 0 }),
    latestComments: async () => [],
    fetchAttachment: async () => ({ ok: false, status: 404, note: "none" }) as never,
    defaultBranch: async () => {
      asked.push("default branch");
      return answer(reads.defaultBranch, "main");
    },
    branchRequiresSignatures: async (_repo, branch) => {
      asked.push(`rules ${branch}`);
      return answer(reads.rules?.[branch], false);
    }
  };
  const context = { repo: REPO, issueNumber: 7, instruction: "open a PR", installationToken: "ghs_x", updatedAt: 0, ...run } as RunContext;
  const workspace = new TurnWorkspace({
    storage,
    run: async () => context,
    turn: async () => ({ session: "acme-widgets-7", submissionId: "sub-1" }),
    // No container here: the clone is skipped, as under npm start.
    workspace: async () => ({ exec: async (input) => ({ backend: input.backend, error: CONTAINER_UNAVAILABLE }) }),
    commands: new CommandReplay({ storage, recoveries: () => 0 }),
    redact: (text) => text,
    reader: async () => reader,
    botLogin: () => "agent-think[bot]",
    onStep: () => {},
    recordSetupFailure: async () => {},
    log: () => {}
  });
  return { workspace, asked, context };
}

describe("before the clone, whether the run's commits must be signed", () => {
  it("goes through the API where a ruleset of the push branch requires signed commits: the block says so, no push is granted, a push is answered", async () => {
    const { workspace, asked, context } = setup({ rules: { [BRANCH]: true } });
    const prepared = await workspace.prepare("sub-1");
    expect((prepared!.facts as { commits?: unknown }).commits).toMatchObject({ via: "api", why: `a ruleset requires signed commits on ${BRANCH}`, how: expect.stringMatching(/^Do not git push/) });
    expect(prepared!.facts.pushBranch).toBe(BRANCH);
    expect(workspace.egressPolicy("sub-1")).toMatchObject({ pushBranch: null, pushRefusal: API_PUSH_GATEWAY_REFUSAL });
    expect(workspace.pullRequestTarget("sub-1", context)).toMatchObject({ policy: { pushBranch: BRANCH }, commits: "api" });
    expect(await workspace.bash({ command: `git push origin ${BRANCH}`, backend: "container", timeoutMs: 1000 })).toEqual({
      backend: "container",
      error: expect.stringMatching(/^refused: `git push` cannot land unsigned commits here/)
    });
    expect(asked).toEqual(["file .github/agent-think.yml", "default branch", `rules ${BRANCH}`, "rules main", "file .github/agent-think.yml", "file AGENTS.md", "file CLAUDE.md", "file .github/copilot-instructions.md"]);
    // Decided once: a recovered turn asks GitHub nothing more about it.
    await workspace.prepare("sub-1");
    expect(asked.filter((entry) => entry.startsWith("rules"))).toHaveLength(2);
  });

  it("goes through the API where the config asks, or where the default branch's rules do", async () => {
    const asks = setup({ config: "version: 1\ncommits:\n  signed: true\n" });
    expect(((await asks.workspace.prepare("sub-1"))!.facts as { commits?: unknown }).commits).toMatchObject({ via: "api", why: ".github/agent-think.yml asks for signed commits (commits: { signed: true })" });
    const onMain = setup({ defaultBranch: "trunk", rules: { trunk: true } });
    expect(((await onMain.workspace.prepare("sub-1"))!.facts as { commits?: unknown }).commits).toMatchObject({ via: "api", why: "a ruleset requires signed commits on trunk" });
  });

  it("counts a read GitHub did not answer as a yes, and says which in the block", async () => {
    const { workspace } = setup({ rules: { [BRANCH]: new Error("GitHub read the rules of agent-think/issue-7: 403 Resource not accessible by integration") }, defaultBranch: new Error("GitHub read the repository: 502") });
    const facts = (await workspace.prepare("sub-1"))!.facts as { commits?: { via: string; unread: string[] } };
    expect(facts.commits).toMatchObject({ via: "api" });
    expect(facts.commits!.unread).toEqual([
      `the rules of ${BRANCH}: GitHub read the rules of agent-think/issue-7: 403 Resource not accessible by integration`,
      "the rules of the default branch: GitHub read the repository: 502"
    ]);
    expect(workspace.egressPolicy("sub-1")).toMatchObject({ pushBranch: null });
  });

  it("stays with git where every read says no: nothing in the block, the push branch granted, the push let through to the gateway", async () => {
    const { workspace, context } = setup({});
    const prepared = await workspace.prepare("sub-1");
    expect((prepared!.facts as { commits?: unknown }).commits).toBeUndefined();
    expect(workspace.commits("sub-1")).toMatchObject({ via: "git" });
    expect(workspace.egressPolicy("sub-1")).toMatchObject({ pushBranch: BRANCH });
    expect(workspace.pullRequestTarget("sub-1", context)?.commits).toBeUndefined();
  });

  it("asks nothing for a run that pushes nothing: a reporter-tier run", async () => {
    const { workspace, asked } = setup({ rules: { [BRANCH]: true } }, { tier: "reporter" });
    await workspace.prepare("sub-1");
    expect(asked.filter((entry) => entry.startsWith("rules") || entry === "default branch")).toEqual([]);
    expect(workspace.commits("sub-1")).toBeNull();
  });
});
