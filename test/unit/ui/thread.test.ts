import { describe, expect, it } from "vitest";
import type { RunEnvelope } from "../../../src/run/envelope";
import {
  envelopeHeaderView,
  issueMessagesView,
  reproductionLinkView,
  safeHref,
  threadStatusView,
  threadTiming
} from "../../../src/ui/view-models/thread";
import { NOW, thread } from "./fixtures";

const envelope: RunEnvelope = {
  repository: "cloudflare/agents",
  issue: { number: 1859, title: "Streams stall", url: "https://github.com/cloudflare/agents/issues/1859" },
  instruction: "reproduce this issue",
  requestedBy: { login: "octocat" },
  triggeringComment: { id: 9, url: "https://github.com/cloudflare/agents/issues/1859#issuecomment-9" },
  session: "cloudflare-agents-1859",
  submittedAt: new Date(NOW - 3 * 60_000).toISOString()
};

const idle = { streaming: false, turnError: null, recovering: false, hasMessages: true };

describe("envelopeHeaderView", () => {
  it("links the repo, the issue, the requester and the comment", () => {
    expect(envelopeHeaderView(envelope, NOW)).toMatchObject({
      repo: "cloudflare/agents",
      repoHref: "https://github.com/cloudflare/agents",
      issueLabel: "#1859 Streams stall",
      issueHref: "https://github.com/cloudflare/agents/issues/1859",
      instruction: "reproduce this issue",
      requestedBy: "@octocat",
      requestedByHref: "https://github.com/octocat",
      commentHref: "https://github.com/cloudflare/agents/issues/1859#issuecomment-9",
      submitted: "3 min ago"
    });
  });

  it("drops links that are not http(s), and names without a title by number", () => {
    const view = envelopeHeaderView(
      { ...envelope, issue: { number: 2, url: "javascript:alert(1)" }, requestedBy: undefined, triggeringComment: undefined },
      NOW
    );
    expect(view).toMatchObject({ issueLabel: "#2", issueHref: undefined, requestedBy: undefined, commentHref: undefined });
    expect(safeHref("data:text/html,x")).toBeUndefined();
    expect(safeHref("not a url")).toBeUndefined();
  });

  it("links the repo and the requester on the GitHub the envelope names (an Enterprise host), never github.com", () => {
    const enterprise: RunEnvelope = {
      ...envelope,
      issue: { number: 1859, title: "Streams stall", url: "https://ghe.example.com/cloudflare/agents/issues/1859" },
      github: { host: "ghe.example.com", web: "https://ghe.example.com" },
      triggeringComment: { id: 9, url: "https://ghe.example.com/cloudflare/agents/issues/1859#issuecomment-9" }
    };
    const view = envelopeHeaderView(enterprise, NOW);
    expect(view).toMatchObject({
      repoHref: "https://ghe.example.com/cloudflare/agents",
      issueHref: "https://ghe.example.com/cloudflare/agents/issues/1859",
      requestedByHref: "https://ghe.example.com/octocat",
      commentHref: "https://ghe.example.com/cloudflare/agents/issues/1859#issuecomment-9"
    });
    expect(JSON.stringify(view)).not.toContain("github.com");
  });

  it("links nothing on a host that is not an https origin", () => {
    const view = envelopeHeaderView({ ...envelope, github: { host: "x", web: "javascript:alert(1)//" } }, NOW);
    expect(view).toMatchObject({ repoHref: undefined, requestedByHref: undefined });
  });

  it("links a bot requester to its account", () => {
    expect(envelopeHeaderView({ ...envelope, requestedBy: { login: "renovate[bot]" } }, NOW).requestedByHref).toBe("https://github.com/renovate");
  });
});

