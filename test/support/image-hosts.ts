/**
 * MSW stand-ins for the hosts an issue's images and attachments live on
 * (the deployment's own host, github.com's uploads, camo, the user-content
 * hosts): each URL answers what the test says, and every request is
 * recorded with its Authorization header, so a test can say which hosts
 * saw the run's token.
 */
import { http } from "msw";

export type ImageHostRequest = { url: string; authorization: string | null };

/** The smallest PNG worth the name: its signature and an IHDR chunk's start. */
export const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52]);

/** One GET handler per URL (query included), answering `answers[url]`; each request lands in `recorded`. */
export function imageHostHandlers(recorded: ImageHostRequest[], answers: Record<string, (request: ImageHostRequest) => Response>) {
  return Object.entries(answers).map(([url, answer]) =>
    http.get(url.split("?")[0]!, ({ request }) => {
      if (request.url !== url) return undefined;
      const seen = { url: request.url, authorization: request.headers.get("authorization") };
      recorded.push(seen);
      return answer(seen);
    })
  );
}
