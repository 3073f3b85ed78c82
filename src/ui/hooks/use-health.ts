/**
 * The configuration health report, fetched once per page load (after its
 * first frame) and shared by every page that shows the banner. A report
 * that cannot be fetched shows no banner (the page's own loading says when
 * the server is down) and is logged to the console.
 */
import { useEffect, useState } from "react";
import { fetchHealth } from "../api";
import { afterNextPaint } from "./after-paint";
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
    // After the page's first frame, which it has no part in.
    const cancel = afterNextPaint(() => {
      void loadHealth().then((value) => {
        if (live) setReport(value);
      });
    });
    return () => {
      live = false;
      cancel();
    };
  }, []);
  return report;
}
