/**
 * The webhook's answers. Every one carries its outcome in the
 * `agent-think-outcome` header (GitHub's delivery log shows response
 * headers), so an operator sees why a delivery was ignored without logs.
 */
export const OUTCOME_HEADER = "agent-think-outcome";

export function respond(status: number, outcome: string, headers: Record<string, string> = {}): Response {
  const all = { ...headers, [OUTCOME_HEADER]: outcome };
  if (status === 204) return new Response(null, { status, headers: all });
  return Response.json({ outcome }, { status, headers: all });
}
