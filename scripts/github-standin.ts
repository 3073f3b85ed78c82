/**
 * The recording GitHub stand-in on its own (`npm start` runs one itself):
 * `npm run github-standin`, port from GITHUB_STANDIN_PORT (default 8790),
 * collaborator roles from GITHUB_STANDIN_PERMISSIONS ("mallory=read"), the
 * user a user's token (`ghp_…`) acts as from GITHUB_STANDIN_USER (octocat),
 * and where users' comments (`issue_comment.created`) and their
 * assignments and labels (`issues.assigned`, `.unassigned`, `.labeled`,
 * `.unlabeled`) are delivered, from GITHUB_STANDIN_WEBHOOK_URL with GITHUB_STANDIN_WEBHOOK_SECRET (both or
 * neither; `POST /_standin/webhook` sets it later), and a seeded CI run's
 * `check_suite.completed` or `workflow_run.completed` when asked
 * (`POST /_standin/ci-runs`, then `POST /_standin/ci-deliveries`). Prints each call it
 * records, and says so when it refused one as GitHub would, and each
 * delivery with its outcome; `GET /_standin/records` lists the calls,
 * `GET /_standin/refusals` the refused ones, `GET /_standin/deliveries` the
 * deliveries.
 */
import { describeDelivery, describeRecord, startGitHubStandin } from "./lib/github-standin";
import { parsePort } from "./lib/wrangler-dev";

const port = parsePort(process.env.GITHUB_STANDIN_PORT ?? "8790");
if (!port.ok) {
  console.error(`github-standin: ${port.error.replace("PORT", "GITHUB_STANDIN_PORT")}`);
  process.exit(2);
}
const standin = await startGitHubStandin({
  port: port.port,
  onRecord: (record) => console.log(`github-standin ${describeRecord(record)}`),
  onDelivery: (delivery) => console.log(`github-standin ${describeDelivery(delivery)}`)
}).catch((error: unknown) => {
  console.error(`github-standin: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
console.log(`github-standin listening on ${standin.url} (records: ${standin.url}/_standin/records, refusals: ${standin.url}/_standin/refusals, deliveries: ${standin.url}/_standin/deliveries)`);
if (process.env.GITHUB_STANDIN_WEBHOOK_URL) console.log(`github-standin delivers users' comments to ${process.env.GITHUB_STANDIN_WEBHOOK_URL}`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => void standin.close().then(() => process.exit(0)));
}
