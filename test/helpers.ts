/** Shared helpers for the Workers-runtime tests. */
import type { EgressAgent } from "../src/egress/sandbox-egress";
import { env } from "cloudflare:workers";
import { getAgentByName } from "agents";
import { runInDurableObject } from "cloudflare:test";
import { onTestFinished, vi } from "vitest";
import type { ThinkAgent } from "../src/agent";
import type { IssueAgent } from "../src/service";
import type { SubmissionStatus, SubmissionStatusValue, TranscriptMessage } from "../src/shared/dispatch";
import { commandCenter } from "../src/command-center";
import { lastCommandKey, type LastCommand } from "../src/run/command-replay";
import { RunRecoveries } from "../src/run/recoveries";
import { guardConsole, type GuardableConsole } from "../src/run/console-guard";
import { isActiveStatus, type Snapshot, type ThreadSummary } from "../src/shared/command-center";
import { evictionReason } from "./support/test-eviction";

/**
 * How long a test waits for something the code does on its own (a turn's
 * command, a release, a retry) before calling it a hang: far past what a
 * loaded machine takes, and below the 30 s test timeout, so a failure says
 * what never happened rather than that the test timed out.
 */
export const HANG_MS = 20_000;

/**
 * Run `check` every `intervalMs` until it returns without throwing, and give
 * what it returned; after `timeoutMs` throw its last error. For an event the
 * code exposes no promise for: never a fixed sleep or a count of tries,
 * which a slow machine runs out of.
 */
