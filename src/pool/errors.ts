/**
 * Typed errors of the container path (Sandbox and WarmPool), and the switch
 * that says whether this environment has a container engine at all.
 *
 * Each error carries a stable `code`; the message is what a caller (or the
 * model, through the WorkspaceAgent) reads. Workers RPC keeps the message of
 * an error thrown across a Durable Object boundary but not its class, so the
 * message alone must be enough to recognise it. Pure.
 */

export const CONTAINERS_UNAVAILABLE_MESSAGE = "container backend unavailable: no container engine in this environment";

/** True where Cloudflare Containers run (production). Local dev and tests set `CONTAINERS_ENABLED` to "". */
export function containersEnabled(env: { CONTAINERS_ENABLED?: string }): boolean {
  return env.CONTAINERS_ENABLED === "1";
}

/** Raised at once, instead of a call that would wait for a container that can never start. */
export class ContainerUnavailableError extends Error {
  override readonly name = "ContainerUnavailableError";
  readonly code = "container_unavailable";
  constructor(message: string = CONTAINERS_UNAVAILABLE_MESSAGE) {
    super(message);
  }
}

/** What every "this Sandbox never starts again" error says (isSandboxRetired). */
const RETIRED_PHRASE = "was stopped and is never started again";

/** A Sandbox whose container was stopped: ids are single-use, so it never starts again. */
export class SandboxRetiredError extends Error {
  override readonly name = "SandboxRetiredError";
  readonly code = "sandbox_retired";
  constructor(sandbox: string) {
    super(`sandbox ${sandbox} ${RETIRED_PHRASE}; claim a fresh container from the warm pool`);
  }
}

/** A Sandbox past its hard lifetime (lifetime.ts): it is stopped, never started again. */
export class SandboxExpiredError extends Error {
  override readonly name = "SandboxExpiredError";
  readonly code = "sandbox_expired";
  constructor(sandbox: string, lifetimeMs: number) {
    super(`sandbox ${sandbox} reached its maximum lifetime of ${lifetimeMs} ms, so it ${RETIRED_PHRASE}; claim a fresh container from the warm pool`);
  }
}

/**
 * Whether `error` (a Sandbox's, possibly across RPC, where only the message
 * survives) says the Sandbox will never start again, stopped or past its
 * lifetime: its owner should give it back and claim a fresh one.
 */
export function isSandboxRetired(error: unknown): boolean {
  return describeError(error).includes(RETIRED_PHRASE);
}

/** The stale-container reconcile ran out of attempts. */
export class SandboxReconcileError extends Error {
  override readonly name = "SandboxReconcileError";
  readonly code = "sandbox_reconcile_failed";
  constructor(attempts: number, lastError: string) {
    super(`sandbox container did not start after ${attempts} reconcile attempts: ${lastError}`);
  }
}

/** A stop whose container was still running when the wait ran out; the pool retries it on the next prime. */
export class SandboxStopError extends Error {
  override readonly name = "SandboxStopError";
  readonly code = "sandbox_stop_failed";
  constructor(sandbox: string, waitedMs: number) {
    super(`sandbox ${sandbox}: container still running ${waitedMs} ms after destroy()`);
  }
}

/** A warm container whose daemon never answered its health check; the pool retries the warm. */
export class SandboxUnhealthyError extends Error {
  override readonly name = "SandboxUnhealthyError";
  readonly code = "sandbox_unhealthy";
  constructor(sandbox: string, waitedMs: number, lastError?: string) {
    super(`sandbox ${sandbox}: container not healthy ${waitedMs} ms after start${lastError ? `: ${lastError}` : ""}`);
  }
}

export function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
