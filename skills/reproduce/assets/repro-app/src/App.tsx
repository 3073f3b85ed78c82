import { useState } from "react";
import { thrownResult, verdict } from "./outcome";
import { REPRO, triggerBug, type ReproResult } from "./repro";

type Shown = { state: "idle" } | { state: "running" } | { state: "done"; result: ReproResult };

export function App() {
  const [shown, setShown] = useState<Shown>({ state: "idle" });

  async function run() {
    setShown({ state: "running" });
    try {
      setShown({ state: "done", result: await triggerBug() });
    } catch (error) {
      setShown({ state: "done", result: thrownResult(error) });
    }
  }

  const result = shown.state === "done" ? shown.result : null;
  return (
    <main style={{ fontFamily: "system-ui, sans-serif", maxWidth: 760, margin: "2rem auto", padding: "0 1rem" }}>
      <h1 style={{ fontSize: "1.4rem" }}>{REPRO.title}</h1>
      <p>
        {/* Text, not a link: the page runs in a sandboxed frame that may navigate nowhere; the header above it links the issue. */}
        <code>{REPRO.issueUrl}</code>
        {REPRO.mode === "recorded" ? ` (recorded output: ${REPRO.note})` : null}
      </p>
      <button type="button" onClick={run} disabled={shown.state === "running"} style={{ fontSize: "1rem", padding: "0.5rem 1rem" }}>
        Trigger bug
      </button>
      {result ? (
        <section aria-live="polite">
          <p>
            <strong>{verdict(result)}</strong>
          </p>
          <h2 style={{ fontSize: "1rem" }}>Expected</h2>
          <pre data-testid="expected" style={{ background: "#eefbea", padding: "0.75rem", whiteSpace: "pre-wrap" }}>{result.expected}</pre>
          <h2 style={{ fontSize: "1rem" }}>Actual</h2>
          <pre data-testid="actual" style={{ background: "#fdecec", padding: "0.75rem", whiteSpace: "pre-wrap" }}>{result.actual}</pre>
        </section>
      ) : null}
    </main>
  );
}
