/**
 * A plain `wrangler dev` in local dev: the checked-in CONTAINERS_ENABLED=1
 * with wrangler's containers off (dev.enable_containers is false; this
 * machine has no Docker engine), against the real `wrangler dev --local`.
 * The health line names the missing engine and its fix, and a run goes on
 * in the worker shell as under `npm start`: no clone, each container
 * command answered with the cause, said once in the log.
 */
import { describe, expect } from "vitest";
import type { TranscriptMessage } from "../scripts/lib/dev-api";
import { NO_CONTAINER_ENGINE } from "../src/pool/engine";
import type { HealthReport } from "../src/shared/health";
import { startDevServer, test as base, type DevServer } from "./fixture";
import { dispatch, freshIssueNumber, waitForSubmission } from "./dev-api";

const test = base.extend("plain", { scope: "file" }, async ({}, { onCleanup }): Promise<DevServer> => {
  // npm start's command line with the config's own CONTAINERS_ENABLED put back: what `wrangler dev --var LOCAL_DEV:1` runs.
  const server = await startDevServer({ localDev: true, vars: { CONTAINERS_ENABLED: "1" } });
  onCleanup(() => server.stop());
  return server;
});

const bashOutputs = (messages: TranscriptMessage[]) =>
  messages.flatMap((message) => message.parts).filter((part) => part.type === "tool-bash").map((part) => part.output);

describe("a plain wrangler dev without a container engine", () => {
  test("says on the health page that there is no engine, and how to get one", async ({ plain }) => {
    const report = (await (await fetch(`${plain.url}/api/health`)).json()) as HealthReport;
    expect(report.checks.find((check) => check.id === "containers"), plain.output()).toMatchObject({
      status: "warn",
      detail: expect.stringMatching(/^no container engine: CONTAINERS_ENABLED is "1", but this wrangler dev runs the Sandbox without a container/),
      fix: expect.stringContaining("wrangler dev --enable-containers=true")
    });
  });

  test("runs in the worker shell, its container commands answered with the cause", async ({ plain }) => {
    const run = await dispatch(plain.url, {
      repo: "acme/widgets",
      issueNumber: freshIssueNumber(),
      instruction: "TEST: container echo in-container\nTEST: run echo in-shell\nTEST: reply done"
    });
    const { submission, messages } = await waitForSubmission(plain.url, run);
    expect(submission, plain.output()).toMatchObject({ status: "completed" });
    expect(bashOutputs(messages)).toEqual([
      { backend: "container", error: NO_CONTAINER_ENGINE },
      expect.objectContaining({ backend: "shell", exitCode: 0, stdout: expect.objectContaining({ text: "in-shell\n" }) })
    ]);
    const said = plain.output().split("\n").filter((line) => line.includes(run.session) && line.includes('"event":"workspace:no-container-engine"'));
    expect(said).toHaveLength(1);
    expect(plain.output()).not.toContain("could not be prepared");
  });
});
