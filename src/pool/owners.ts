/**
 * Asking an owner whether it still holds its container, so the WarmPool can
 * reclaim what a release that never arrived left assigned
 * (warm-pool-manager.ts). An owner is `<session>:<submissionId>`: the
 * issue's WorkspaceAgent during one turn, asked through its `holding()`.
 * The WarmPool wires `workspaceOwners` over `getAgentByName`; tests pass a
 * fake lookup. Pure. docs/containers.md, "No container without an owner".
 */
import type { PoolOwner } from "./pool-types";

/** What the WorkspaceAgent's `holding()` answers. */
export type OwnerHolding = { submissionId?: string; sandboxId?: string };

/** The pool's view of its owners. Rejects when the owner cannot be reached. */
export interface PoolOwners {
  holds(owner: PoolOwner, sandboxId: string): Promise<boolean>;
}

/** How long the pool waits for one owner's answer before counting it unreachable. */
export const OWNER_QUERY_TIMEOUT_MS = 10_000;

/** An owner the pool cannot ask: malformed, or it did not answer. */
export class OwnerUnreachableError extends Error {
  override readonly name = "OwnerUnreachableError";
  readonly code = "owner_unreachable";
}

/** Split `<session>:<submissionId>` at its last ':' (a session name may hold ':', a submission id does not). */
export function parseOwner(owner: PoolOwner): { session: string; submissionId: string } | null {
  const at = owner.lastIndexOf(":");
  if (at <= 0 || at === owner.length - 1) return null;
  return { session: owner.slice(0, at), submissionId: owner.slice(at + 1) };
}

/** Whether an owner in turn `submissionId` holds `sandboxId`, by what its workspace answered. */
export function holdsContainer(holding: OwnerHolding, submissionId: string, sandboxId: string): boolean {
  return holding.submissionId === submissionId && (holding.sandboxId === undefined || holding.sandboxId === sandboxId);
}

/** Owners answered by the workspace named by each owner's session. */
export function workspaceOwners(
  holdingOf: (session: string) => Promise<OwnerHolding>,
  options: { timeoutMs?: number } = {}
): PoolOwners {
  const timeoutMs = options.timeoutMs ?? OWNER_QUERY_TIMEOUT_MS;
  return {
    async holds(owner, sandboxId) {
      const parsed = parseOwner(owner);
      if (!parsed) throw new OwnerUnreachableError(`owner ${JSON.stringify(owner)} is not <session>:<submissionId>`);
      const holding = await withTimeout(holdingOf(parsed.session), timeoutMs, `owner ${parsed.session} did not answer within ${timeoutMs} ms`);
      return holdsContainer(holding, parsed.submissionId, sandboxId);
    }
  };
}

async function withTimeout<T>(work: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new OwnerUnreachableError(message)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
