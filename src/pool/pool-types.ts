/**
 * The warm pool's wire types, shared by the WarmPool Durable Object, the
 * WorkspaceAgent that claims from it and the dashboard. Pure.
 */

/** Who holds a container: one turn of one issue, `<session>:<submissionId>`. */
export type PoolOwner = string;

export type PoolStats = {
  /** Unassigned containers started or starting (the target is one). */
  warm: number;
  /** Containers held by a turn. */
  assigned: number;
  /** warm + assigned. */
  total: number;
  /** Containers released or reclaimed whose stop has not succeeded yet (retried until it does). */
  retiring: number;
  /** How many unassigned containers the pool keeps. */
  target: number;
};

export type ClaimResult = {
  /** The Sandbox Durable Object name of the container handed out. */
  sandboxId: string;
  /** True when this owner already held it (a retry, or a turn after an eviction). */
  reused: boolean;
};

export type ReleaseResult = { released: boolean; sandboxId?: string };

export const poolOwner = (session: string, submissionId: string): PoolOwner => `${session}:${submissionId}`;
