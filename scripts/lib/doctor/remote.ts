/**
 * `npm run doctor -- --url <base>`: a running agent Worker's own health
 * report, `GET <base>/api/health` (src/shared/health.ts), as the
 * dashboard's banner reads it. Behind Cloudflare Access the request carries
 * an Access service token as `CF-Access-Client-Id` and
 * `CF-Access-Client-Secret`, taken from CF_ACCESS_CLIENT_ID and
 * CF_ACCESS_CLIENT_SECRET in the environment: never an argument, and never
 * in anything this returns. Whatever keeps the report from arriving
 * (unreachable, Access, a redirect, not a report) is one blocking line
 * that says what to do. The network is injected for the tests.
 */
import { z } from "zod";
import { BAD_ACCESS_SETTING_PREFIX, HALF_CONFIGURED, NOT_CONFIGURED } from "../../../src/http/access";
import { line, type DoctorCheck } from "./types";

export type AccessServiceToken = { clientId: string; clientSecret: string };

export const ACCESS_ID_VAR = "CF_ACCESS_CLIENT_ID";
export const ACCESS_SECRET_VAR = "CF_ACCESS_CLIENT_SECRET";
const TIMEOUT_MS = 15_000;
const REDACTED = "[redacted]";

export type WorkerHealth = {
  /** `<base>/api/health` */
  url: string;
  checks: DoctorCheck[];
  /** The Worker's own time of the report, when one arrived. */
  generatedAt?: string;
};

const statusSchema = z.enum(["ok", "warn", "block"]);
/** A HealthReport (src/shared/health.ts); ids are any string, so a newer Worker's checks still print. */
const reportSchema = z.object({
  status: statusSchema,
  checks: z.array(z.object({ id: z.string(), label: z.string(), status: statusSchema, detail: z.string(), fix: z.string().optional(), unsafe: z.boolean().optional() })),
  generatedAt: z.string()
});

/** The Access service token from the environment: none, both halves, or an error naming the missing one. */
export function accessTokenFromEnv(env: Record<string, string | undefined>): { ok: true; token: AccessServiceToken | null } | { ok: false; error: string } {
  const clientId = env[ACCESS_ID_VAR]?.trim() ?? "";
  const clientSecret = env[ACCESS_SECRET_VAR]?.trim() ?? "";
  if (clientId === "" && clientSecret === "") return { ok: true, token: null };
  if (clientId === "" || clientSecret === "") {
    return { ok: false, error: `${clientId === "" ? ACCESS_ID_VAR : ACCESS_SECRET_VAR} is not set while ${clientId === "" ? ACCESS_SECRET_VAR : ACCESS_ID_VAR} is: set both (an Access service token) or neither` };
  }
  return { ok: true, token: { clientId, clientSecret } };
}

/** `<base>/api/health` for an http(s) base URL (a trailing /api/health is kept once), or null. */
export function healthUrl(base: string): string | null {
  let url: URL;
  try {
    url = new URL(base.trim());
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username || url.password) return null;
  const path = url.pathname.replace(/\/+$/, "").replace(/\/api\/health$/, "");
  return `${url.origin}${path}/api/health`;
}

