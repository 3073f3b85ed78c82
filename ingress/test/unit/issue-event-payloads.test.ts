/**
 * The `issues` deliveries the webhook app's tests send (support/
 * issue-payloads.ts, GitHub's published examples changed only where a case
 * needs it) against GitHub's own webhook schema (@octokit/openapi-webhooks),
 * in plain Node as test/unit/webhook-payloads.test.ts does for comments:
 * the bot as assignee and the renamed label are still payloads GitHub
 * could send.
 */
import { createRequire } from "node:module";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { assignTheBot, issuesPayload, withLabel } from "../support/issue-payloads";

const openapi = createRequire(import.meta.url)("@octokit/openapi-webhooks/generated/api.github.com.json") as { components: object };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ $id: "webhooks", components: openapi.components });
const validator = (action: string) => ajv.compile({ $ref: `webhooks#/components/schemas/webhook-issues-${action}` });

const bot = { login: "agent-think[bot]", id: 198_765_432 };

describe("the ingress tests' issues payloads against GitHub's webhook schema", () => {
  it.each([
    { name: "the bot assigned", action: "assigned", payload: () => assignTheBot(bot) },
    { name: "the bot unassigned", action: "unassigned", payload: () => assignTheBot(bot, "unassigned") },
    { name: "another App's bot assigned", action: "assigned", payload: () => assignTheBot({ login: "dependabot[bot]", id: 49_699_333 }) },
    { name: "a person assigned, as published", action: "assigned", payload: () => issuesPayload("assigned") },
    { name: "the label agent-think added", action: "labeled", payload: () => withLabel("agent-think") },
    { name: "the label agent-think removed", action: "unlabeled", payload: () => withLabel("agent-think", "unlabeled") },
    { name: "the label bug added, as published", action: "labeled", payload: () => issuesPayload("labeled") }
  ])("$name", ({ action, payload }) => {
    const validate = validator(action);
    const ok = validate(payload());
    expect(validate.errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  it("refuses a broken one: an assignment without its sender", () => {
    const validate = validator("assigned");
    const { sender: _sender, ...broken } = assignTheBot(bot);
    expect(validate(broken)).toBe(false);
  });
});
