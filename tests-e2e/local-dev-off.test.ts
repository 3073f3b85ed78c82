/**
 * Without LOCAL_DEV=1 the dev surface does not exist: /dev/* answers exactly
 * like any unknown path, so production never exposes an unauthenticated
 * dispatch.
 */
import { expect } from "vitest";
import { test } from "./fixture";

test("/dev/* are plain 404s without LOCAL_DEV", async ({ serverWithoutLocalDev: server }) => {
  const dispatch = await fetch(`${server.url}/dev/dispatch`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ repo: "acme/widgets", issueNumber: 1, instruction: "TEST: reply should not run" })
  });
  expect(dispatch.status).toBe(404);
  expect(await dispatch.text()).toBe("not found");

  const messages = await fetch(`${server.url}/dev/messages/x-y-1`);
  expect(messages.status).toBe(404);
  expect(await messages.text()).toBe("not found");

  const unknown = await fetch(`${server.url}/nope`);
  expect(unknown.status).toBe(404);
  expect(await unknown.text()).toBe("not found");
});
