/**
 * GitHub's own `issues` deliveries for the webhook app's tests (assigned,
 * unassigned, labeled, unlabeled: @octokit/webhooks-examples), changed only
 * where a case needs it: the assignee made the App's bot, the label's name,
 * and the issue's `updated_at` made now (the examples are from 2019, far
 * outside the delivery window). Free of workers imports: the Workers tests
 * send them (issue-events.test.ts) and a plain-Node test holds them to
 * GitHub's webhook schema (unit/issue-event-payloads.test.ts).
 */
import { issuesExample } from "./examples";
import { githubTime } from "./payloads";

export type IssuesAction = "assigned" | "unassigned" | "labeled" | "unlabeled";

export type IssuesExample = {
  action: string;
  issue: { number: number; updated_at: string };
  assignee?: Record<string, unknown> | null;
  label?: Record<string, unknown> & { name: string };
  sender: { login: string; type: string };
  installation?: { id: number };
};

/** The App's bot as GitHub describes a user: `<slug>[bot]`, `type: Bot`. */
export type AppBot = { login: string; id: number };

/** GitHub's `issues.<action>` example, dated now, with `change` applied. */
export function issuesPayload(action: IssuesAction, change: (payload: IssuesExample) => void = () => {}): IssuesExample {
  const payload = issuesExample<IssuesExample>(action);
  payload.issue.updated_at = githubTime();
  change(payload);
  return payload;
}

/** The example with the App's bot as the assignee (the user fields GitHub sends for one). */
export function assignTheBot(bot: AppBot, action: "assigned" | "unassigned" = "assigned", change: (payload: IssuesExample) => void = () => {}): IssuesExample {
  return issuesPayload(action, (payload) => {
    const slug = bot.login.replace(/\[bot\]$/, "");
    payload.assignee = {
      ...payload.assignee,
      login: bot.login,
      id: bot.id,
      type: "Bot",
      avatar_url: "https://avatars.githubusercontent.com/in/1?v=4",
      html_url: `https://github.com/apps/${slug}`,
      url: `https://api.github.com/users/${encodeURIComponent(bot.login)}`
    };
    change(payload);
  });
}

/** The example with its label (`bug`) renamed to `name`. */
export function withLabel(name: string, action: "labeled" | "unlabeled" = "labeled"): IssuesExample {
  return issuesPayload(action, (payload) => {
    payload.label = { ...payload.label!, name };
  });
}
