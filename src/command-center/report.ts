/**
 * Fire-and-forget reporting to the command center, for the ThinkAgent: the
 * returned promise never rejects, so a command center that throws or hangs
 * can never fail a run. Hand it to `ctx.waitUntil`, never `await` it on the
 * turn's path. Pure: the sender and the error sink are parameters.
 */
export function reportSafely(send: () => Promise<unknown>, onError: (error: unknown) => void): Promise<void> {
  return (async () => {
    try {
      await send();
    } catch (error) {
      try {
        onError(error);
      } catch {
        // A failing error sink is as harmless as a failing report.
      }
    }
  })();
}
