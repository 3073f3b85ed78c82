/**
 * WorkspaceReadiness: the engine asked once, only where there is a probe,
 * containers are on and the backends are not built yet; /workspace made; a
 * workspace from before each tier had its own emptied once and marked; a
 * failed attempt tried again; and `reset` emptying /workspace.
 */
import { describe, expect, it } from "vitest";
import { NO_CONTAINER_ENGINE } from "../../src/pool/engine";
import { TRUST_MARKER_KEY, WorkspaceReadiness, type WorkspaceReadinessDeps } from "../../src/pool/workspace-readiness";

function readiness(options: { entries?: string[]; marked?: boolean; deps?: Partial<WorkspaceReadinessDeps> } = {}) {
  const calls: string[] = [];
  const marker = new Map<string, unknown>(options.marked ? [[TRUST_MARKER_KEY, 1]] : []);
  const logged: Array<{ event: string; fields?: Record<string, unknown> }> = [];
  let entries = options.entries ?? [];
  const ready = new WorkspaceReadiness({
    files: () => ({
      mkdir: async (path) => void calls.push(`mkdir ${path}`),
      readdir: async (path) => (calls.push(`readdir ${path}`), entries),
      rm: async (path) => {
        calls.push(`rm ${path}`);
        entries = [];
      }
    }),
    marker: { get: (key) => marker.get(key), put: (key, value) => void marker.set(key, value) },
    probe: () => null,
    containersEnabled: () => true,
    built: () => false,
    log: (event, fields) => void logged.push({ event, fields }),
    ...options.deps
  });
  return { ready, calls, marker, logged };
}

describe("WorkspaceReadiness", () => {
  it("makes /workspace and marks a workspace that holds nothing, once", async () => {
    const { ready, calls, marker, logged } = readiness();
    await ready.ensure();
    await ready.ensure();
    expect(calls).toEqual(["mkdir /workspace", "readdir /workspace"]);
    expect(marker.get(TRUST_MARKER_KEY)).toBe(1);
    expect(logged).toEqual([]);
  });

  it("empties a workspace from before each tier had its own, once, and says so", async () => {
    const { ready, calls, logged } = readiness({ entries: ["repo", "notes.md"] });
    await ready.ensure();
    expect(calls).toEqual(["mkdir /workspace", "readdir /workspace", "rm /workspace", "mkdir /workspace"]);
    expect(logged).toEqual([{ event: "workspace:emptied-once", fields: { entries: 2, why: "written before each trust tier had its own workspace" } }]);
  });

  it("leaves a marked workspace's files alone", async () => {
    const { ready, calls } = readiness({ entries: ["repo"], marked: true });
    await ready.ensure();
    expect(calls).toEqual(["mkdir /workspace"]);
  });

  it("asks the engine first and once, and remembers its absence", async () => {
    let asked = 0;
    const { ready, calls, logged } = readiness({
      deps: {
        probe: () => async () => {
          asked++;
          calls.push("probe");
          return false;
        }
      }
    });
    await ready.ensure();
    await ready.ensure();
    expect(asked).toBe(1);
    expect(calls[0]).toBe("probe");
    expect(ready.engineAbsent).toBe(true);
    expect(logged).toContainEqual({ event: "workspace:no-container-engine", fields: { error: NO_CONTAINER_ENGINE, fix: expect.any(String) } });
  });

  it("does not ask the engine with containers off, with the backends built, or with a container there", async () => {
    for (const deps of [
      { containersEnabled: () => false },
      { built: () => true },
      {}
    ] satisfies Partial<WorkspaceReadinessDeps>[]) {
      let asked = 0;
      const { ready } = readiness({ deps: { probe: () => async () => (asked++, true), ...deps } });
      await ready.ensure();
      expect(ready.engineAbsent).toBe(false);
      expect(asked).toBe(Object.keys(deps).length === 0 ? 1 : 0);
    }
  });

  it("tries a failed attempt again on the next call", async () => {
    let fail = true;
    const { ready, marker } = readiness({
      deps: {
        marker: {
          get: () => undefined,
          put: (key, value) => {
            if (fail) throw new Error("storage reset");
            marker.set(key, value);
          }
        }
      }
    });
    await expect(ready.ensure()).rejects.toThrow("storage reset");
    fail = false;
    await ready.ensure();
    expect(marker.get(TRUST_MARKER_KEY)).toBe(1);
  });

  it("resets by emptying /workspace once ready", async () => {
    const { ready, calls } = readiness({ marked: true });
    await ready.reset();
    expect(calls).toEqual(["mkdir /workspace", "rm /workspace", "mkdir /workspace"]);
  });
});
