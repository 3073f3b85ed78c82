/**
 * A run's container path for the egress tests, with no container engine: the
 * real ContainerBackend over a fake computerd in the warmed Sandbox, the
 * recording runner for its commands, and a way to send what the container
 * would, from the Sandbox, through the workspace's registered egress; and
 * the internet those requests reach, recorded (`recordingInternet`).
 */
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { getAgentByName } from "agents";
import type { ContainerBackend, ContainerBackendOptions } from "@cloudflare/computer/backends/container";
import { sessionName } from "../../src/shared/session-name";
import { sandboxStub } from "../../src/sandbox";
import type { CommandRunner, WorkspaceAgent } from "../../src/workspace-agent";
import { FakeContainer, RecordingFleet } from "../pool/fakes";
import { installContainer, poolWithFleet } from "../pool/seams";
import { RecordingContainer } from "./recording-container";
import { http, HttpResponse } from "msw";
import { TEST_GITHUB_API_URL } from "../worker";

/** The WorkspaceAgent's seams these tests set. */
export type Seams = {
  issueAgentBinding: string;
  containersEnabled: () => boolean;
  poolName: string;
  containerRunner: CommandRunner;
  containerBackendOverrides: Partial<ContainerBackendOptions>;
  containerBackend: () => ContainerBackend | undefined;
};

export async function workspaceOf(session: string) {
  return (await getAgentByName(env.WorkspaceAgent, session)) as unknown as DurableObjectStub<WorkspaceAgent>;
}

/**
 * A run on `repo`'s issue 5 (its reporter session with `tier`) whose container path is the real backend over a fake
 * computerd, and the recording runner for its commands.
 */
export async function containerRun(repo: string, options: { tier?: "reporter" } = {}) {
  const session = sessionName(repo, 5, options.tier);
  const fleet = new RecordingFleet();
  const pool = await poolWithFleet(fleet);
  await pool.prime();
  const [warm] = fleet.warmed();
  const container = new FakeContainer();
  container.computerd = true;
  await installContainer(sandboxStub(env, warm!), container);
  const poolName = (await runInDurableObject(pool, (_instance, state) => state.id.name)) ?? "";
  const runner = new RecordingContainer();
  const workspace = await workspaceOf(session);
  await runInDurableObject(workspace, (instance) => {
    const seams = instance as unknown as Seams;
    seams.containersEnabled = () => true;
    seams.poolName = poolName;
    seams.containerRunner = runner;
    seams.containerBackendOverrides = { connectTimeoutMs: 5_000, heartbeatIntervalMs: 0 };
  });
  return { session, container, runner, workspace, sandboxId: warm! };
}

/**
 * Connect the workspace's own backend (its egress registered on the
 * container), then send what the container would, from the Sandbox (the
 * interceptions are its I/O, as the platform's are the container's).
 */
export async function sendFromContainer(workspace: DurableObjectStub<WorkspaceAgent>, sandboxId: string, container: FakeContainer, requests: Array<() => Request>) {
  const connected = await runInDurableObject(workspace, async (instance) => {
    const backend = (instance as unknown as Seams).containerBackend();
    if (!backend) return "no backend";
    try {
      await backend.connect();
      return "connected";
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  });
  if (connected !== "connected") throw new Error(`the backend did not connect: ${connected}`);
  return await runInDurableObject(sandboxStub(env, sandboxId), async () => {
    const answers: Array<{ status: number; text: string }> = [];
    for (const request of requests) {
      const response = await container.send(request());
      answers.push({ status: response.status, text: await response.text() });
    }
    return answers;
  });
}

/** One request that reached the internet's side of the gateway: method, URL, the Authorization it carried, and a POST's body. */
export type UpstreamCall = { method: string; url: string; auth: string | null; body?: string };

/**
 * The internet as the egress tests' sandboxes see it through the gateway
 * (MSW handlers): the npm registry, a host a repository may allow, the
 * issue (with `issueBody`), and github.com's git smart HTTP. Every request
 * that reaches one is recorded in `upstream`.
 */
export function recordingInternet(issueBody: string) {
  const upstream: UpstreamCall[] = [];
  const record = async (request: { method: string; url: string; headers: Headers; clone(): { text(): Promise<string> } }) => {
    upstream.push({ method: request.method, url: request.url, auth: request.headers.get("authorization"), ...(request.method === "POST" ? { body: await request.clone().text() } : {}) });
  };
  const handlers = [
    http.get("https://registry.npmjs.org/*", async ({ request }) => {
      await record(request);
      return HttpResponse.json({ name: "left-pad", "dist-tags": { latest: "1.3.0" } });
    }),
    http.all("https://api.allowed.example/*", async ({ request }) => {
      await record(request);
      return HttpResponse.text("allowed by the repository");
    }),
    http.get(`${TEST_GITHUB_API_URL}/repos/:owner/:repo/issues/:number`, async ({ request, params }) => {
      await record(request);
      return HttpResponse.json({ number: Number(params.number), title: "sortNumbers puts 10 before 2", state: "open", body: issueBody, user: { login: "octocat", type: "User" }, labels: [], comments: 0 });
    }),
    // The container's GitHub (the default agents': github.com), as git's smart HTTP answers it.
    http.all("https://github.com/*", async ({ request }) => {
      await record(request);
      const url = new URL(request.url);
      if (url.pathname.endsWith("/info/refs")) {
        const service = url.searchParams.get("service");
        return new HttpResponse(`001e# service=${service}\n0000`, { headers: { "content-type": `application/x-${service}-advertisement` } });
      }
      return new HttpResponse("0000", { headers: { "content-type": "application/x-git-result" } });
    })
  ];
  return { upstream, handlers };
}

/** The issue's WorkspaceAgent answers its sandbox's requests with the grant of `binding`'s ThinkAgent. */
export async function runBy(session: string, binding: string) {
  await runInDurableObject(await workspaceOf(session), (instance) => {
    (instance as unknown as Seams).issueAgentBinding = binding;
  });
}

/** The read-only token the test token broker mints for `repo`. */
export const readOnlyToken = (repo: string) => `ghs_testReadOnly_${repo.replace(/\W/g, "_")}`;
