/**
 * Whether this render must draw exactly what the Worker drew: true on the
 * Worker and in the browser while it hydrates that markup, false in every
 * render after. React renders a component again once hydrated when the
 * answer changes (useSyncExternalStore's server snapshot).
 */
import { useSyncExternalStore } from "react";

const unchanging = () => () => {};

export function useServerMarkup(): boolean {
  return useSyncExternalStore(
    unchanging,
    () => false,
    () => true
  );
}
