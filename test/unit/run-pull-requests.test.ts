/**
 * RunPullRequests' proof, over fakes of its dependencies: which check it
 * re-runs (the one given, else the thread's reproduction's when a run of the
 * same or a higher tier recorded it), whose check the proof says it was,
 * that each of the proof's commands counts as the run's activity, that what
 * is kept and posted is redacted, and that a thread with nothing to prove it
 * with runs nothing.
 */
import { describe, expect, it } from "vitest";
import type { PullRequestClient } from "../../src/github/pull-requests";
import type { ProofExec, ProofRecord } from "../../src/run/fix-proof";
import { RunPullRequests } from "../../src/steps/run-pull-requests";
import type { RunContext } from "../../src/run/run-context";
import type { RunTier } from "../../src/shared/dispatch";
import type { RecordingTier } from "../../src/shared/dispatch";

const HEAD = "c".repeat(40);
const BASE = "b".repeat(40);
const SECRET = "ghs_runPullRequestsSECRET0000000000000";
const run = { repo: "acme/widgets", issueNumber: 7, instruction: "open a PR", installationToken: SECRET, updatedAt: 0 } satisfies RunContext;

const AT = Date.UTC(2026, 0, 2, 3, 4, 5);

function setup(options: { reproduction?: { check?: string; tier?: RecordingTier } | null; page?: string; tier?: RunTier | "none" }) {
  const commands: string[] = [];
  const touched: number[] = [];
  const kept: ProofRecord[] = [];
  const bodies: string[] = [];
  const exec: ProofExec = async (command) => {
    commands.push(command);
    const answer = (exitCode: number, text: string) => ({ backend: "container" as const, exitCode, stdout: { text, totalBytes: text.length, totalLines: 1 }, stderr: { text: "", totalBytes: 0, totalLines: 0 }, durationMs: 1 });
    if (command.includes("proof: locate")) return answer(0, `head=${HEAD}\nbase=${BASE}\nbranch=agent-think/issue-7\npushed=${HEAD}\n`);
    if (command.includes(`check on ${BASE}`)) return answer(1, `expected 4, got 5 (token ${SECRET})`);
    return answer(0, "ok");
  };
  const client: PullRequestClient = {
    defaultBranch: async () => "main",
    openByAuthor: async () => null,
    open: async (_repo, pull) => {
      bodies.push(pull.body);
      return { number: 1000, url: "https://github.com/acme/widgets/pull/1000" };
    },
    update: async () => ({ number: 1000, url: "https://github.com/acme/widgets/pull/1000" })
  };
  const pulls = new RunPullRequests({
    turn: async () => ({ submissionId: "sub-1" }),
    run: async () => run,
    target: () => ({ repo: run.repo, policy: { pushBranch: "agent-think/issue-7", mayOpenPullRequest: true }, botLogin: "agent-think[bot]" }),
    apiUrl: () => "https://api.github.com",
    token: async () => SECRET,
    links: () => ({ publicBaseUrl: "https://agent-think.example.com", githubWebUrl: "https://github.com" }),
    redact: (text) => text.replaceAll(SECRET, "[redacted]"),
    exec,
    reproductions: { latest: async () => (options.reproduction ? { submissionId: "sub-0", at: AT, ...options.reproduction } : undefined) },
    ...(options.tier === "none" ? {} : { tier: async () => (options.tier === "reporter" ? "reporter" : undefined) }),
    ledger: {
      facts: async () => (options.page ? { reproductionUrl: options.page } : {}),
      recordProof: async (_id, proof) => void kept.push(proof),
      touch: async (_id, at) => void touched.push(at)
    },
    log: () => {},
    client: () => client
  });
  return { pulls, commands, touched, kept, bodies };
}

