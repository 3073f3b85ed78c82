/**
 * Counts the Durable Objects a `wrangler dev --persist-to <dir>` has
 * created, read straight from its state directory, so a hostile test can
 * prove that a request instantiated nothing. Miniflare keeps one SQLite file
 * per object, named by the object's id, under
 * `<dir>/v3/do/<worker name>-<ClassName>/<id hex>.sqlite` (beside its own
 * `metadata.sqlite` and the WAL files). An agent writes its tables in its
 * constructor, so an object that was only woken up for a request and
 * answered 404 still leaves its file.
 *
 * Reads only; never touches a running object's files.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";

/** The agent Worker's name in wrangler.jsonc: the prefix of its object directories. */
export const AGENT_WORKER_NAME = "agent-think";

export const DURABLE_OBJECT_CLASSES = ["ThinkAgent", "WorkspaceAgent", "Sandbox", "WarmPool", "CommandCenterAgent"] as const;
export type DurableObjectClass = (typeof DURABLE_OBJECT_CLASSES)[number];

const OBJECT_FILE = /^[0-9a-f]{64}\.sqlite$/;

export function durableObjectDirectory(persistTo: string, className: string, workerName = AGENT_WORKER_NAME): string {
  return join(persistTo, "v3", "do", `${workerName}-${className}`);
}

/** How many objects of `className` exist (0 before the class's first object, when the directory may be missing). */
export async function countDurableObjects(persistTo: string, className: string, workerName = AGENT_WORKER_NAME): Promise<number> {
  return (await durableObjectIds(persistTo, className, workerName)).length;
}

/** The ids (hex) of the objects of `className`. */
export async function durableObjectIds(persistTo: string, className: string, workerName = AGENT_WORKER_NAME): Promise<string[]> {
  let names: string[];
  try {
    names = await readdir(durableObjectDirectory(persistTo, className, workerName));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return names.filter((name) => OBJECT_FILE.test(name)).map((name) => name.slice(0, -".sqlite".length));
}

/** Every agent Worker class's object count, for a before/after comparison. */
export async function countAllDurableObjects(persistTo: string): Promise<Record<DurableObjectClass, number>> {
  const entries = await Promise.all(
    DURABLE_OBJECT_CLASSES.map(async (className) => [className, await countDurableObjects(persistTo, className)] as const)
  );
  return Object.fromEntries(entries) as Record<DurableObjectClass, number>;
}
