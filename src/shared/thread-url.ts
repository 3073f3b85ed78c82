/** The dashboard page of one thread: where every message a run posts points. Pure. */
export function threadUrl(publicBaseUrl: string, session: string): string {
  return `${publicBaseUrl.replace(/\/+$/, "")}/thread/${encodeURIComponent(session)}`;
}