describe("RunPullRequests' proof", () => {
  it("re-runs the thread's check, counts each command as activity, and keeps and posts it redacted", async () => {
    const { pulls, commands, touched, kept, bodies } = setup({ reproduction: { check: "npm run repro", tier: "maintainer" } });
    const result = await pulls.open({ title: "Fix the sum", body: "Fixes #7" });
    expect(result).toMatchObject({
      ok: true,
      action: "opened",
      proof: { ran: true, held: true, command: "npm run repro", source: { kind: "recorded", tier: "maintainer", submissionId: "sub-0", at: AT } }
    });
    // locate, checkout of the base, the base's check, back to the branch, the head's check.
    expect(commands).toHaveLength(5);
    expect(touched).toHaveLength(5);
    expect(kept).toHaveLength(1);
    expect(JSON.stringify(kept[0])).not.toContain(SECRET);
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(bodies[0]).toContain("[redacted]");
    expect(bodies[0]).not.toContain(SECRET);
    expect(bodies[0]).toContain("The check is the thread's reproduction's, recorded by a maintainer's run (`sub-0`) at 2026-01-02T03:04:05Z.");
    // The Worker's git scripts name the repository on the deployment's GitHub.
    expect(commands[0]).toContain("'https://github.com/acme/widgets.git'");
  });

  it("prefers the check it is given over the thread's", async () => {
    const { pulls, commands } = setup({ reproduction: { check: "npm run repro", tier: "maintainer" } });
    const result = await pulls.open({ title: "Fix the sum", body: "Fixes #7", check: "node check.mjs" });
    expect(commands.filter((command) => command.includes("proof: check on")).every((command) => command.includes("node check.mjs"))).toBe(true);
    expect(result).toMatchObject({ proof: { ran: true, source: { kind: "given" } } });
  });

  it("runs no check a reporter-tier run recorded, or one recorded without a tier, for a maintainer's run: the proof says whose it was and to pass `check`", async () => {
    for (const [recorded, whose] of [
      ["reporter", "a reporter-tier run (sub-0)"],
      [undefined, "a run that kept no tier (sub-0)"]
    ] as const) {
      const { pulls, commands, kept, bodies } = setup({ reproduction: { check: "npm run repro", ...(recorded ? { tier: recorded } : {}) } });
      const result = await pulls.open({ title: "Fix the sum", body: "Fixes #7" });
      const why = `the thread's check was recorded by ${whose}, and a maintainer's run re-runs only a check recorded by a run of the same or a higher tier: pass \`check\` (the command to re-run) to prove the fix`;
      expect(result).toMatchObject({ ok: true, proof: { ran: false, why, source: { kind: "recorded", submissionId: "sub-0" } } });
      expect(commands).toEqual([]);
      expect(kept).toHaveLength(1);
      // Not shown as a command it would have run.
      expect(bodies[0]).not.toContain("npm run repro");
      expect(bodies[0]).toContain(`⚠️ **Not proven:** ${why}.`);
    }
  });

  it("re-runs a check recorded by a run of the same or a higher tier: a reporter-tier run's own tier's, and a maintainer's", async () => {
    for (const recorded of ["reporter", "maintainer"] as const) {
      const { pulls, commands } = setup({ reproduction: { check: "npm run repro", tier: recorded }, tier: "reporter" });
      const result = await pulls.open({ title: "Fix the sum", body: "Fixes #7" });
      expect(result).toMatchObject({ proof: { ran: true, source: { kind: "recorded", tier: recorded } } });
      expect(commands).toHaveLength(5);
    }
  });

  it("counts a run whose tier it is not told as a maintainer's, which re-runs no reporter's check", async () => {
    const { pulls, commands } = setup({ reproduction: { check: "npm run repro", tier: "reporter" }, tier: "none" });
    expect(await pulls.open({ title: "Fix the sum", body: "Fixes #7" })).toMatchObject({ proof: { ran: false } });
    expect(commands).toEqual([]);
  });

  it("runs the check it is given whoever recorded the thread's", async () => {
    const { pulls, commands } = setup({ reproduction: { check: "npm run repro", tier: "reporter" } });
    expect(await pulls.open({ title: "Fix the sum", body: "Fixes #7", check: "node check.mjs" })).toMatchObject({ proof: { ran: true, source: { kind: "given" } } });
    expect(commands.some((command) => command.includes("npm run repro"))).toBe(false);
  });

  it("keeps a proof that says no check was given when the thread's reproduction named none, or the run published a page, and runs nothing", async () => {
    for (const options of [{ reproduction: {} }, { page: "https://agent-think.example.com/repro/abc/" }]) {
      const { pulls, commands, kept } = setup(options);
      const result = await pulls.open({ title: "Fix the sum", body: "Fixes #7" });
      expect(result).toMatchObject({ ok: true, proof: { ran: false, why: expect.stringContaining("no check was given") } });
      expect(commands).toEqual([]);
      expect(kept).toHaveLength(1);
    }
  });

  it("proves nothing and keeps nothing on a thread with no reproduction and no check", async () => {
    const { pulls, commands, kept, bodies } = setup({ reproduction: null });
    const result = await pulls.open({ title: "Fix the sum", body: "Fixes #7" });
    expect(result.ok && "proof" in result).toBe(false);
    expect(commands).toEqual([]);
    expect(kept).toEqual([]);
    expect(bodies[0]).toBe("Fixes #7");
  });
});
