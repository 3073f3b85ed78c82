/**
 * Whether a container can start here: the WorkspaceAgent (before its first
 * container command) and the health report ask. `CONTAINERS_ENABLED` says a
 * deploy runs containers; a deploy is taken at its word, so a missing
 * container there stays a failure. Only under `LOCAL_DEV=1` is a Sandbox
 * asked whether wrangler dev gave it a container: a plain `wrangler dev`
 * keeps the config's `CONTAINERS_ENABLED=1` but starts without one
 * (docs/containers.md, "Local dev without a container engine"), and local
 * dev then runs as `npm start` does: the worker shell, no clone. Pure.
 */
import { CONTAINER_UNAVAILABLE } from "../run/bash-command";
import { containersEnabled } from "./errors";

/** `on`: containers run. `off`: CONTAINERS_ENABLED is not "1". `absent`: local dev whose Sandbox has no container. */
export type ContainerEngine = "on" | "off" | "absent";

/** The Sandbox asked in local dev; it never starts a container (`Sandbox.hasContainer`). */
export const ENGINE_PROBE_SANDBOX = "engine-probe";

/** What a container command answers in local dev with containers on but no engine, and what the run logs once. */
export const NO_CONTAINER_ENGINE =
  'container backend unavailable: no container engine: CONTAINERS_ENABLED is "1", but this wrangler dev runs the Sandbox without a container ' +
  "(dev.enable_containers is false in wrangler.jsonc); local dev uses the worker shell, as npm start does; use the shell backend";

/** The way out, for the log line and the health report. */
export const NO_CONTAINER_ENGINE_FIX =
  "npm start runs local dev without containers on purpose; for container commands start Docker and run wrangler dev --enable-containers=true";

type EngineSettings = { CONTAINERS_ENABLED?: string; LOCAL_DEV?: string };

/** Whether `settings` leave the engine to be asked (local dev with containers on); a deploy is never asked. */
export function asksForEngine(settings: EngineSettings): boolean {
  return containersEnabled(settings) && settings.LOCAL_DEV === "1";
}

/**
 * The engine as `settings` and, in local dev only, `hasContainer` (a
 * Sandbox's answer) say. A probe that fails counts as `on`: the container
 * command then fails with its own error, as it would have.
 */
export async function containerEngine(settings: EngineSettings, hasContainer: () => Promise<boolean>): Promise<ContainerEngine> {
  if (!containersEnabled(settings)) return "off";
  return asksForEngine(settings) ? await askedEngine(hasContainer) : "on";
}

/** A Sandbox's answer, where it is asked. */
export async function askedEngine(hasContainer: () => Promise<boolean>): Promise<"on" | "absent"> {
  try {
    return (await hasContainer()) ? "on" : "absent";
  } catch {
    return "on";
  }
}

/** Whether a container command's error says only that this environment has no container (the run goes on in the worker shell). */
export function isContainerAbsent(error: string): boolean {
  return error === CONTAINER_UNAVAILABLE || error === NO_CONTAINER_ENGINE;
}
