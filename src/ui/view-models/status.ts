/**
 * Which thread statuses are active (the run has not ended): the dashboard's
 * copy of `isActiveStatus`, so the view-models take only types from the
 * shared wire module, which holds the zod schemas (see wire.ts). A Record,
 * so a status added to the shared schema fails to compile here until it is
 * sorted. Pure.
 */
import type { ActiveStatus, ThreadStatus } from "../../shared/command-center";

const ACTIVE: Record<ThreadStatus, boolean> = { running: true, recovering: true, done: false, error: false, cancelled: false };

export function isActive(status: ThreadStatus): status is ActiveStatus {
  return ACTIVE[status];
}
