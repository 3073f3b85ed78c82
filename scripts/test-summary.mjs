// Prints one closing line for `npm test`: the totals of every vitest run's
// JSON report in test-results/, as "N passed, N failed".
import { readdirSync, readFileSync } from "node:fs";

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of readdirSync("test-results").filter((name) => name.endsWith(".json"))) {
  const report = JSON.parse(readFileSync(`test-results/${file}`, "utf8"));
  passed += report.numPassedTests;
  failed += report.numFailedTests;
  skipped += report.numPendingTests + report.numTodoTests;
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exitCode = failed === 0 && passed > 0 ? 0 : 1;
