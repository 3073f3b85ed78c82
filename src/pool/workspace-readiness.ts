/**
 * A WorkspaceAgent's readiness before its first file or command: whether a
 * container can start here (asked once, in local dev only, before the
 * backends are built: engine.ts), a /workspace to write into, and the files
 * of a workspace from before each trust tier had its own dropped, once
 * (docs/storage.md, docs/security.md). A failed attempt is tried again on
 * the next call. Pure: the files, the marker store and the probe are handed in.
 */
import type { Logger } from "../run/log";
import { askedEngine, NO_CONTAINER_ENGINE, NO_CONTAINER_ENGINE_FIX } from "./engine";

/** Set once a workspace holds only what runs of its own trust tier wrote (docs/storage.md). */
export const TRUST_MARKER_KEY = "agent-think:workspace-trust-v1";
export const WORKSPACE_ROOT = "/workspace";

export type WorkspaceFiles = {
  mkdir(path: string, options: { recursive: true }): Promise<unknown>;
  readdir(path: string): Promise<readonly unknown[]>;
  rm(path: string, options: { recursive: true; force: true }): Promise<unknown>;
};

export type WorkspaceReadinessDeps = {
  /** The Workspace's files (building it on first use, after the engine was asked). */
  files: () => WorkspaceFiles;
  /** Where the trust marker is kept (the object's synchronous KV). */
  marker: { get(key: string): unknown; put(key: string, value: unknown): void };
  /** Asks whether the local Sandbox has a container; null where nothing is asked. */
  probe: () => (() => Promise<boolean>) | null;
  containersEnabled: () => boolean;
  /** Whether the Workspace is built already: its backends are decided then. */
  built: () => boolean;
  log: Logger;
};

export class WorkspaceReadiness {
  readonly #deps: WorkspaceReadinessDeps;
  #ready: Promise<void> | undefined;
  #engineAbsent = false;

  constructor(deps: WorkspaceReadinessDeps) {
    this.#deps = deps;
  }

  /** Local dev whose Sandbox has no container: container commands answer NO_CONTAINER_ENGINE. */
  get engineAbsent(): boolean {
    return this.#engineAbsent;
  }

  ensure(): Promise<void> {
    // The engine first: it decides whether the workspace gets a container backend.
    this.#ready ??= this.#askEngine()
      .then(() => this.#deps.files().mkdir(WORKSPACE_ROOT, { recursive: true }))
      .then(() => this.#trustedSince())
      .catch((error: unknown) => {
        this.#ready = undefined;
        throw error;
      });
    return this.#ready;
  }

  /** Empty /workspace, once ready. */
  async reset(): Promise<void> {
    await this.ensure();
    await this.#empty();
  }

  async #empty(): Promise<void> {
    const files = this.#deps.files();
    await files.rm(WORKSPACE_ROOT, { recursive: true, force: true });
    await files.mkdir(WORKSPACE_ROOT, { recursive: true });
  }

  /** Files from before each trust tier had a workspace of its own (a reporter's run may have written them) are dropped, once. */
  async #trustedSince(): Promise<void> {
    if (this.#deps.marker.get(TRUST_MARKER_KEY)) return;
    const entries = await this.#deps.files().readdir(WORKSPACE_ROOT);
    if (entries.length > 0) {
      await this.#empty();
      this.#deps.log("workspace:emptied-once", { entries: entries.length, why: "written before each trust tier had its own workspace" });
    }
    this.#deps.marker.put(TRUST_MARKER_KEY, 1);
  }

  /** Once per instance, in local dev with containers on: is there a container to start? Said once in the log when not. */
  async #askEngine(): Promise<void> {
    const probe = this.#deps.probe();
    if (!probe || !this.#deps.containersEnabled() || this.#deps.built()) return;
    if ((await askedEngine(probe)) !== "absent") return;
    this.#engineAbsent = true;
    this.#deps.log("workspace:no-container-engine", { error: NO_CONTAINER_ENGINE, fix: NO_CONTAINER_ENGINE_FIX });
  }
}
