// The reproduction. Replace the values and the body of triggerBug(); keep
// the export names, and keep this file free of the DOM so that
// `npm run repro` can run it in Node too (exit 1 while the bug is there).
export type ReproResult = { expected: string; actual: string };

export const REPRO = {
  title: "REPLACE: the issue title",
  issueUrl: "https://github.com/OWNER/REPO/issues/0",
  // "live": the button runs triggerBug() in the page. "recorded": the bug
  // needs a runtime the page does not have, so triggerBug() returns output
  // captured in the container; say how it was captured in `note`.
  mode: "live" as "live" | "recorded",
  note: ""
};

export async function triggerBug(): Promise<ReproResult> {
  throw new Error("triggerBug() is still the template: replace it with the reproduction");
}