export async function eventually<T>(check: () => T | Promise<T>, options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<T> {
  return await vi.waitFor(check, { timeout: options.timeoutMs ?? HANG_MS, interval: options.intervalMs ?? 20 });
}

/** `eventually` for a condition: the first truthy value `read` gives; throws naming `what` when none comes. */
export async function until<T>(read: () => T | Promise<T>, what: string, options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<NonNullable<T>> {
  return await eventually(async () => {
    const value = await read();
    if (!value) throw new Error(`still waiting for ${what}`);
    return value as NonNullable<T>;
  }, options);
}

/**
 * What a held step (a recording container's command, through `during`)
 * waits on until the test has done what it does meanwhile: `open()` lets
 * it go on. Opened anyway when the test ends, so a failed test leaves no
 * turn held in the runtime the files share.
 */
export function gate(): { promise: Promise<void>; open(): void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  onTestFinished(() => open());
  return { promise, open };
}

/** A repository no other test uses, so each test gets its own Durable Object. */
export function uniqueRepo(owner = "acme"): string {
  return `${owner}/r${crypto.randomUUID().slice(0, 12)}`;
}

/** The agent methods the tests call, typed narrowly (see IssueAgent in src/service.ts). */
export type TestAgent = IssueAgent & EgressAgent & {
  waitForSubmission(id: string, options?: { timeoutMs?: number }): Promise<unknown>;
  listSubmissions(options?: { status?: SubmissionStatusValue | SubmissionStatusValue[] }): Promise<
    Array<{ submissionId: string; status: SubmissionStatusValue }>
  >;
};

/**
 * Any of the test Worker's ThinkAgent namespaces. Typed by one method, not
 * as the namespaces' union: TypeScript 7 gives up comparing those deeply.
 */
export type AgentNamespace = Pick<DurableObjectNamespace, "idFromName">;

export async function agentFor(session: string, namespace: AgentNamespace = env.ThinkAgent) {
  const named = namespace as unknown as DurableObjectNamespace<ThinkAgent>;
  return (await getAgentByName(named, session)) as unknown as TestAgent & DurableObjectStub;
}

type StatusReader = {
  submissionStatus(id: string): Promise<SubmissionStatus | null>;
  waitForSubmission?(id: string, options?: { timeoutMs?: number }): Promise<unknown>;
};

const TERMINAL: readonly SubmissionStatusValue[] = ["completed", "error", "aborted", "skipped"];

/**
 * Wait until the submission reaches one of `statuses` (terminal ones by
 * default). A terminal wait goes through Think's waitForSubmission, which
 * resolves only after onSubmissionStatus has run, so the turn's last log
 * lines and releases have happened by then.
 */
export async function waitForStatus(
  agent: StatusReader,
  submissionId: string,
  statuses: readonly SubmissionStatusValue[] = TERMINAL,
  timeoutMs = 20_000
): Promise<SubmissionStatus> {
  const deadline = Date.now() + timeoutMs;
  if (agent.waitForSubmission && statuses.every((status) => TERMINAL.includes(status))) {
    await agent.waitForSubmission(submissionId, { timeoutMs });
  }
  for (;;) {
    const status = await agent.submissionStatus(submissionId);
    if (status && statuses.includes(status.status)) return status;
    if (Date.now() > deadline) throw new Error(`submission ${submissionId} is ${status?.status}, not ${statuses}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Every console line written while `run` runs (the Worker shares the test
 * isolate), as the runtime prints it: the spies sit under the Worker's
 * console guard (src/run/console-guard.ts), so what they record is redacted.
 */
export async function captureConsole<T>(run: () => Promise<T>): Promise<{ result: T; lines: string[] }> {
  const lines: string[] = [];
  const record = (...args: unknown[]) => void lines.push(args.map(describeArg).join(" "));
  const spies = (["log", "info", "warn", "error", "debug"] as const).map((method) =>
    vi.spyOn(console, method).mockImplementation(record)
  );
  guardConsole(console as unknown as GuardableConsole);
  try {
    return { result: await run(), lines };
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
}

/** An argument as a console shows it: an error with its stack, message and cause, an object as JSON. */
function describeArg(arg: unknown): string {
  if (arg instanceof Error) return `${arg.stack ?? ""} ${arg.message} ${describeArg((arg as { cause?: unknown }).cause ?? "")}`;
  if (typeof arg === "object" && arg !== null) {
    try {
      return JSON.stringify(arg);
    } catch {
      return String(arg);
    }
  }
  return String(arg);
}

type Transcript = TranscriptMessage[];

export function toolParts(messages: Transcript) {
  return messages
    .filter((message) => message.role === "assistant")
    .flatMap((message) => message.parts)
    .filter((part) => typeof part.type === "string" && (part.type as string).startsWith("tool-"));
}

export function assistantText(messages: Transcript): string {
  return messages
    .filter((message) => message.role === "assistant")
    .flatMap((message) => message.parts)
    .filter((part) => part.type === "text")
    .map((part) => part.text as string)
    .join("\n");
}

/**
 * A hard reset of the object, as a deploy or a memory-limit reset would do:
 * every event in flight is cut off. workerd's reports of those cut-off events
 * carry the test-eviction marker, so the suite's setup captures them.
 */
export async function evict(stub: DurableObjectStub<never> | object, why = "evicted by the test"): Promise<void> {
  await runInDurableObject(stub as DurableObjectStub<never>, (_instance, state) => {
    state.abort(evictionReason(why));
  }).catch(() => {});
}

/**
 * Until the turn's bash command `command` has started and not finished, as
 * the agent records it before running it (src/run/command-replay.ts): the
 * moment to evict a turn "in the middle of a tool call".
 */
export async function commandRunning(agent: object, submissionId: string, command: string): Promise<void> {
  await until(
    () =>
      runInDurableObject(agent as DurableObjectStub<ThinkAgent>, (_instance, state) => {
        const last = state.storage.kv.get<LastCommand>(lastCommandKey(submissionId));
        return last?.command === command && !last.finished;
      }),
    `\`${command}\` to be running`
  );
}

/**
 * Evict a FragileThinkAgent's running turn, and each turn its recovery
 * starts once that one runs, until Think gives the run up (its budget of
 * interrupted attempts spent) and it is no longer running. A turn cut off
 * before any tool ran makes no progress; the run's script opens with a
 * `TEST: sleep` long enough that none does. Each recovered turn is known by
 * the agent's count of recoveries (src/run/recoveries.ts): one more per
 * eviction, marked resumed when its turn begins.
 */
export async function evictUntilGivenUp(fresh: () => Promise<StatusReader & object>, submissionId: string): Promise<void> {
  const recovery = async () =>
    runInDurableObject((await fresh()) as unknown as DurableObjectStub<ThinkAgent>, (_instance, state) => new RunRecoveries(state.storage.kv).get(submissionId));
  const deadline = Date.now() + HANG_MS;
  for (let evicted = 0; ; evicted++) {
    if (Date.now() > deadline) throw new Error(`submission ${submissionId} still runs after ${evicted} evictions`);
    const next = await until(async () => {
      const status = (await (await fresh()).submissionStatus(submissionId))?.status;
      if (status && TERMINAL.includes(status)) return "given up";
      if (status !== "running") return undefined;
      const known = await recovery();
      return evicted === 0 || (known?.count === evicted && known.state === "resumed") ? "running" : undefined;
    }, evicted === 0 ? "the turn to run" : `the turn of recovery ${evicted} to run`);
    if (next === "given up") return;
    await evict(await fresh());
  }
}

/**
 * Await an RPC call inside a plain async function. Handing an RpcPromise
 * straight to `expect(...).rejects` leaves its rejection reported as unhandled.
 */
export async function call<T>(rpc: () => Promise<T>): Promise<T> {
  return await rpc();
}

/**
 * The session's thread on the command center once `ready` holds (by default:
 * it no longer runs). Reports reach the command center fire and forget, so
 * this polls, paging through snapshots; `readPage` reads them another way
 * (the HTTP API). Throws with what it last saw when time runs out.
 */
export async function waitForThread(
  session: string,
  ready: (thread: ThreadSummary) => boolean = (thread) => !isActiveStatus(thread.status),
  options: { readPage?: (cursor: string | undefined) => Promise<Snapshot>; timeoutMs?: number } = {}
): Promise<ThreadSummary> {
  const readPage = options.readPage ?? (async (cursor) => (await commandCenter(env)).snapshot({ limit: 200, ...(cursor ? { cursor } : {}) }));
  const deadline = Date.now() + (options.timeoutMs ?? HANG_MS);
  for (;;) {
    let found: ThreadSummary | undefined;
    let cursor: string | undefined;
    do {
      const page = await readPage(cursor);
      found = page.threads.find((thread) => thread.session === session);
      cursor = page.nextCursor;
    } while (!found && cursor);
    if (found && ready(found)) return found;
    if (Date.now() > deadline) throw new Error(`the command center does not show ${session} ready: ${JSON.stringify(found)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A name for a CommandCenterAgent of the test's own (never `main`'s shared one). */
export const freshCenterName = () => `test-${crypto.randomUUID()}`;

/** A CommandCenterAgent namespace whose every name is `name`: the service's `main` becomes this test's own. */
export function renamedCommandCenter(name: string): Env["CommandCenterAgent"] {
  const namespace = env.CommandCenterAgent;
  return {
    idFromName: () => namespace.idFromName(name),
    get: (id: DurableObjectId, options?: DurableObjectNamespaceGetDurableObjectOptions) => namespace.get(id, options)
  } as unknown as Env["CommandCenterAgent"];
}