describe("threadStatusView", () => {
  it("follows the command center's summary, offering Continue when failed", () => {
    expect(threadStatusView(thread({ status: "error", lastError: "boom" }), idle)).toEqual({
      status: "error",
      label: "failed",
      tone: "bad",
      detail: "boom",
      canContinue: true
    });
    expect(threadStatusView(thread({ status: "running", stale: true }), idle)).toMatchObject({ status: "stale", canContinue: true });
  });

  it("shows a cancelled thread as cancelled, neutral, with no error and no Continue", () => {
    expect(threadStatusView(thread({ status: "cancelled" }), idle)).toEqual({
      status: "cancelled",
      label: "cancelled",
      tone: "neutral",
      detail: undefined,
      canContinue: false
    });
  });

  it("says running while the socket streams, even if the summary lags", () => {
    expect(threadStatusView(thread({ status: "done" }), { ...idle, streaming: true })).toMatchObject({ status: "running", canContinue: false });
  });

  it("shows a recovering summary as the socket's recovering frame shows it: warn, with why, no Continue until stale", () => {
    const recovering = threadStatusView(thread({ status: "recovering", recoveries: 1 }), idle);
    expect(recovering).toMatchObject({ status: "recovering", label: "recovering", tone: "warn", canContinue: false });
    expect(recovering.title).toContain("interrupted");
    expect(threadStatusView(undefined, { ...idle, recovering: true })).toEqual({ ...recovering, detail: undefined });
    expect(threadStatusView(thread({ status: "recovering", stale: true }), idle)).toMatchObject({ status: "stale", tone: "warn", canContinue: true });
  });

  it("follows the socket where it is ahead: recovering before the summary says so, running once the resumed turn streams", () => {
    expect(threadStatusView(thread({ status: "running" }), { ...idle, recovering: true })).toMatchObject({ status: "recovering", canContinue: false });
    expect(threadStatusView(thread({ status: "recovering" }), { ...idle, streaming: true })).toMatchObject({ status: "running", tone: "info" });
    // Think may keep its flag up while the resumed turn streams: that turn runs.
    expect(threadStatusView(thread({ status: "running" }), { ...idle, streaming: true, recovering: true })).toMatchObject({ status: "running" });
    expect(threadStatusView(undefined, { ...idle, streaming: true, recovering: true })).toMatchObject({ status: "running" });
  });

  it("never lets a recovering flag hide Continue on a stale run, or reopen an ended one", () => {
    expect(threadStatusView(thread({ status: "running", stale: true }), { ...idle, recovering: true })).toMatchObject({ status: "stale", canContinue: true });
    expect(threadStatusView(thread({ status: "error", lastError: "boom" }), { ...idle, recovering: true })).toMatchObject({ status: "error", canContinue: true });
    expect(threadStatusView(thread({ status: "done" }), { ...idle, recovering: true })).toMatchObject({ status: "done" });
  });

  it("falls back to the socket without a summary", () => {
    expect(threadStatusView(undefined, { ...idle, streaming: true })).toMatchObject({ status: "running" });
    expect(threadStatusView(undefined, { ...idle, recovering: true })).toMatchObject({ status: "recovering", label: "recovering", tone: "warn" });
    expect(threadStatusView(undefined, { ...idle, turnError: "model failed" })).toMatchObject({ status: "error", detail: "model failed", canContinue: false });
    expect(threadStatusView(undefined, idle)).toMatchObject({ status: "idle" });
    expect(threadStatusView(undefined, { ...idle, hasMessages: false })).toMatchObject({ status: "unknown" });
  });
});

describe("threadTiming", () => {
  it("lists start, activity, duration, first tool call and counters from the summary", () => {
    const items = threadTiming(thread({ toolErrors: 1, tokens: { input: 1200, output: 300 } }), { firstSubmittedAt: null, runs: 0, toolCalls: 0 }, NOW);
    expect(Object.fromEntries(items.map((item) => [item.id, item.value]))).toEqual({
      started: "10 min ago",
      "last-activity": "2 min ago",
      duration: "42 s",
      "first-tool": "800 ms",
      runs: "1",
      "tool-calls": "4",
      "tool-errors": "1",
      tokens: "1,200 in / 300 out"
    });
  });

  it("shows how long a running thread has run", () => {
    const items = threadTiming(thread({ status: "running", durationMs: undefined }), { firstSubmittedAt: null, runs: 0, toolCalls: 0 }, NOW);
    expect(items.find((item) => item.id === "duration")).toMatchObject({ label: "running for", value: "10 min 00 s" });
  });

  it("counts a recovered run's recoveries, and how long a recovering one has run", () => {
    const recovering = threadTiming(thread({ status: "recovering", recoveries: 2, durationMs: undefined }), { firstSubmittedAt: null, runs: 0, toolCalls: 0 }, NOW);
    expect(recovering.find((item) => item.id === "duration")).toMatchObject({ label: "running for", value: "10 min 00 s" });
    expect(recovering.find((item) => item.id === "recoveries")).toMatchObject({ label: "recovered", value: "2×" });
    const done = threadTiming(thread({ recoveries: 1 }), { firstSubmittedAt: null, runs: 0, toolCalls: 0 }, NOW);
    expect(done.map((item) => item.id)).toEqual(["started", "last-activity", "duration", "recoveries", "first-tool", "runs", "tool-calls"]);
    expect(threadTiming(thread(), { firstSubmittedAt: null, runs: 0, toolCalls: 0 }, NOW).some((item) => item.id === "recoveries")).toBe(false);
  });

  it("falls back to the transcript without a summary", () => {
    const items = threadTiming(undefined, { firstSubmittedAt: NOW - 60_000, runs: 2, toolCalls: 5 }, NOW);
    expect(items.map((item) => [item.id, item.value])).toEqual([
      ["started", "1 min ago"],
      ["runs", "2"],
      ["tool-calls", "5"]
    ]);
  });
});

