import { describe, expect, it } from "vitest";
import { encodeCursor } from "../../src/command-center/cursor";
import { EMPTY_METRICS } from "../../src/command-center/metrics";
import { handleApiRoute, type ApiRouteDeps } from "../../src/http/api-routes";
import type { ContinueOutcome } from "../../src/shared/command-center";
import { RepoNotAllowedError } from "../../src/run/repo-allowlist";
import { MonthlyBudgetConfigError, MonthlyBudgetReachedError } from "../../src/shared/monthly-budget";
import type { Snapshot, SnapshotOptions } from "../../src/shared/command-center";
import { repositoryRecordsSchema, type RepositoryRecords } from "../../src/shared/repository-records";
import { ruleFor } from "../../src/http/route-policy";

const ORIGIN = "https://agent-think.test";

const RECORDS: RepositoryRecords = {
  windowDays: 90,
  generatedAt: 1,
  repositories: [
    {
      repo: "acme/widgets",
      runs: 2,
      statuses: { running: 0, done: 2, error: 0, cancelled: 0 },
      outcomes: [{ outcome: "reproduced", runs: 2 }],
      triaged: 2,
      reproductionRate: 1,
      pullRequests: { opened: 1, merged: 1, closedUnmerged: 0 },
      firstResponseMedianMs: 1_500,
      cost: { usd: 0.5, complete: true },
      costPerRun: { usd: 0.25, complete: true },
      costPerMergedPullRequest: { usd: 0.5, complete: true },
      lastRunAt: 1
    }
  ]
};

function fakeDeps(outcomes: Record<string, ContinueOutcome | Error> = {}) {
  const snapshots: SnapshotOptions[] = [];
  const continued: string[] = [];
  const errors: unknown[] = [];
  const deps: ApiRouteDeps = {
    operator: () => "local operator",
    async threadDetail() {
      return null;
    },
    async repositories() {
      return RECORDS;
    },
    async snapshot(options) {
      snapshots.push(options);
      const snapshot: Snapshot = { metrics: EMPTY_METRICS, threads: [], total: 0, generatedAt: 1 };
      return snapshot;
    },
    async continueRun(session) {
      continued.push(session);
      const outcome = outcomes[session] ?? { ok: false, reason: "not_found" };
      if (outcome instanceof Error) throw outcome;
      return outcome;
    },
    onError: (error) => void errors.push(error)
  };
  return { deps, snapshots, continued, errors };
}

const get = (path: string) => new Request(`${ORIGIN}${path}`);
const post = (path: string, headers: Record<string, string> = { origin: ORIGIN, "sec-fetch-site": "same-origin" }) =>
  new Request(`${ORIGIN}${path}`, { method: "POST", headers });

describe("GET /api/command-center", () => {
  it("returns the snapshot with the default limit, uncached", async () => {
    const { deps, snapshots } = fakeDeps();
    const response = await handleApiRoute(get("/api/command-center"), deps);
    expect(response?.status).toBe(200);
    expect(response?.headers.get("cache-control")).toBe("no-store");
    expect(await response?.json()).toEqual({ metrics: EMPTY_METRICS, threads: [], total: 0, generatedAt: 1 });
    expect(snapshots).toEqual([{ limit: 50 }]);
  });

  it("passes a valid cursor and limit through", async () => {
    const { deps, snapshots } = fakeDeps();
    const cursor = encodeCursor({ lastActivityAt: 5, session: "a-b-1" });
    const response = await handleApiRoute(get(`/api/command-center?cursor=${cursor}&limit=200`), deps);
    expect(response?.status).toBe(200);
    expect(snapshots).toEqual([{ cursor, limit: 200 }]);
  });

  it("answers 400 for a bad limit or cursor, touching nothing", async () => {
    const { deps, snapshots } = fakeDeps();
    for (const query of ["limit=0", "limit=201", "limit=abc", "limit=1.5", "cursor=nope!", "cursor=" + btoa("x:y"), "cursor="]) {
      const response = await handleApiRoute(get(`/api/command-center?${query}`), deps);
      expect(response?.status, query).toBe(400);
      expect((await response?.json()) as { error: string }).toMatchObject({ error: expect.stringMatching(/^invalid query: (limit|cursor): /) });
    }
    expect(snapshots).toEqual([]);
  });

  it("refuses other methods", async () => {
    const response = await handleApiRoute(post("/api/command-center"), fakeDeps().deps);
    expect(response?.status).toBe(405);
    expect(response?.headers.get("allow")).toBe("GET");
  });
});

