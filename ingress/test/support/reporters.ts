/**
 * The reporter tier's test cases (reporter-tier.test.ts,
 * reporter-tokens.test.ts): issues, authors and comments no other test
 * uses (the tier's claims are per issue per UTC day), the repository's
 * `.github/agent-think.yml` with the tier on or off, and what the test
 * GitHub saw: comments posted, reactions on a comment, and each token it
 * minted with the permissions it was asked for.
 */
import { env } from "cloudflare:workers";
import { contentsAnswer, type GitHubCall, type GitHubOverrides, type githubServer } from "./github";
import { captureConsole, commentPayload, logEvents, send, sign } from "./ingress";

export const WIDGETS = { owner: "acme", name: "widgets" };
export const ON = { contents: contentsAnswer(".github/agent-think.yml", "version: 1\nreporters: reproduce\n") };
export const OFF = { contents: contentsAnswer(".github/agent-think.yml", "version: 1\n") };

/** An issue no other test uses: the tier's claims are per issue per day. */
export const newIssue = () => 10_000 + Math.floor(Math.random() * 1_000_000);
const newLogin = () => `reporter-${crypto.randomUUID().slice(0, 8)}`;
const newUserId = () => 5_000_000 + Math.floor(Math.random() * 1_000_000);

export type Author = { login: string; id: number };
export const author = (): Author => ({ login: newLogin(), id: newUserId() });

/** A comment by `by` on `issue`, which `issueAuthor` opened. */
export function comment(issue: number, by: Author, body: string, issueAuthor: Author = by) {
  const payload = commentPayload({ issueNumber: issue, login: by.login, userId: by.id, association: "NONE", body });
  return { ...payload, issue: { ...payload.issue, user: { ...(payload.issue as { user?: object }).user, login: issueAuthor.login, id: issueAuthor.id } } };
}
export type ReporterComment = ReturnType<typeof comment>;

/** What one test file's GitHub saw, read the ways the reporter tests need. */
export function seen(github: ReturnType<typeof githubServer>) {
  const { calls, minted } = github;
  return {
    /** Send `payload` through the Worker (with `agentEnv`), GitHub answering as `overrides` say; its log events. */
    async deliver(payload: object, overrides: GitHubOverrides, agentEnv: Env = env) {
      github.reset();
      github.use(overrides);
      const { result: response, lines } = await captureConsole(async () => send(await sign(payload), { env: agentEnv }));
      return { response, events: logEvents(lines), lines };
    },
    posted: () => calls.filter((call) => call.method === "POST" && /\/issues\/\d+\/comments$/.test(call.path)),
    reactions: (payload: ReporterComment): GitHubCall[] => calls.filter((call) => call.path === `/repos/acme/widgets/issues/comments/${payload.comment.id}/reactions`),
    reactionsOn: (payload: ReporterComment) =>
      calls.filter((call) => call.path === `/repos/acme/widgets/issues/comments/${payload.comment.id}/reactions`).map((call) => (call.body as { content: string }).content),
    /**
     * Every token the test GitHub minted, in order, with the permissions it
     * was asked for (the default handler mints one per request, pushed to
     * `minted` in the same order).
     */
    mints: () =>
      calls
        .filter((call) => call.method === "POST" && call.path.endsWith("/access_tokens"))
        .map((call, index) => ({ permissions: (call.body as { permissions: Record<string, string> }).permissions, token: minted[index] }))
  };
}

export const bodyOf = (call: { body: unknown }) => (call.body as { body: string }).body;
export const refusal = (login: string) => `@${login} thanks — on this repository the bot can only reproduce an issue for its author, once a day; a maintainer can ask for more.`;
