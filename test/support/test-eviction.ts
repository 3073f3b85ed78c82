/**
 * Evictions the tests cause on purpose. A test resets a Durable Object with
 * `state.abort(reason)` to play a deploy or a crash; workerd then reports
 * every event the reset cut off as an uncaught exception whose message ends
 * with that reason (one for the test's own request, one more for a turn in
 * flight). Those reports are the expected effect of the test, so each
 * eviction carries this marker, and the suite's setup captures the reports
 * that carry it (eviction-reports-setup.ts) instead of printing them.
 * Shared by the Node side (the setup) and workerd (test/helpers.ts `evict`).
 */
export const TEST_EVICTION = "test eviction:";

/** The abort reason for an eviction the test causes: the marker, then why. */
export function evictionReason(why: string): string {
  return `${TEST_EVICTION} ${why}`;
}

/**
 * Whether one line workerd wrote is its report of an eviction a test caused:
 * an uncaught exception from a broken output gate whose error is exactly an
 * `evictionReason`, with workerd's native stack on a second line. Anything
 * else, including any other broken gate, is not.
 */
export function isTestEvictionReport(text: string): boolean {
  return /^uncaught exception; exception = \S+: failed: broken\.outputGateBroken; jsg\.Error: test eviction: [^\n]*(\nstack: [^\n]*)?\n?$/.test(
    text
  );
}
