/**
 * For browser tests that give the dashboard fixture data: `/` as the Worker
 * would serve it with the fixture's snapshot (or with none, `null`): the
 * Worker's own index.html, put together by its own code (src/http/spa.ts,
 * src/http/first-view.tsx), so the page starts from the fixture, drawn and
 * then hydrated, as it would from the Worker's own.
 */
import type { Page } from "playwright-core";
import { renderFirstView } from "../../src/http/first-view";
import { INLINE_SNAPSHOT_ID } from "../../src/http/inline-snapshot";
import { json, notFound } from "../../src/http/responses";
import { handleSpaRoute } from "../../src/http/spa";
import type { Snapshot } from "../../src/shared/command-center";

const ELEMENT = new RegExp(`<script type="application/json" id="${INLINE_SNAPSHOT_ID}"[^>]*>[^<]*</script>`);
/** Any thread page is the assets' index.html as it is. */
const PLAIN_PAGE = "/thread/acme-fixture-1";

export async function serveInlineSnapshot(page: Page, snapshot: Snapshot | null): Promise<void> {
  await page.route(
    (url) => url.pathname === "/",
    async (route) => {
      const response = await route.fetch();
      if (!ELEMENT.test(await response.text())) throw new Error("the Worker's / carries no inline snapshot to replace");
      const index = await (await route.fetch({ url: new URL(PLAIN_PAGE, route.request().url()).href })).text();
      const served = await handleSpaRoute(new Request(route.request().url()), {
        assets: { fetch: async () => new Response(index, { headers: { "content-type": "text/html" } }) },
        answer: async () => (snapshot ? json(snapshot) : notFound()),
        renderFirstView: (text) => renderFirstView(text, { now: Date.now() })
      });
      await route.fulfill({ response, body: await served!.text() });
    }
  );
}
