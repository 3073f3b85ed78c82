/**
 * One bash command on one of the workspace's two shells, as the tool, the
 * WorkspaceAgent and the Worker's own steps pass it: its input, its result
 * and the limits on both.
 */
export const BACKENDS = ["shell", "container"] as const;
export type BackendId = (typeof BACKENDS)[number];

export const DEFAULT_TIMEOUT_MS = 120_000;

/** What the container backend answers in a deploy with no container engine (local dev). */
export const CONTAINER_UNAVAILABLE =
  "container backend unavailable: this environment has no container engine (local dev); use the shell backend";
export const MAX_TIMEOUT_MS = 30 * 60_000;

export type BashInput = { command: string; backend: BackendId; timeoutMs: number };

export type BashStream = { text: string; totalBytes: number; totalLines: number; log?: string };

export type BashResult =
  | {
      backend: BackendId;
      exitCode: number;
      stdout: BashStream;
      stderr: BashStream;
      durationMs: number;
      /** The wrapper's timeout stopped the command (container backend), whatever its exit code. */
      timedOut?: boolean;
      /** It ignored SIGTERM and was killed with SIGKILL after the grace (exit 137); implies timedOut. */
      killed?: boolean;
    }
  | { backend: BackendId; error: string };
