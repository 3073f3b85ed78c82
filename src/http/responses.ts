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
