import { describe, expect, it } from "vitest";
import { escapeJsonForHtml, INLINE_SNAPSHOT_PATH } from "../../../src/http/inline-snapshot";
import { COMMAND_CENTER_NAME as SHARED_NAME, type Snapshot } from "../../../src/shared/command-center";
import { COMMAND_CENTER_NAME, snapshotPath } from "../../../src/ui/view-models/dashboard";
import { INLINE_FRESH_MS, readInlineSnapshot } from "../../../src/ui/view-models/inline-snapshot";
import { metrics, NOW, thread } from "./fixtures";

const snapshot: Snapshot = {
  metrics,
  threads: [thread({ session: "acme-widgets-1", issueTitle: "</script><!-- \u2028 & >" })],
  total: 1,
  generatedAt: NOW
};
/** As the element's text reaches the SPA. */
const text = (value: unknown) => escapeJsonForHtml(JSON.stringify(value));

describe("readInlineSnapshot", () => {
  it("reads the element's text as the snapshot the API sent, hostile titles intact", () => {
    expect(readInlineSnapshot(text(snapshot), NOW + 1_000)).toEqual({ snapshot, fresh: true });
  });

  it("is nothing when the element is absent, empty, not JSON or not a snapshot: the SPA asks the API", () => {
    for (const value of [null, undefined, "", "{", text({ error: "forbidden" }), text([snapshot])]) {
      expect(readInlineSnapshot(value, NOW)).toBeNull();
    }
  });

  it("is stale (shown, then asked again) when older, or newer, than INLINE_FRESH_MS by this clock", () => {
    expect(readInlineSnapshot(text(snapshot), NOW + INLINE_FRESH_MS)?.fresh).toBe(true);
    expect(readInlineSnapshot(text(snapshot), NOW + INLINE_FRESH_MS + 1)).toEqual({ snapshot, fresh: false });
    expect(readInlineSnapshot(text(snapshot), NOW - INLINE_FRESH_MS - 1)?.fresh).toBe(false);
  });

  it("is the page the SPA would ask for, of the command center the server names", () => {
    expect(snapshotPath()).toBe(INLINE_SNAPSHOT_PATH);
    expect(COMMAND_CENTER_NAME).toBe(SHARED_NAME);
  });
});
