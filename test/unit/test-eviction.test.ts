import { describe, expect, it } from "vitest";
import { evictionReason, isTestEvictionReport } from "../support/test-eviction";

// The Workers suites capture workerd's reports of the evictions tests cause; nothing else may be captured.
describe("isTestEvictionReport", () => {
  const report = (error: string) =>
    `uncaught exception; exception = workerd/api/actor-state.c++:1249: failed: broken.outputGateBroken; jsg.Error: ${error}\n`;

  it("knows workerd's report of an eviction a test caused", () => {
    expect(isTestEvictionReport(report(evictionReason("evicted mid-tool")))).toBe(true);
    expect(isTestEvictionReport(report(evictionReason("killed before the ending")).trimEnd())).toBe(true);
    const withStack = `${report(evictionReason("evicted by the test"))}stack: /bin/workerd@2840f20 /bin/workerd@3a41e00\n`;
    expect(isTestEvictionReport(withStack)).toBe(true);
  });

  it("lets every other line through", () => {
    expect(isTestEvictionReport(report("evicted by the test"))).toBe(false);
    expect(isTestEvictionReport(report("Instance dispose"))).toBe(false);
    expect(isTestEvictionReport(`uncaught exception; source = Uncaught (in promise); stack = Error: ${evictionReason("x")}\n`)).toBe(false);
    expect(isTestEvictionReport(`${report(evictionReason("x"))}uncaught exception; source = Uncaught (in promise); stack = Error: boom\n`)).toBe(false);
    expect(isTestEvictionReport(`note: ${report(evictionReason("x"))}`)).toBe(false);
    expect(isTestEvictionReport(`${report(evictionReason("x"))}stack: a\nstack: b\n`)).toBe(false);
  });
});
