/**
 * `npm start`: the whole agent on this machine, no Docker and no credentials.
 *
 * 1. Seeds the local skills bucket from skills/** (what `npm run seed:r2 --
 *    --local` does), so the dev Worker reads the skills in the repository.
 * 2. Starts the recording GitHub stand-in on 127.0.0.1 (port
 *    `GITHUB_STANDIN_PORT`, default 8790) and prints every call it records:
 *    the reactions and comments a run would have posted.
 * 3. Runs `wrangler dev --local` on 127.0.0.1 (port `PORT`, default 8787)
 *    with `LOCAL_DEV=1` and GITHUB_API_URL pointing at the stand-in, keeping
 *    state in wrangler's default `.wrangler/state` (or `PERSIST_TO`), and
 *    passes its output through. Once wrangler is ready it prints how to
 *    dispatch a run, read its transcript and see what it posted.
 * Wrangler runs in its own process group because it leaves workerd children
 * behind; Ctrl-C or SIGTERM stops that whole group and the stand-in. When
 * wrangler exits by itself, this exits with its code.
 */
import { fileURLToPath } from "node:url";
import { runWranglerInForeground } from "./lib/foreground-wrangler";
import { parsePort, startBanner, wranglerDevArgs } from "./lib/wrangler-dev";
import { describeRecord, startGitHubStandin } from "./lib/github-standin";
import { formatSeedSummary, seedSkills } from "./lib/seed-skills";

const root = fileURLToPath(new URL("..", import.meta.url));

const port = parsePort(process.env.PORT);
if (!port.ok) {
  console.error(`npm start: ${port.error}`);
  process.exit(2);
}

const standinPort = parsePort(process.env.GITHUB_STANDIN_PORT ?? "8790");
if (!standinPort.ok) {
  console.error(`npm start: GITHUB_STANDIN_PORT: ${standinPort.error}`);
  process.exit(2);
}
const persistTo = process.env.PERSIST_TO?.trim() || undefined;

try {
  console.log(formatSeedSummary(await seedSkills({ local: true, ...(persistTo ? { persistTo } : {}) })));
} catch (error) {
  console.error(`npm start: the skills were not seeded: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

const standin = await startGitHubStandin({
  port: standinPort.port,
  onRecord: (record) => console.log(`github-standin ${describeRecord(record)}`)
}).catch((error: unknown) => {
  console.error(`npm start: the GitHub stand-in could not listen on port ${standinPort.port}: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

runWranglerInForeground({
  name: "npm start",
  root,
  args: wranglerDevArgs({ port: port.port, localDev: true, githubApiUrl: standin.url, ...(persistTo ? { persistTo } : {}) }),
  onReady: (url) => process.stdout.write(`${startBanner(url, standin.url)}\n`),
  onStop: () => standin.close()
});
