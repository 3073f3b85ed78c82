/**
 * The bench Worker's HTTP routes, used only by bench/run.ts:
 *   GET  /bench/ping      → "ok" once the Worker answers
 *   POST /bench/batch     { side, concurrency, inputs } → run one call per input
 *                         with at most `concurrency` in flight, timing each
 *                         → { elapsedMs, calls: [{ agent, submissionId, ms } | { error }] }
 *   POST /bench/statuses  { items: [{ side, agent, submissionId }] } → { statuses }
 * `ours` calls are AgentThink.dispatch inputs; `bare` calls are
 * `{ name, text, idempotencyKey }` for one submitMessages on a bare Think agent.
 *
 * The load is driven and timed here, inside the Worker, rather than per HTTP
 * request from the runner: `wrangler dev`'s HTTP proxy adds milliseconds and
 * a queue of its own to every request, which no webhook app's service-binding
 * call pays, and which would blur the difference between the two sides. Each
 * `ms` is the awaited call alone on the Worker's clock (which advances at I/O,
 * so it is whole milliseconds). Anything else is `null`, for the real Worker
 * to serve. Pure: the agents are reached through `deps`.
 */
import { z } from "zod";
import { json, readJsonPost } from "../src/http/responses";

export type BenchSide = "ours" | "bare";

export type BenchRouteDeps = {
  ours(input: unknown): Promise<{ session: string; submissionId: string }>;
  bare(input: BareSubmitInput): Promise<{ submissionId: string }>;
  status(side: BenchSide, agent: string, submissionId: string): Promise<string | null>;
  now(): number;
};

export type TimedCall = { agent: string; submissionId: string; ms: number } | { error: string };

const MAX_BATCH_CALLS = 1_000;
const STATUS_CONCURRENCY = 20;

const bareSubmitSchema = z.strictObject({
  name: z.string().min(1).max(200),
  text: z.string().min(1).max(8_000),
  idempotencyKey: z.string().min(1).max(200)
});
export type BareSubmitInput = z.infer<typeof bareSubmitSchema>;

const batchSchema = z.discriminatedUnion("side", [
  z.strictObject({
    side: z.literal("ours"),
    concurrency: z.number().int().min(1).max(MAX_BATCH_CALLS),
    // Left to dispatch() itself to validate: that is part of what is timed.
    inputs: z.array(z.unknown()).min(1).max(MAX_BATCH_CALLS)
  }),
  z.strictObject({
    side: z.literal("bare"),
    concurrency: z.number().int().min(1).max(MAX_BATCH_CALLS),
    inputs: z.array(bareSubmitSchema).min(1).max(MAX_BATCH_CALLS)
  })
]);

const statusesSchema = z.strictObject({
  items: z
    .array(
      z.strictObject({
        side: z.enum(["ours", "bare"]),
        agent: z.string().min(1).max(200),
        submissionId: z.string().min(1).max(200)
      })
    )
    .max(MAX_BATCH_CALLS)
});

export async function handleBenchRoute(request: Request, deps: BenchRouteDeps): Promise<Response | null> {
  const { pathname } = new URL(request.url);
  if (!pathname.startsWith("/bench/")) return null;
  if (pathname === "/bench/ping") return new Response("ok");
  const read = await readJsonPost(request);
  if (!read.ok) return read.response;
  const body = read.body;
  switch (pathname) {
    case "/bench/batch": {
      const batch = batchSchema.safeParse(body);
      if (!batch.success) return json({ error: z.prettifyError(batch.error) }, 400);
      const startedAt = deps.now();
      const calls =
        batch.data.side === "ours"
          ? await pool(batch.data.inputs, batch.data.concurrency, (input) =>
              timed(deps, async () => {
                const { session, submissionId } = await deps.ours(input);
                return { agent: session, submissionId };
              })
            )
          : await pool(batch.data.inputs, batch.data.concurrency, (input) =>
              timed(deps, async () => ({ agent: input.name, ...(await deps.bare(input)) }))
            );
      return json({ elapsedMs: deps.now() - startedAt, calls });
    }
    case "/bench/statuses": {
      const input = statusesSchema.safeParse(body);
      if (!input.success) return json({ error: z.prettifyError(input.error) }, 400);
      const statuses = await pool(input.data.items, STATUS_CONCURRENCY, ({ side, agent, submissionId }) =>
        deps.status(side, agent, submissionId)
      );
      return json({ statuses });
    }
    default:
      return json({ error: "not found" }, 404);
  }
}

async function timed(
  deps: BenchRouteDeps,
  call: () => Promise<{ agent: string; submissionId: string }>
): Promise<TimedCall> {
  const startedAt = deps.now();
  try {
    const { agent, submissionId } = await call();
    return { agent, submissionId, ms: deps.now() - startedAt };
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/** Run `task` for each item with at most `concurrency` in flight; results in item order. */
export async function pool<T, R>(items: readonly T[], concurrency: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, lane));
  return results;
}
