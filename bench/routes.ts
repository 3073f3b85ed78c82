/**
 * The bench Worker's HTTP routes, used only by bench/run.ts:
 *   GET  /bench/ping    → "ok" once the Worker answers
 *   POST /bench/ours    dispatch input → our real path, the AgentThink.dispatch RPC
 *   POST /bench/bare    { name, text, idempotencyKey } → the baseline: one
 *                       submitMessages on a bare Think agent
 *   POST /bench/status  { side, agent, submissionId } → that submission's status
 * Both timed routes answer `{ submissionId, workerMs }`, `workerMs` being the
 * awaited call alone as the Worker's clock sees it, so the runner can show it
 * beside its own round-trip time. Anything else is `null`, for the real Worker
 * to serve. Pure: the agents are reached through `deps`.
 */
import { z } from "zod";
import { json } from "../src/http/responses";

export type BenchSide = "ours" | "bare";

export type BenchRouteDeps = {
  ours(input: unknown): Promise<{ submissionId: string }>;
  bare(input: BareSubmitInput): Promise<{ submissionId: string; accepted: boolean }>;
  status(side: BenchSide, agent: string, submissionId: string): Promise<string | null>;
  now(): number;
};

const bareSubmitSchema = z.strictObject({
  name: z.string().min(1).max(200),
  text: z.string().min(1).max(8_000),
  idempotencyKey: z.string().min(1).max(200)
});
export type BareSubmitInput = z.infer<typeof bareSubmitSchema>;

const statusSchema = z.strictObject({
  side: z.enum(["ours", "bare"]),
  agent: z.string().min(1).max(200),
  submissionId: z.string().min(1).max(200)
});

export async function handleBenchRoute(request: Request, deps: BenchRouteDeps): Promise<Response | null> {
  const { pathname } = new URL(request.url);
  if (!pathname.startsWith("/bench/")) return null;
  if (pathname === "/bench/ping") return new Response("ok");
  if (request.method !== "POST") return json({ error: "method not allowed" }, 405, { allow: "POST" });

  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return json({ error: "body must be JSON" }, 400);
  }
  try {
    switch (pathname) {
      case "/bench/ours":
        return json(await timed(deps, () => deps.ours(body)));
      case "/bench/bare": {
        const input = bareSubmitSchema.safeParse(body);
        if (!input.success) return json({ error: input.error.issues[0]?.message ?? "bad input" }, 400);
        return json(await timed(deps, () => deps.bare(input.data)));
      }
      case "/bench/status": {
        const input = statusSchema.safeParse(body);
        if (!input.success) return json({ error: input.error.issues[0]?.message ?? "bad input" }, 400);
        const { side, agent, submissionId } = input.data;
        return json({ status: await deps.status(side, agent, submissionId) });
      }
      default:
        return json({ error: "not found" }, 404);
    }
  } catch (error) {
    return json({ error: error instanceof Error ? error.message : String(error) }, 500);
  }
}

async function timed<T extends object>(deps: BenchRouteDeps, call: () => Promise<T>): Promise<T & { workerMs: number }> {
  const startedAt = deps.now();
  const result = await call();
  return { ...result, workerMs: deps.now() - startedAt };
}
