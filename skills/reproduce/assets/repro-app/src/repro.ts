// The reproduction. Replace the values and the body of triggerBug(); keep
// the export names. `npm run repro` (check.mjs) runs this file in Node as the
// page's button runs it in the browser, so keep it free of the DOM, and of
// TypeScript Node cannot strip (enum, namespace, parameter properties). It
// exits 0 when actual matches expected, 1 when they differ, and 2 when it
// could not run (still this template, or the file does not load).
//
// expected and actual are strings. Several examples fold into one value:
// JSON.stringify an object keyed by the call, the same keys on both sides:
//   expected: JSON.stringify({ "camelCase('IDs')": "ids", "camelCase('AmazingIDs')": "amazingIds" }, null, 2),
//   actual: JSON.stringify({ "camelCase('IDs')": camelCase("IDs"), "camelCase('AmazingIDs')": camelCase("AmazingIDs") }, null, 2)
// A triggerBug() that throws shows as the actual "threw <Name>: <message>".
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
