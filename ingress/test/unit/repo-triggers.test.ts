/**
 * What an assignment or a label asks under a repository's triggers
 * (ingress/src/repo-triggers.ts), and the keys an issue event is claimed
 * and marked under (ingress/src/trigger.ts): pure, in plain Node.
 */
import { describe, expect, it } from "vitest";
import { DEFAULT_TRIGGERS } from "../../../src/run/repo-config";
import { issueEventAsk, repoTriggers } from "../../src/repo-triggers";
import { claimName, markerKey, readTrigger } from "../../src/trigger";

describe("repoTriggers", () => {
  it("no file: the defaults", () => {
    expect(repoTriggers({ found: false })).toEqual({ ok: true, triggers: DEFAULT_TRIGGERS, source: "default" });
  });
  it("a file: its triggers, the rest defaulted", () => {
    const read = repoTriggers({ found: true, text: "version: 1\ntriggers:\n  assign: false\n  label:\n    name: repro\n" });
    expect(read).toEqual({ ok: true, source: "file", triggers: { assign: null, label: { name: "repro", instruction: "reproduce this issue" } } });
  });
  it("a file too large or invalid: its errors, each naming its field", () => {
    expect(repoTriggers({ found: true, tooLargeBytes: 20_000 })).toEqual({ ok: false, errors: ["the file is larger than 16 KB"] });
    expect(repoTriggers({ found: true, text: "version: 1\ntriggers:\n  label: yes\n" })).toMatchObject({ ok: false, errors: [expect.stringMatching(/^triggers\.label: /)] });
  });
});

describe("issueEventAsk", () => {
  const on = { assign: "fix it", label: { name: "Needs-Repro", instruction: "write a failing test" } };
  const off = { assign: null, label: null };
  it("an assignment asks the instruction, an unassignment a stop", () => {
    expect(issueEventAsk("assigned", on, null)).toEqual({ ok: true, instruction: "fix it" });
    expect(issueEventAsk("unassigned", on, null)).toEqual({ ok: true, instruction: "stop" });
  });
  it("the label, named as GitHub compares names (any case), asks its instruction; its removal a stop; another label nothing", () => {
    expect(issueEventAsk("labeled", on, "needs-repro")).toEqual({ ok: true, instruction: "write a failing test" });
    expect(issueEventAsk("unlabeled", on, "NEEDS-REPRO")).toEqual({ ok: true, instruction: "stop" });
    expect(issueEventAsk("labeled", on, "bug")).toEqual({ ok: false, reason: "other_label" });
    expect(issueEventAsk("labeled", on, null)).toEqual({ ok: false, reason: "other_label" });
  });
  it("a way turned off neither starts nor stops", () => {
    for (const kind of ["assigned", "unassigned", "labeled", "unlabeled"] as const) {
      expect(issueEventAsk(kind, off, "agent-think")).toEqual({ ok: false, reason: "trigger_off" });
    }
  });
});

describe("an issue event's keys", () => {
  const ref = { kind: "assigned" as const, repo: "Acme/Widgets", issueNumber: 7, deliveryId: "72d3162e-cc78-11e3-81ab-4c9367dc0958" };
  it("name the kind, the issue and GitHub's delivery id", () => {
    expect(claimName(ref)).toBe("issues-assigned:acme/widgets#7:72d3162e-cc78-11e3-81ab-4c9367dc0958");
    expect(markerKey(ref)).toBe("handled:issues-assigned:acme/widgets#7:72d3162e-cc78-11e3-81ab-4c9367dc0958");
    expect(claimName({ ...ref, kind: "unassigned" })).not.toBe(claimName(ref));
  });
  it("are refused without a delivery id, or with one no key should hold", () => {
    const payload = {
      action: "assigned",
      issue: { number: 7, title: "t", body: null, updated_at: "2026-01-01T00:00:00Z" },
      assignee: { login: "agent-think[bot]", type: "Bot" },
      sender: { login: "octocat", type: "User" },
      repository: { full_name: "acme/widgets", owner: { login: "acme" }, name: "widgets" }
    };
    expect(readTrigger("issues", payload, "")).toEqual({ ok: false, field: "X-GitHub-Delivery" });
    expect(readTrigger("issues", payload, "a:b")).toEqual({ ok: false, field: "X-GitHub-Delivery" });
    expect(readTrigger("issues", payload, ref.deliveryId)).toMatchObject({ ok: true, trigger: { ref: { kind: "assigned", deliveryId: ref.deliveryId } } });
    expect(readTrigger("issues", { ...payload, action: "opened" }, ref.deliveryId)).toEqual({ ok: false, ignore: "action", action: "opened" });
  });
});
