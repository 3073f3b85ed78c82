/**
 * The host side of the real-container suite: a git server holding the
 * steps' repositories (public reads, pushes with the suite's write token),
 * its compare API in front of the GitHub stand-in, a UDP listener on every
 * address, and `wrangler dev` with containers on, LOCAL_DEV and the scripted
 * model, whose egress gateway sends git to that server (GITHUB_GIT_URL).
 * `run(step)` dispatches a step's runs on a fresh issue and gathers what
 * its judge reads (scripts/lib/container-observe.ts).
 */
import { randomBytes } from "node:crypto";
import { createSocket, type Socket } from "node:dgram";
import { networkInterfaces } from "node:os";
import { startGitHubStandin, type GitHubStandin } from "../scripts/lib/github-standin";
import { observedCommands, observedTools, type Observation } from "../scripts/lib/container-observe";
import { DEFAULT_STEP_REPO, stepContext, type ContainerStep, type StepContext } from "../scripts/lib/container-steps";
import { GitHttpServer } from "../test/support/git-http-server";
import { startDevServer } from "../tests-e2e/fixture";
import { dispatch, freshIssueNumber, waitForSubmission } from "../tests-e2e/dev-api";

/** Every token of the suite starts with this; the token scan looks for it. */
const TOKEN_MARK = "ghs_ctsuite";
const WRITE_TOKEN = `${TOKEN_MARK}${randomBytes(12).toString("hex")}`;
const CONTROL = Buffer.from("agent-think container suite: control");
/** wrangler dev builds the image (cached by then: test-container.ts built it) before it serves. */
const READY_TIMEOUT_MS = 15 * 60_000;
/** The first run waits for a container's cold start as well. */
const RUN_TIMEOUT_MS = 10 * 60_000;

export type ContainerWorld = {
  run(step: ContainerStep): Promise<{ observed: Observation; ctx: StepContext }>;
  /** wrangler's output, for a failing step's message. */
  logs(): string;
  close(): Promise<void>;
};

type Listener = { socket: Socket; port: number; heard(): number; control(): Promise<boolean> };

/** Listens on every address; counts what arrives, apart from its own control datagrams. */
async function udpListener(): Promise<Listener> {
  const socket = createSocket("udp4");
  let heard = 0;
  let controls = 0;
  socket.on("message", (message) => (message.equals(CONTROL) ? controls++ : heard++));
  await new Promise<void>((resolve) => socket.bind(0, "0.0.0.0", resolve));
  const port = socket.address().port;
  return {
    socket,
    port,
    heard: () => heard,
    control: async () => {
      const before = controls;
      await new Promise<void>((resolve) => socket.send(CONTROL, port, "127.0.0.1", () => resolve()));
      for (let tries = 0; tries < 50 && controls === before; tries++) await new Promise((resolve) => setTimeout(resolve, 20));
      return controls > before;
    }
  };
}

/** The host's IPv4 addresses other than loopback: where a container could reach it (docker0's among them). */
function hostAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((addresses) => addresses ?? [])
    .filter((address) => address.family === "IPv4" && !address.internal)
    .map((address) => address.address);
}

const refMap = (refs: { ref: string; oid: string }[]) => Object.fromEntries(refs.map(({ ref, oid }) => [ref, oid]));

/** `containers: false` runs the same world with no container engine (the e2e test of the harness itself). */
export async function startContainerWorld(steps: readonly ContainerStep[], options: { containers?: boolean } = {}): Promise<ContainerWorld> {
  const git = await GitHttpServer.start({ readToken: `${TOKEN_MARK}read${randomBytes(12).toString("hex")}`, writeToken: WRITE_TOKEN, publicRead: true });
  git.createRepo(DEFAULT_STEP_REPO);
  for (const step of steps) if (step.repo) git.createRepo(step.repo.name, { files: Object.fromEntries(Object.entries(step.repo.files).map(([path, text]) => [path, Buffer.from(text)])) });
  let standin: GitHubStandin | undefined;
  let udp: Listener | undefined;
  try {
    standin = await startGitHubStandin();
    const api = await git.startApi(standin.url);
    udp = await udpListener();
    const server = await startDevServer({ localDev: true, containers: options.containers ?? true, githubApiUrl: api, vars: { GITHUB_GIT_URL: git.origin }, readyTimeoutMs: READY_TIMEOUT_MS });
    const suite = { tokenMark: TOKEN_MARK, udp: { port: udp.port, targets: hostAddresses() }, blockedUrl: "https://example.com/" };
    const listener = udp;
    const github = standin;
    return {
      logs: () => server.output(),
      async run(step) {
        const issueNumber = freshIssueNumber();
        const ctx = stepContext(step, issueNumber, suite);
        const before = refMap(git.refs(ctx.repo));
        const requestsBefore = git.requests.length;
        const recordsBefore = github.records().length;
        const heardBefore = listener.heard();
        const statuses: string[] = [];
        let messages: Awaited<ReturnType<typeof waitForSubmission>>["messages"] = [];
        for (const instruction of step.runs(ctx)) {
          const run = await dispatch(server.url, { repo: ctx.repo, issueNumber, instruction, installationToken: WRITE_TOKEN });
          const ended = await waitForSubmission(server.url, run, { timeoutMs: RUN_TIMEOUT_MS });
          statuses.push(ended.submission.status);
          messages = ended.messages;
        }
        const tools = observedTools(messages);
        const published = tools.find((call) => call.tool === "publish_reproduction")?.output as { url?: unknown } | undefined;
        let page: Observation["page"];
        if (typeof published?.url === "string") {
          const response = await fetch(published.url);
          page = { status: response.status, body: await response.text() };
        }
        const observed: Observation = {
          statuses,
          commands: observedCommands(tools),
          tools,
          refs: { before, after: refMap(git.refs(ctx.repo)) },
          pushes: git.requests
            .slice(requestsBefore)
            .filter((request) => request.method === "POST" && request.path.endsWith("/git-receive-pack"))
            .map(({ token, status }) => ({ token, status })),
          udp: { received: listener.heard() - heardBefore, control: await listener.control() },
          pullRequests: github
            .records()
            .slice(recordsBefore)
            .filter((record) => record.method === "POST" && record.path === `/repos/${ctx.repo}/pulls`)
            .map((record) => String((record.body as { body?: unknown } | undefined)?.body ?? "")),
          ...(page ? { page } : {})
        };
        return { observed, ctx };
      },
      async close() {
        await server.stop();
        await github.close();
        listener.socket.close();
        await git.close();
      }
    };
  } catch (error) {
    await standin?.close();
    udp?.socket.close();
    await git.close();
    throw error;
  }
}
