/** Small response helpers shared by the route handlers. Pure. */
export function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8", ...headers }
  });
}

export function notFound(): Response {
  return new Response("not found", { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
}

/** A POST's JSON body, or the response that refuses it (405 for another method, 400 for bad JSON). */
export async function readJsonPost(request: Request): Promise<{ ok: true; body: unknown } | { ok: false; response: Response }> {
  if (request.method !== "POST") return { ok: false, response: json({ error: "method not allowed" }, 405, { allow: "POST" }) };
  try {
    return { ok: true, body: await request.json() };
  } catch {
    return { ok: false, response: json({ error: "body must be JSON" }, 400) };
  }
}
