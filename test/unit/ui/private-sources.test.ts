/** The thread page's words for the private registries a run used: hosts only, a few named, every one in the list. */
import { describe, expect, it } from "vitest";
import { PRIVATE_SOURCES_SHOWN, privateSourcesView } from "../../../src/ui/view-models/private-sources";

describe("privateSourcesView", () => {
  it("is nothing for a run that used none", () => {
    expect(privateSourcesView(undefined)).toBeNull();
    expect(privateSourcesView([])).toBeNull();
    expect(privateSourcesView([""])).toBeNull();
  });

  it("names one host in the singular, and several in the run's order", () => {
    expect(privateSourcesView(["npm.acme.example"])).toEqual({ text: "private source: npm.acme.example", hosts: ["npm.acme.example"], more: false });
    expect(privateSourcesView(["maven.acme.example", "npm.acme.example", "maven.acme.example"])).toEqual({
      text: "private sources: maven.acme.example, npm.acme.example",
      hosts: ["maven.acme.example", "npm.acme.example"],
      more: false
    });
  });

  it("names at most three, then how many more, and keeps every host for the list", () => {
    const hosts = ["a.example", "b.example", "c.example", "d.example", "e.example"];
    expect(PRIVATE_SOURCES_SHOWN).toBe(3);
    expect(privateSourcesView(hosts)).toEqual({ text: "private sources: a.example, b.example, c.example and 2 more", hosts, more: true });
    expect(privateSourcesView(hosts.slice(0, 3))!.more).toBe(false);
  });
});
