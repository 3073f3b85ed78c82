/**
 * The run the notice tests write for (`acme/app#12`, our pages at
 * `https://bot.test`), its link policy, and what is live in a message less
 * our own HTML: the marker and the footer's <sub>.
 */
import type { RunRef } from "../../src/report/run-ref";
import { liveMarkup as live } from "./live-markup";

export const run: RunRef = {
  repo: "acme/app",
  issueNumber: 12,
  submissionId: "sub-1",
  threadUrl: "https://bot.test/thread/acme-app-12",
  publicBaseUrl: "https://bot.test",
  githubWebUrl: "https://github.com"
};
export const policy = { publicBaseUrl: "https://bot.test", githubWebUrl: "https://github.com", repo: "acme/app" };

export function liveMarkup(markdown: string, runPolicy = policy) {
  const found = live(markdown, runPolicy);
  return { ...found, html: found.html.filter((html) => !/^(<\/?sub>|<!-- agent-think:[\w:-]+ -->)$/.test(html)) };
}
