/**
 * The configuration health report, fetched once per page load and shared by
 * every page that shows the banner. A report that cannot be fetched shows
 * no banner (the page's own loading says when the server is down) and is
 * logged to the console.
 */
import { useEffect, useState } from "react";
import { fetchHealth } from "../api";
import type { HealthReport } from "../../shared/health";

let loaded: Promise<HealthReport | null> | undefined;

function loadHealth(): Promise<HealthReport | null> {
  loaded ??= fetchHealth().catch((error: unknown) => {
    console.warn(`[agent-think] the health report could not be loaded: ${error instanceof Error ? error.message : String(error)}`);
    return null;
  });
  return loaded;
}

export function useHealth(): HealthReport | null {
  const [report, setReport] = useState<HealthReport | null>(null);
  useEffect(() => {
    let live = true;
    void loadHealth().then((value) => {
      if (live) setReport(value);
    });
    return () => {
      live = false;
    };
  }, []);
  return report;
}
