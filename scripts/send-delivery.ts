/**
 * `npm run send:delivery`: sign a sample `issue_comment.created` delivery
 * with the dev webhook secret and POST it to the local webhook app (`npm
 * run dev:ingress`), as GitHub would. Prints the answer and its outcome
 * (202 accepted, 204 ignored:<why>, ...). Flags: see `--help`;
 * `--review-comment` sends a `pull_request_review_comment.created` instead
 * (a line comment in pull request `--issue`'s diff, GitHub's example's
 * README.md line 265, on a branch of the repository itself); `--event
 * issues.assigned` (`.unassigned`, `.labeled`, `.unlabeled`) a change to
 * issue `--issue` by `--login`: the App's bot (`--assignee`, default
 * agent-think[bot]) assigned or unassigned, or the label (`--label`,
 * default agent-think) added or removed, as GitHub's `issues` example.
 *
 * The secret is read from the gitignored `ingress/.dev.vars` that
 * dev:ingress writes, or from $GITHUB_WEBHOOK_SECRET.
 */
import { readFileSync } from "node:fs";
import { parseEnv } from "node:util";
import { fileURLToPath } from "node:url";
import { issueCommentPayload, issuesPayload, reviewCommentPayload, signedDelivery, type IssuesAction } from "./lib/github-delivery";
import { INGRESS_DEV_VARS, parseSendArgs, SEND_USAGE as COMMENT_USAGE, WEBHOOK_PATH } from "./lib/ingress-dev";

const NAME = "npm run send:delivery";
const root = fileURLToPath(new URL("..", import.meta.url));
const REVIEW_COMMENT_FLAG = "--review-comment";
const ISSUES_ACTIONS: readonly IssuesAction[] = ["assigned", "unassigned", "labeled", "unlabeled"];
const SEND_USAGE = COMMENT_USAGE.replace(
  "  -h, --help ",
  `  ${REVIEW_COMMENT_FLAG}        send a pull_request_review_comment.created instead: a line comment in
                          pull request --issue's diff (README.md line 265, the PR's own branch)
  --event <name>          issue_comment.created (the default), or issues.assigned, issues.unassigned,
                          issues.labeled, issues.unlabeled: a change to issue --issue by --login
  --assignee <login>      the assignee of issues.assigned/unassigned (default: agent-think[bot])
  --label <name>          the label of issues.labeled/unlabeled (default: agent-think)
  -h, --help `
);

/** `argv` without `--name <value>` (or `--name=<value>`), and the value; undefined when absent, null when it has none. */
function takeFlag(argv: string[], name: string): { rest: string[]; value: string | undefined | null } {
  const rest: string[] = [];
  let value: string | undefined | null;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === `--${name}`) value = argv[++i] ?? null;
    else if (arg.startsWith(`--${name}=`)) value = arg.slice(name.length + 3);
    else rest.push(arg);
  }
  return { rest, value };
}

const event = takeFlag(process.argv.slice(2), "event");
const assigneeFlag = takeFlag(event.rest, "assignee");
const labelFlag = takeFlag(assigneeFlag.rest, "label");
const argv = labelFlag.rest;
const reviewComment = argv.includes(REVIEW_COMMENT_FLAG);
const eventName = event.value ?? "issue_comment.created";
const issuesAction = /^issues\.(.+)$/.exec(eventName ?? "")?.[1] as IssuesAction | undefined;
for (const [flag, taken] of [["--event", event], ["--assignee", assigneeFlag], ["--label", labelFlag]] as const) {
  if (taken.value === null || taken.value === "") usageError(`${flag} needs a value`);
}
if (eventName !== "issue_comment.created" && (issuesAction === undefined || !ISSUES_ACTIONS.includes(issuesAction))) {
  usageError(`--event must be issue_comment.created or issues.${ISSUES_ACTIONS.join(", issues.")}, not ${JSON.stringify(eventName)}`);
}
if (issuesAction !== undefined && reviewComment) usageError(`${REVIEW_COMMENT_FLAG} and --event issues.* are two different deliveries`);
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
const delivery = issuesAction
  ? await signedDelivery(
      secret,
      issuesPayload({
        repo: args.repo,
        issueNumber: args.issueNumber,
        action: issuesAction,
        login: args.login,
        opener: { login: args.login, association: args.association },
        ...(assigneeFlag.value ? { assignee: { login: assigneeFlag.value } } : {}),
        ...(labelFlag.value ? { label: { name: labelFlag.value } } : {})
      }),
      { event: "issues" }
    )
  : reviewComment
  ? await signedDelivery(secret, reviewCommentPayload({ repo: args.repo, pullNumber: args.issueNumber, commentId: args.commentId, ...author }), {
      event: "pull_request_review_comment"
    })
  : await signedDelivery(secret, issueCommentPayload({ repo: args.repo, issueNumber: args.issueNumber, commentId: args.commentId, ...author }));
const target = `${args.url}${WEBHOOK_PATH}`;
const what = issuesAction
  ? `${eventName}: ${issuesAction.endsWith("assigned") ? (assigneeFlag.value ?? "agent-think[bot]") : (labelFlag.value ?? "agent-think")} by ${args.login}`
  : reviewComment
    ? `review comment ${args.commentId}`
    : `comment ${args.commentId}`;
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

function usageError(message: string): never {
  console.error(`${NAME}: ${message}\n\n${SEND_USAGE}`);
  process.exit(2);
}

function readDevSecret(): string | undefined {
  try {
    return parseEnv(readFileSync(`${root}${INGRESS_DEV_VARS}`, "utf8")).GITHUB_WEBHOOK_SECRET;
  } catch {
    return undefined;
  }
}
