/**
 * Reading one webhook delivery safely, in this order: refuse a body over the
 * size limit before reading it (413), require and verify
 * `X-Hub-Signature-256` with @octokit/webhooks over the exact bytes received
 * (401), and only then parse JSON (400) and read the event name (400 when
 * missing). Nothing here has side effects; a rejected delivery leaves no
 * trace but its log line.
 *
 * Used by the webhook route; knows nothing about comments or runs.
 */
import { readCapped } from "../../../src/shared/capped-body";

export type VerifiedDelivery = { event: string; payload: unknown };

export type DeliveryRejection = {
  status: 400 | 401 | 413;
  outcome: "too_large" | "missing_signature" | "bad_signature" | "not_json" | "missing_event";
};

export type DeliveryRead = { ok: true; delivery: VerifiedDelivery } | ({ ok: false } & DeliveryRejection);

export type DeliveryOptions = {
  maxBodyBytes: number;
  /** `Webhooks.verify` from @octokit/webhooks, bound to the webhook secret. */
  verify(payload: string, signature: string): Promise<boolean>;
};

export const SIGNATURE_HEADER = "x-hub-signature-256";
/** What GitHub sends. Checked before verifying: the Workers build of the verifier throws on junk. */
const SIGNATURE_FORMAT = /^sha256=[0-9a-f]{64}$/i;
const reject = (status: DeliveryRejection["status"], outcome: DeliveryRejection["outcome"]): DeliveryRead => ({ ok: false, status, outcome });

export async function readDelivery(request: Request, options: DeliveryOptions): Promise<DeliveryRead> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > options.maxBodyBytes) {
    await request.body?.cancel();
    return reject(413, "too_large");
  }
  const signature = request.headers.get(SIGNATURE_HEADER)?.trim() ?? "";
  if (signature === "") {
    await request.body?.cancel();
    return reject(401, "missing_signature");
  }
  const bytes = await readCapped(request.body, options.maxBodyBytes);
  if (!(bytes instanceof Uint8Array)) return reject(413, "too_large");
  // GitHub signs the UTF-8 bytes it sent. Bytes that are not UTF-8 decode to
  // replacement characters, re-encode differently and so fail verification.
  const body = new TextDecoder().decode(bytes);
  if (body === "" || !SIGNATURE_FORMAT.test(signature) || !(await options.verify(body, signature))) {
    return reject(401, "bad_signature");
  }

  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    return reject(400, "not_json");
  }
  const event = request.headers.get("x-github-event")?.trim() ?? "";
  if (event === "") return reject(400, "missing_event");
  return { ok: true, delivery: { event, payload } };
}
