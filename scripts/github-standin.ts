/**
 * The recording GitHub stand-in on its own (`npm start` runs one itself):
 * `npm run github-standin`, port from GITHUB_STANDIN_PORT (default 8790),
 * collaborator roles from GITHUB_STANDIN_PERMISSIONS ("mallory=read").
 * Prints each call it records, and says so when it refused one as GitHub
 * would; `GET /_standin/records` lists them, `GET /_standin/refusals` the
 * refused ones.
 */
import { describeRecord, startGitHubStandin } from "./lib/github-standin";
import { parsePort } from "./lib/wrangler-dev";

const port = parsePort(process.env.GITHUB_STANDIN_PORT ?? "8790");
if (!port.ok) {
  console.error(`github-standin: ${port.error.replace("PORT", "GITHUB_STANDIN_PORT")}`);
  process.exit(2);
}
const standin = await startGitHubStandin({
  port: port.port,
  onRecord: (record) => console.log(`github-standin ${describeRecord(record)}`)
}).catch((error: unknown) => {
  console.error(`github-standin: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
console.log(`github-standin listening on ${standin.url} (records: ${standin.url}/_standin/records, refusals: ${standin.url}/_standin/refusals)`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => void standin.close().then(() => process.exit(0)));
}
