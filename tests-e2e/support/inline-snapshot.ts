/**
 * For browser tests that give the dashboard fixture data: `/` as the Worker
 * serves it, with the snapshot it carries (src/http/inline-snapshot.ts)
 * replaced by the fixture's (or taken out, `null`), so the page starts from
 * the fixture as it would from the Worker's own.
 */
import type { Page } from "playwright-core";
import { escapeJsonForHtml, INLINE_SNAPSHOT_ID } from "../../src/http/inline-snapshot";
import type { Snapshot } from "../../src/shared/command-center";

const ELEMENT = new RegExp(`<script type="application/json" id="${INLINE_SNAPSHOT_ID}">[^<]*</script>`);

export async function serveInlineSnapshot(page: Page, snapshot: Snapshot | null): Promise<void> {
  await page.route(
    (url) => url.pathname === "/",
    async (route) => {
      const response = await route.fetch();
      const html = await response.text();
      if (!ELEMENT.test(html)) throw new Error("the Worker's / carries no inline snapshot to replace");
      const element = snapshot ? `<script type="application/json" id="${INLINE_SNAPSHOT_ID}">${escapeJsonForHtml(JSON.stringify(snapshot))}</script>` : "";
      await route.fulfill({ response, body: html.replace(ELEMENT, element) });
    }
  );
}
