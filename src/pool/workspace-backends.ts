/**
 * The WorkspaceAgent's Workspace and its backends, built on first use: the
 * worker shell always, the container backend where containers run and a
 * container can start, on the pool's launch spec (launch-spec.ts) with its
 * host on the calling side (calling-side-host.ts). A bad container setting
 * costs the container, never the shell. Both go out through the gateways
 * handed in. Plain: the runtime's classes are handed in too.
 * docs/containers.md, "How a container command reaches the container".
 */
import type { Workspace, WorkspaceRegisteredBackend, WorkspaceServiceProxyProps } from "@cloudflare/computer";
import type { ContainerBackend, ContainerBackendOptions, ContainerHostHolder } from "@cloudflare/computer/backends/container";
import type { WorkerShellBackendOptions } from "@cloudflare/computer/backends/worker-shell";
import type { BackendId } from "../run/bash-command";
import { callingSideHolder } from "./calling-side-host";
import type { CommandRunner } from "./container-commands";
import { containerBackendOptions, type LaunchEnv } from "./launch-spec";

/** The worker shell's loader cache key for the gateway egress: the gateway is the same entrypoint for every turn. */
export const EGRESS_REVISION = "sandbox-egress-1";

export type WorkspaceBackendsDeps = {
  /** The runtime's constructors (@cloudflare/computer's Workspace and backends). */
  make: {
    workspace: (backends: WorkspaceRegisteredBackend[]) => Workspace;
    shell: (options: WorkerShellBackendOptions) => WorkspaceRegisteredBackend;
    container: (options: ContainerBackendOptions) => ContainerBackend;
  };
  /** How the proxies wake this object: its binding, id and name. */
  ref: () => WorkspaceServiceProxyProps;
  /** The worker shell's loader, its object's context and its command groups. */
  shell: () => Pick<WorkerShellBackendOptions, "loader" | "ctx" | "commands">;
  launchEnv: () => LaunchEnv;
  /** The egress gateway for each shell (egress/workspace-egress.ts). */
  gateways: { shell: () => Fetcher; container: () => Fetcher };
  containersEnabled: () => boolean;
  /** Local dev whose Sandbox has no container (workspace-readiness.ts). */
  engineAbsent: () => boolean;
  /** The turn's Sandbox, claimed on first use. */
  sandboxHost: () => Promise<ContainerHostHolder>;
  /** Options laid over the container backend's (a test seam). */
  overrides: () => Partial<ContainerBackendOptions>;
};

export class WorkspaceBackends {
  readonly #deps: WorkspaceBackendsDeps;
  #workspace: Workspace | undefined;
  #container: ContainerBackend | undefined;
  #configError: string | undefined;

  constructor(deps: WorkspaceBackendsDeps) {
    this.#deps = deps;
  }

  /** The Workspace, built with its backends on first use (so they follow the settings of that moment). */
  get workspace(): Workspace {
    this.#workspace ??= this.#deps.make.workspace(this.#backends());
    return this.#workspace;
  }

  get built(): boolean {
    return this.#workspace !== undefined;
  }

  /** The container backend, if this workspace has one: computerd's /api upgrade goes to it. */
  containerBackend(): ContainerBackend | undefined {
    void this.workspace;
    return this.#container;
  }

  /** Why there is no container backend although containers are on (a bad setting); known once built. */
  get configError(): string | undefined {
    return this.#configError;
  }

  /** Runs scripts on one backend through the Workspace's runtime; the output is bounded by the caller. */
  runner(backend: BackendId): CommandRunner {
    return {
      run: async (script, { stdin, timeoutMs }) => {
        using handle = await this.workspace.runtime.exec(script, { backend, encoding: "utf8", stdin, timeoutMs, output: false });
        const result = await handle.result();
        return { exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr };
      }
    };
  }

  /** Drop the backends' connections, if built; the next use of any backend reconnects lazily. */
  async close(): Promise<void> {
    await this.#workspace?.close().catch(() => {});
  }

  #backends(): WorkspaceRegisteredBackend[] {
    const { make, gateways } = this.#deps;
    const workspace = this.#deps.ref();
    const gateway = gateways.shell();
    const backends: WorkspaceRegisteredBackend[] = [
      // curl's requests go through the gateway, under the run's policy; the revision keeps one Dynamic Worker per issue.
      make.shell({ id: "shell", ...this.#deps.shell(), workspace, egress: { mode: "http-gateway", gateway, revision: EGRESS_REVISION } })
    ];
    if (!this.#deps.containersEnabled() || this.#deps.engineAbsent()) return backends;
    let options: ReturnType<typeof containerBackendOptions>;
    try {
      options = containerBackendOptions(this.#deps.launchEnv(), gateways.container());
    } catch (error) {
      // A bad container setting (CONTAINER_INSTANCE_TYPE, GITHUB_API_URL) costs the container, never the shell.
      this.#configError = error instanceof Error ? error.message : String(error);
      return backends;
    }
    this.#container = make.container({
      // The same launch spec the pool warms with, so a claimed warm container is adopted, not relaunched.
      ...options,
      id: "container",
      // The host is in the Sandbox, across RPC: its health probe's signal stays here.
      container: () => callingSideHolder(this.#deps.sandboxHost()),
      workspace,
      ...this.#deps.overrides()
    });
    backends.push(this.#container);
    return backends;
  }
}
