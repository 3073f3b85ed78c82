/**
 * `npm run send:delivery`: sign a sample `issue_comment.created` delivery
 * with the dev webhook secret and POST it to the local webhook app (`npm
 * run dev:ingress`), as GitHub would. Prints the answer and its outcome
 * (202 accepted, 204 ignored:<why>, ...). Flags: see `--help`;
 * `--review-comment` sends a `pull_request_review_comment.created` instead
 * (a line comment in pull request `--issue`'s diff, GitHub's example's
 * README.md line 265, on a branch of the repository itself).
 *
 * The secret is read from the gitignored `ingress/.dev.vars` that
 * dev:ingress writes, or from $GITHUB_WEBHOOK_SECRET.
 */
import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { fileURLToPath } from "node:url";
import { issueCommentPayload, reviewCommentPayload, signedDelivery } from "./lib/github-delivery";
import { INGRESS_DEV_VARS, parseSendArgs, SEND_USAGE as COMMENT_USAGE, WEBHOOK_PATH } from "./lib/ingress-dev";

const NAME = "npm run send:delivery";
const root = fileURLToPath(new URL("..", import.meta.url));
const REVIEW_COMMENT_FLAG = "--review-comment";
const SEND_USAGE = COMMENT_USAGE.replace(
  "  -h, --help ",
  `  ${REVIEW_COMMENT_FLAG}        send a pull_request_review_comment.created instead: a line comment in
                          pull request --issue's diff (README.md line 265, the PR's own branch)
  -h, --help `
);

const argv = process.argv.slice(2);
const reviewComment = argv.includes(REVIEW_COMMENT_FLAG);
const parsed = parseSendArgs(
  argv.filter((arg) => arg !== REVIEW_COMMENT_FLAG),
  () => Date.now()
);
if (!parsed.ok) {
  console.error(`${NAME}: ${parsed.error}\n\n${SEND_USAGE}`);
  process.exit(2);
}
if (parsed.kind === "help") {
  console.log(SEND_USAGE);
  process.exit(0);
}
const { args } = parsed;

const secret = process.env.GITHUB_WEBHOOK_SECRET || readDevSecret();
if (!secret) {
  console.error(`${NAME}: no webhook secret: run \`npm run dev:ingress\` once (it writes ${INGRESS_DEV_VARS}) or set GITHUB_WEBHOOK_SECRET`);
  process.exit(2);
}

const author = { body: args.body, login: args.login, association: args.association };
const delivery = reviewComment
  ? await signedDelivery(secret, reviewCommentPayload({ repo: args.repo, pullNumber: args.issueNumber, commentId: args.commentId, ...author }), {
      event: "pull_request_review_comment"
    })
  : await signedDelivery(secret, issueCommentPayload({ repo: args.repo, issueNumber: args.issueNumber, commentId: args.commentId, ...author }));
const target = `${args.url}${WEBHOOK_PATH}`;
const what = reviewComment ? `review comment ${args.commentId}` : `comment ${args.commentId}`;
console.log(`${NAME}: POST ${target} (delivery ${delivery.headers["x-github-delivery"]}, ${args.repo}#${args.issueNumber}, ${what})`);
try {
  const response = await fetch(target, { method: "POST", headers: delivery.headers, body: delivery.body, signal: AbortSignal.timeout(15_000) });
  const outcome = response.headers.get("agent-think-outcome") ?? "";
  await response.body?.cancel();
  console.log(`${NAME}: ${response.status} ${outcome}`);
  process.exitCode = response.ok ? 0 : 1;
} catch (error) {
  console.error(`${NAME}: ${target} did not answer (${error instanceof Error ? error.message : String(error)}); is \`npm run dev:ingress\` running?`);
  process.exitCode = 1;
}

function readDevSecret(): string | undefined {
  try {
    return parseEnv(readFileSync(`${root}${INGRESS_DEV_VARS}`, "utf8")).GITHUB_WEBHOOK_SECRET;
  } catch {
    return undefined;
  }
}