export async function workerHealth(
  url: string,
  options: { token: AccessServiceToken | null; fetch?: typeof fetch; timeoutMs?: number }
): Promise<WorkerHealth> {
  const { token } = options;
  const headers: Record<string, string> = { accept: "application/json" };
  if (token) {
    headers["CF-Access-Client-Id"] = token.clientId;
    headers["CF-Access-Client-Secret"] = token.clientSecret;
  }
  const hide = (text: string) => (token ? text.replaceAll(token.clientSecret, REDACTED).replaceAll(token.clientId, REDACTED) : text);
  const refuse = (detail: string, fix: string): WorkerHealth => ({ url, checks: [line("endpoint", "Health endpoint", "block", hide(detail), hide(fix))] });
  const accessFix = token
    ? `check that the Access application's policy has a Service Auth rule that includes this service token, and that the token has not expired`
    : `create an Access service token, include it in a Service Auth rule of the Access application, and set ${ACCESS_ID_VAR} and ${ACCESS_SECRET_VAR} in the environment`;

  let response: Response;
  try {
    response = await (options.fetch ?? fetch)(url, { headers, redirect: "manual", signal: AbortSignal.timeout(options.timeoutMs ?? TIMEOUT_MS) });
  } catch (error) {
    return refuse(`${url} could not be reached: ${errorText(error)}`, "check the URL (the agent Worker's, not the webhook app's) and that the Worker is deployed or running");
  }
  const text = await response.text().catch(() => "");
  if (response.status >= 300 && response.status < 400) {
    const location = response.headers.get("location") ?? "";
    if (/cloudflareaccess\.com|\/cdn-cgi\/access\//i.test(location)) {
      return refuse(`${url} redirected to the Cloudflare Access login${token ? ": the service token was not accepted" : ""}`, accessFix);
    }
    return refuse(`${url} answered ${response.status}, a redirect to ${location || "nowhere"}`, "pass --url the address the redirect names");
  }
  if (response.status === 401 || response.status === 403) {
    // The Worker's gate says why in JSON (src/http/gate.ts); Access, and the Worker's own Access check, do not.
    const said = jsonError(text);
    if (said) return refuse(`${url} answered ${response.status}: ${said}`, "a Worker with LOCAL_DEV=1 answers only http://127.0.0.1:<port> or localhost; otherwise see the reason");
    return refuse(`${url} answered ${response.status}: ${token ? "Access refused the service token" : "it is behind Cloudflare Access"}`, accessFix);
  }
  if (response.status === 500 && text === HALF_CONFIGURED) {
    return refuse(`${url}: Cloudflare Access is half configured on the Worker, which answers 500 to everything behind it`, "set both CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD on the agent Worker, or neither, and redeploy");
  }
  if (response.status === 503 && text === NOT_CONFIGURED) {
    return refuse(
      `${url}: Cloudflare Access is not configured on the Worker, which answers 503 to everything behind it`,
      'set CF_ACCESS_TEAM_DOMAIN and CF_ACCESS_AUD on the agent Worker (or ACCESS to "off", unsafe) and redeploy'
    );
  }
  if (response.status === 500 && text.startsWith(BAD_ACCESS_SETTING_PREFIX)) {
    const said = text.slice("agent-think: ".length).split(",")[0];
    return refuse(`${url}: the Worker's ${said}, so it answers 500 to everything behind Access`, 'set ACCESS on the agent Worker to "" or "off" and redeploy');
  }
  if (response.status === 404) {
    return refuse(`${url} answered 404: not an agent Worker, or one deployed before GET /api/health`, "check the URL is the agent Worker's, and deploy it from this checkout");
  }
  if (!response.ok) return refuse(`${url} answered ${response.status}${jsonError(text) ? ` (${jsonError(text)})` : ""}`, "look at the Worker's logs (wrangler tail)");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return refuse(`${url} answered ${response.status} with ${response.headers.get("content-type") ?? "no content type"}, not a health report`, "check the URL is the agent Worker's, and deploy it from this checkout");
  }
  const report = reportSchema.safeParse(body);
  if (!report.success) {
    return refuse(`${url} answered JSON that is not a health report (${report.error.issues[0]?.path.join(".") || "body"}: ${report.error.issues[0]?.message})`, "check the URL is the agent Worker's, and deploy it from this checkout");
  }
  return {
    url,
    generatedAt: report.data.generatedAt,
    checks: report.data.checks.map((check) => {
      const shown = { ...check, label: hide(check.label), detail: hide(check.detail) };
      return check.fix === undefined ? shown : { ...shown, fix: hide(check.fix) };
    })
  };
}

function jsonError(text: string): string | null {
  try {
    const parsed = JSON.parse(text) as { error?: unknown };
    return typeof parsed.error === "string" ? parsed.error : null;
  } catch {
    return null;
  }
}

function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.name === "TimeoutError") return "no answer in time";
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? error.message;
}
