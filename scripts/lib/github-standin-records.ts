/**
 * What the GitHub stand-in keeps of each call it answers (`StandinRecord`,
 * never the Authorization header), which of them were refusals, and the
 * one line per call the dev log prints.
 */

export type StandinRecord = {
  method: string;
  path: string;
  body: unknown;
  at: number;
  /** The description's operation the request matched ("issues/create-comment"). */
  operation?: string;
  /** Set when the stand-in refused the request: GitHub would have, or the stand-in does not model it (501). */
  refused?: { status: number; message: string };
  /** Set when the answer was a fault a test asked for, or a token that no longer works: expired, or revoked over the API. */
  fault?: "secondary_rate_limit" | "expired_token" | "revoked_token";
};

/** The records of refused requests: empty when everything sent was a request GitHub takes. */
export const refusalsOf = (records: readonly StandinRecord[]) => records.filter((record) => record.refused !== undefined);

/** One readable line per recorded call, for the dev log. */
export function describeRecord(record: StandinRecord): string {
  return `${describeCall(record)}${record.refused ? ` — REFUSED ${record.refused.status}: ${record.refused.message.replace(/\s+/g, " ")}` : ""}${record.fault ? ` — fault: ${record.fault}` : ""}`;
}

function describeCall(record: StandinRecord): string {
  const body = record.body as { content?: unknown; body?: unknown } | undefined;
  if (typeof body?.content === "string") return `${record.method} ${record.path} (${body.content})`;
  if (typeof body?.body === "string") {
    const lines = body.body.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("<!--"));
    // A closing comment opens with its line to the requester: show the heading after it too.
    const shown = lines[0]?.startsWith("@") && lines.length > 1 ? `${lines[0]} · ${lines[1]}` : (lines[0] ?? "");
    return `${record.method} ${record.path}: ${shown.slice(0, 120)}`;
  }
  return `${record.method} ${record.path}`;
}
