/**
 * The private registries a run's sandbox was given a credential for (the
 * repository's `registries:`), in words for the thread page: one short line
 * for the run's header and its line under "Earlier runs" ("private source:
 * npm.acme.example"), and every host for the list under it when the line
 * names only some. Hosts only, as the closing comment's footer says them
 * (src/report/closing-text.ts `privateSourcesText`), without its code spans. Pure.
 */
import { formatCount } from "./format";

/** Hosts named in the short line; the list names every one. */
export const PRIVATE_SOURCES_SHOWN = 3;

export const PRIVATE_SOURCES_TITLE =
  "Private registries the repository names in .github/agent-think.yml (registries:) whose credential the egress gateway attached to this run's requests; the sandbox never held it";

export type PrivateSourcesView = {
  /** "private sources: npm.acme.example, pypi.acme.example". */
  text: string;
  /** Every host, in the run's order (sorted). */
  hosts: string[];
  /** The line leaves some out ("and 2 more"): the list says them. */
  more: boolean;
};

/** Null when the run used none (or none readable was reported). */
export function privateSourcesView(hosts: readonly string[] | undefined): PrivateSourcesView | null {
  const unique = [...new Set((hosts ?? []).filter((host) => host !== ""))];
  if (unique.length === 0) return null;
  const more = unique.length - PRIVATE_SOURCES_SHOWN;
  const named = unique.slice(0, PRIVATE_SOURCES_SHOWN).join(", ") + (more > 0 ? ` and ${formatCount(more)} more` : "");
  return { text: `private source${unique.length === 1 ? "" : "s"}: ${named}`, hosts: unique, more: more > 0 };
}
