/**
 * WorkspaceBackends over recording stand-ins for @cloudflare/computer's
 * classes: the Workspace built once, on first use, with the worker shell
 * always and the container backend only where containers run and an engine
 * is there; the container on the pool's launch spec with the overrides laid
 * over and its host asked only when it connects; a bad setting costing the
 * container, not the shell; runners through the runtime; close.
 */
import { describe, expect, it } from "vitest";
import type { Workspace, WorkspaceRegisteredBackend } from "@cloudflare/computer";
import type { ContainerBackend, ContainerBackendOptions, ContainerHostHolder } from "@cloudflare/computer/backends/container";
import type { WorkerShellBackendOptions } from "@cloudflare/computer/backends/worker-shell";
import { containerBackendOptions, type LaunchEnv } from "../../src/pool/launch-spec";
import { EGRESS_REVISION, WorkspaceBackends, type WorkspaceBackendsDeps } from "../../src/pool/workspace-backends";

const SHELL_GATEWAY = { name: "shell-gateway" } as unknown as Fetcher;
const CONTAINER_GATEWAY = { name: "container-gateway" } as unknown as Fetcher;
const REF = { binding: "WorkspaceAgent", id: "abc", name: "acme-widgets-7" };

function backends(settings: { containers?: boolean; engineAbsent?: boolean; env?: LaunchEnv; overrides?: Partial<ContainerBackendOptions> } = {}) {
  const made = { workspaces: [] as WorkspaceRegisteredBackend[][], shells: [] as WorkerShellBackendOptions[], containers: [] as ContainerBackendOptions[] };
  const execs: Array<{ script: string; options: unknown }> = [];
  let closed = 0;
  let disposed = 0;
  let hostAsked = 0;
  let closeFails = false;
  const host = { getWorkspaceContainer: async () => ({ status: async () => "running" }) } as unknown as ContainerHostHolder;
  const deps: WorkspaceBackendsDeps = {
    make: {
      workspace: (list) => {
        made.workspaces.push(list);
        return {
          runtime: {
            exec: async (script: string, options: unknown) => {
              execs.push({ script, options });
              return { result: async () => ({ exitCode: 2, stdout: "out", stderr: "err", extra: true }), [Symbol.dispose]: () => void disposed++ };
            }
          },
          close: async () => {
            closed++;
            if (closeFails) throw new Error("already gone");
          }
        } as unknown as Workspace;
      },
      shell: (options) => (made.shells.push(options), { id: "shell" } as unknown as WorkspaceRegisteredBackend),
      container: (options) => (made.containers.push(options), { id: "container" } as unknown as ContainerBackend)
    },
    ref: () => REF,
    shell: () => ({ loader: "the-loader" as unknown as WorkerShellBackendOptions["loader"], ctx: "the-ctx", commands: [] }),
    launchEnv: () => settings.env ?? {},
    gateways: { shell: () => SHELL_GATEWAY, container: () => CONTAINER_GATEWAY },
    containersEnabled: () => settings.containers ?? true,
    engineAbsent: () => settings.engineAbsent ?? false,
    sandboxHost: async () => (hostAsked++, host),
    overrides: () => settings.overrides ?? {}
  };
  const subject = new WorkspaceBackends(deps);
  return {
    subject,
    made,
    execs,
    counts: () => ({ closed, disposed, hostAsked }),
    failClose: () => void (closeFails = true)
  };
}

describe("WorkspaceBackends", () => {
  it("builds the Workspace once, on first use, with the worker shell going out through its gateway", () => {
    const { subject, made } = backends({ containers: false });
    expect(subject.built).toBe(false);
    expect(made.workspaces).toHaveLength(0);
    void subject.workspace;
    void subject.workspace;
    expect(subject.built).toBe(true);
    expect(made.workspaces).toEqual([[{ id: "shell" }]]);
    expect(made.shells).toEqual([
      { id: "shell", loader: "the-loader", ctx: "the-ctx", commands: [], workspace: REF, egress: { mode: "http-gateway", gateway: SHELL_GATEWAY, revision: EGRESS_REVISION } }
    ]);
    expect(subject.containerBackend()).toBeUndefined();
    expect(subject.configError).toBeUndefined();
  });

  it("adds the container backend on the pool's launch spec, the overrides laid over, where containers run", () => {
    const { subject, made } = backends({ overrides: { connectTimeoutMs: 5 } });
    expect(subject.containerBackend()).toEqual({ id: "container" });
    expect(made.workspaces).toEqual([[{ id: "shell" }, { id: "container" }]]);
    const [options] = made.containers;
    expect(options).toMatchObject({ ...containerBackendOptions({}, CONTAINER_GATEWAY), id: "container", workspace: REF, connectTimeoutMs: 5 });
  });

  it("asks for the turn's Sandbox only when the container backend connects", async () => {
    const { subject, made, counts } = backends();
    subject.containerBackend();
    expect(counts().hostAsked).toBe(0);
    const holder = (made.containers[0]!.container as () => ContainerHostHolder)();
    const host = await holder.getWorkspaceContainer();
    expect(counts().hostAsked).toBe(1);
    expect(await host.status()).toBe("running");
  });

  it("builds no container backend where the engine is absent", () => {
    const { subject, made } = backends({ engineAbsent: true });
    expect(subject.containerBackend()).toBeUndefined();
    expect(made.containers).toEqual([]);
    expect(subject.configError).toBeUndefined();
  });

  it("keeps the shell and names the setting when a container setting is bad", () => {
    const { subject, made } = backends({ env: { CONTAINER_INSTANCE_TYPE: "huge" } });
    expect(subject.containerBackend()).toBeUndefined();
    expect(made.workspaces).toEqual([[{ id: "shell" }]]);
    expect(subject.configError).toMatch(/^CONTAINER_INSTANCE_TYPE must be one of lite, basic/);
  });

  it("runs a script through the Workspace's runtime, unbounded and without saving output, and disposes the handle", async () => {
    const { subject, execs, counts } = backends();
    expect(await subject.runner("container").run("echo hi", { stdin: "in", timeoutMs: 9_000 })).toEqual({ exitCode: 2, stdout: "out", stderr: "err" });
    expect(execs).toEqual([{ script: "echo hi", options: { backend: "container", encoding: "utf8", stdin: "in", timeoutMs: 9_000, output: false } }]);
    expect(counts().disposed).toBe(1);
  });

  it("closes the connections only once built, and swallows a close that fails", async () => {
    const { subject, counts, failClose } = backends();
    await subject.close();
    expect(counts().closed).toBe(0);
    void subject.workspace;
    failClose();
    await subject.close();
    expect(counts().closed).toBe(1);
  });
});