describe("issueMessagesView", () => {
  const COMMENT = "https://github.com/cloudflare/agents/issues/1859#issuecomment-42";

  it("links the posted closing comment and shows the 🚀, the comment first", () => {
    const view = issueMessagesView(thread({ issueMessages: { rocket: { state: "sent" }, closing: { state: "sent", url: COMMENT } } }));
    expect(view).toEqual({
      posted: [
        { kind: "closing", label: "comment posted ↗", title: "The run's closing comment on the issue", href: COMMENT },
        { kind: "rocket", label: "🚀 reacted", title: "🚀 on the comment that asked for the run" }
      ],
      failed: []
    });
  });

  it("warns for each message that could not be posted", () => {
    const view = issueMessagesView(
      thread({
        issueMessages: {
          rocket: { state: "sent" },
          stale: { state: "failed", error: "GitHub comment: 502" },
          closing: { state: "failed", error: "GitHub comment: 403 Resource not accessible by integration" }
        }
      })
    );
    expect(view?.posted.map((item) => item.kind)).toEqual(["rocket"]);
    expect(view?.failed).toEqual([
      { kind: "closing", text: "Could not post on the issue: GitHub comment: 403 Resource not accessible by integration" },
      { kind: "stale", text: "Could not post on the issue: GitHub comment: 502" }
    ]);
  });

  it("shows a posted comment without a link when its URL is not http(s)", () => {
    const view = issueMessagesView(thread({ issueMessages: { closing: { state: "sent", url: "javascript:alert(1)" } } }));
    expect(view?.posted).toEqual([{ kind: "closing", label: "comment posted", title: "The run's closing comment on the issue" }]);
  });

  it("is null when nothing settled or the thread is unknown", () => {
    expect(issueMessagesView(thread())).toBeNull();
    expect(issueMessagesView(thread({ issueMessages: {} }))).toBeNull();
    expect(issueMessagesView(undefined)).toBeNull();
  });
});

describe("reproductionLinkView", () => {
  const PUBLIC = "https://agent-think.example.dev/repro/0123456789abcdef0123456789abcdef/";
  const PRIVATE = "https://agent-think.example.dev/repro/private/0123456789abcdef0123456789abcdef/";

  it("links the issue's published reproduction page", () => {
    expect(reproductionLinkView(thread({ reproductionUrl: PUBLIC }))).toEqual({
      href: PUBLIC,
      label: "Reproduction ↗",
      title: "The issue's published reproduction page"
    });
  });

  it("says a private repository's page is behind Access", () => {
    expect(reproductionLinkView(thread({ reproductionUrl: PRIVATE }))).toEqual({
      href: PRIVATE,
      label: "Reproduction ↗",
      title: "The issue's published reproduction page (behind Access)"
    });
    // Only the path says so, not a query that mentions it.
    expect(reproductionLinkView(thread({ reproductionUrl: `${PUBLIC}?from=/repro/private/x` }))?.title).toBe("The issue's published reproduction page");
  });

  it("is null without a page, or when its URL is not http(s)", () => {
    expect(reproductionLinkView(thread())).toBeNull();
    expect(reproductionLinkView(undefined)).toBeNull();
    for (const url of ["javascript:alert(1)", "data:text/html,x", "/repro/private/abc/", "", "not a url"]) {
      expect(reproductionLinkView(thread({ reproductionUrl: url }))).toBeNull();
    }
  });
});