describe("POST /api/command-center/continue/:session", () => {
  const accepted: ContinueOutcome = { ok: true, result: { session: "acme-widgets-7", submissionId: "s2" } };

  it("answers 202 with the new submission", async () => {
    const { deps, continued } = fakeDeps({ "acme-widgets-7": accepted });
    const response = await handleApiRoute(post("/api/command-center/continue/acme-widgets-7"), deps);
    expect(response?.status).toBe(202);
    expect(await response?.json()).toEqual({ session: "acme-widgets-7", submissionId: "s2" });
    expect(continued).toEqual(["acme-widgets-7"]);
  });

  it("answers 404 for an unknown thread and for anything that is not a session name", async () => {
    const { deps, continued } = fakeDeps();
    expect((await handleApiRoute(post("/api/command-center/continue/acme-widgets-8"), deps))?.status).toBe(404);
    for (const bad of ["Not_A_Session", "%E0%A4%A", "a-b"]) {
      expect((await handleApiRoute(post(`/api/command-center/continue/${bad}`), deps))?.status, bad).toBe(404);
    }
    expect(continued).toEqual(["acme-widgets-8"]);
  });

  it("answers 409 when the run is neither failed nor stale", async () => {
    const { deps } = fakeDeps({ "acme-widgets-7": { ok: false, reason: "not_claimable" } });
    const response = await handleApiRoute(post("/api/command-center/continue/acme-widgets-7"), deps);
    expect(response?.status).toBe(409);
    expect(await response?.json()).toMatchObject({ reason: "not_claimable" });
  });

  it("answers 502 without detail when the continuation fails past its claim", async () => {
    const { deps, errors } = fakeDeps({ "acme-widgets-7": new Error("token broker down: secret detail") });
    const response = await handleApiRoute(post("/api/command-center/continue/acme-widgets-7"), deps);
    expect(response?.status).toBe(502);
    expect(await response?.text()).not.toContain("secret detail");
    expect(errors).toHaveLength(1);
  });

  it("answers 403 with the refusal's words when the thread's repository is outside ALLOWED_REPOS", async () => {
    const refusal = new RepoNotAllowedError("acme/widgets is not in ALLOWED_REPOS: the agent Worker runs only on the repositories it lists");
    const { deps, errors } = fakeDeps({ "acme-widgets-7": refusal });
    const response = await handleApiRoute(post("/api/command-center/continue/acme-widgets-7"), deps);
    expect(response?.status).toBe(403);
    expect(await response?.json()).toEqual({ error: refusal.message });
    expect(errors).toEqual([refusal]);
  });

  it("answers 403 with the refusal's words once the month's spend reached MONTHLY_COST_BUDGET, and 502 for a budget that does not parse", async () => {
    const refusal = new MonthlyBudgetReachedError(10, { month: "2026-12", spent: { usd: 10.4, complete: true } }, Date.UTC(2026, 11, 15));
    const { deps, errors } = fakeDeps({ "acme-widgets-7": refusal, "acme-widgets-8": new MonthlyBudgetConfigError("MONTHLY_COST_BUDGET must be a positive number") });
    const response = await handleApiRoute(post("/api/command-center/continue/acme-widgets-7"), deps);
    expect(response?.status).toBe(403);
    expect(await response?.json()).toEqual({
      error:
        "monthly cost budget reached: $10.40 of MONTHLY_COST_BUDGET $10.00 spent in 2026-12 (UTC), so agent-think starts no new runs until 2027-01-01 00:00 UTC or until the budget is raised; runs already going finish"
    });
    // A configuration error is the operator's to read in the health report, not the route's to echo.
    const misconfigured = await handleApiRoute(post("/api/command-center/continue/acme-widgets-8"), deps);
    expect(misconfigured?.status).toBe(502);
    expect(await misconfigured?.json()).toEqual({ error: "the continuation could not be submitted" });
    expect(errors).toHaveLength(2);
  });

  it("refuses other methods", async () => {
    const response = await handleApiRoute(get("/api/command-center/continue/acme-widgets-7"), fakeDeps().deps);
    expect(response?.status).toBe(405);
  });
});

describe("GET /api/repositories", () => {
  it("returns each repository's record, uncached", async () => {
    const response = await handleApiRoute(get("/api/repositories"), fakeDeps().deps);
    expect(response?.status).toBe(200);
    expect(response?.headers.get("cache-control")).toBe("no-store");
    expect(repositoryRecordsSchema.parse(await response?.json())).toEqual(RECORDS);
  });

  it("refuses other methods", async () => {
    const response = await handleApiRoute(post("/api/repositories"), fakeDeps().deps);
    expect(response?.status).toBe(405);
    expect(response?.headers.get("allow")).toBe("GET");
  });

  it("is behind Access like the rest of the API", () => {
    expect(ruleFor(["api", "repositories"], "GET")).toEqual({ access: "protected" });
  });
});

describe("other paths", () => {
  it("are left to the next handler", async () => {
    const { deps } = fakeDeps();
    for (const path of ["/", "/api", "/api/other", "/api/command-center/", "/api/command-center/continue", "/agents/x", "/thread/a-b-1", "/api/repositories/acme/widgets", "/repositories"]) {
      expect(await handleApiRoute(get(path), deps), path).toBeNull();
    }
  });
});
