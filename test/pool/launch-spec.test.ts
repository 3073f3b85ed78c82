/**
 * Drift check against the real @cloudflare/computer package: the spec its
 * ContainerBackend passes to host.start() for containerBackendOptions() must
 * be warmLaunchSpec(), or warm containers get relaunched instead of adopted.
 */
import { describe, expect, it } from "vitest";
import {
  ContainerBackend,
  type ContainerLaunchSpec,
  type ContainerRuntimeInfo,
  type IWorkspaceContainerAPI
} from "@cloudflare/computer/backends/container";
import { containerBackendOptions as backendOptions, warmLaunchSpec } from "../../src/pool/launch-spec";

/** The egress gateway the options name (the SandboxEgress entrypoint in the Worker); never reached here. */
const GATEWAY = { fetch: async () => new Response("gateway") } as unknown as Fetcher;
const containerBackendOptions = (env: Parameters<typeof backendOptions>[0] = {}) => backendOptions(env, GATEWAY);

/** A host that records what the backend asks and refuses everything past start. */
class RecordingHost implements IWorkspaceContainerAPI {
  readonly calls: string[] = [];
  readonly specs: ContainerLaunchSpec[] = [];
  async exitInfo() {
    this.calls.push("exitInfo");
    return null;
  }
  async start(spec: ContainerLaunchSpec): Promise<ContainerRuntimeInfo> {
    this.calls.push("start");
    this.specs.push(spec);
    return { runtimeId: "runtime-1", clientSecret: "secret-1", outcome: "launched" };
  }
  async interceptOutboundHttp(): Promise<void> {
    this.calls.push("interceptOutboundHttp");
    throw new Error("recording host: nothing past start");
  }
  async interceptAllOutboundHttp(): Promise<void> {
    throw new Error("recording host: unexpected interceptAllOutboundHttp");
  }
  async fetchPort(): Promise<Response> {
    throw new Error("recording host: unexpected fetchPort");
  }
  port(): Fetcher {
    throw new Error("recording host: unexpected port");
  }
  async restart(): Promise<ContainerRuntimeInfo> {
    throw new Error("recording host: unexpected restart");
  }
  async setInactivityTimeout(): Promise<void> {}
  async status() {
    return { running: false, exit: null };
  }
}

function backendOver(host: RecordingHost, options = containerBackendOptions()) {
  return new ContainerBackend({
    ...options,
    container: () => ({ getWorkspaceContainer: () => host }),
    workspace: { binding: "WorkspaceAgent", id: "workspace-under-test" },
    restartAttempts: 0
  });
}

describe("the warm launch spec", () => {
  it("is what ContainerBackend passes to start() for containerBackendOptions()", async () => {
    const host = new RecordingHost();
    await expect(backendOver(host).connect()).rejects.toThrow(/stage=egress/);
    expect(host.calls).toEqual(["exitInfo", "start", "interceptOutboundHttp"]);
    expect(host.specs).toEqual([warmLaunchSpec()]);
  });

  it("is what ContainerBackend passes to start() for an Enterprise host's options, which log gh in there", async () => {
    const env = { GITHUB_API_URL: "https://ghe.example.com/api/v3" };
    const host = new RecordingHost();
    await expect(backendOver(host, containerBackendOptions(env)).connect()).rejects.toThrow(/stage=egress/);
    expect(host.specs).toEqual([warmLaunchSpec(env)]);
    expect(host.specs[0]!.env).toMatchObject({ COMPUTER_VAR_GH_HOST: "ghe.example.com" });
    // A Sandbox warmed with another host's spec would not be adopted.
    expect(host.specs[0]).not.toEqual(warmLaunchSpec());
  });

  it("would catch a backend configured differently", async () => {
    const host = new RecordingHost();
    const drifted = { ...containerBackendOptions(), containerEnv: { ...containerBackendOptions().containerEnv, EXTRA: "1" } };
    await expect(backendOver(host, drifted).connect()).rejects.toThrow(/stage=egress/);
    expect(host.specs[0]).not.toEqual(warmLaunchSpec());
  });
});
