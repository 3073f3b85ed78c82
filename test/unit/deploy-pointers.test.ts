/**
 * What the deploy texts point at is there. Every section a fix text, a code
 * comment, the README or a docs page names ("README, Configuration",
 * `docs/security.md (Rulesets)`, `[Costs](#costs)`) is a heading of that
 * file; and the App permissions and webhook events the README and
 * docs/app-setup.md tell an operator to set are exactly those the webhook
 * app's tokens ask for and its webhook handles.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { CI_EVENTS } from "../../ingress/src/ci-trigger";
import {
  CI_READ_TOKEN_PERMISSIONS,
  READ_ONLY_TOKEN_PERMISSIONS,
  REPORT_TOKEN_PERMISSIONS,
  TOKEN_PERMISSIONS
} from "../../ingress/src/github/app-client";
import { PULL_REQUEST_EVENT } from "../../ingress/src/pull-request-change";
import { TRIGGER_EVENTS } from "../../ingress/src/trigger";

const root = new URL("../../", import.meta.url).pathname;
const read = (path: string) => readFileSync(join(root, path), "utf8");

function filesUnder(dir: string, ext: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(ext))
    .map((name) => join(dir, name));
}

/** A heading as a reference names it: no `#`, no step number, no backticks, any case. */
const normalise = (text: string) =>
  text.replace(/^#+\s*/, "").replace(/^\d+\.\s+/, "").replaceAll("`", "").trim().toLowerCase();

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces as `-`. */
const anchor = (heading: string) =>
  heading.replace(/^#+\s*/, "").trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");

function headings(path: string): string[] {
  let inFence = false;
  const found: string[] = [];
  for (const line of read(path).split("\n")) {
    if (line.startsWith("```")) inFence = !inFence;
    else if (!inFence && /^#{1,6}\s/.test(line)) found.push(line);
  }
  return found;
}

/**
 * The names a reference may use for a place in a file: each heading, and
 * its title before a colon ("Rulesets" for "Rulesets: GitHub holds the App
 * to its branches"); and each paragraph or list item's bold lead
 * (`**Bounded output.**`), which the docs use as a run-in section.
 */
function sectionNames(path: string): Set<string> {
  const names = new Set<string>();
  for (const heading of headings(path)) {
    names.add(normalise(heading));
    names.add(normalise(heading.split(":")[0]!));
  }
  for (const [, lead] of read(path).matchAll(/^(?:- )?\*\*([^*]+?)[.:]?\*\*/gm)) names.add(normalise(lead!));
  return names;
}

type Pointer = { from: string; file: string; section?: string; anchor?: string };

const DOC = String.raw`(README(?:\.md)?|docs/[a-z0-9-]+\.md)`;
/** `docs/x.md, "Section"` and `README, "Section"`, anywhere. */
const QUOTED = new RegExp(String.raw`${DOC}\`?, "([^"]+)"`, "g");
/** `(docs/x.md, Section)` or `(README, Section; …)`: unquoted, only where a parenthesis ends it. */
const IN_PARENS = new RegExp(String.raw`\(\`?${DOC}\`?, ([A-Z][^"();]*)[);]`, "g");
/** `docs/x.md (Section, Section)`: the names in the parenthesis that follows. */
const FOLLOWED = new RegExp(String.raw`${DOC}\`? \(([A-Z][^()$]*)\)`, "g");
/** `[text](docs/x.md#anchor)`, `[text](#anchor)`, relative to the file that links. */
const LINK = /\]\(([a-z0-9./-]*\.md)?#([a-z0-9-]+)\)/g;

const fileOf = (name: string) => (name.startsWith("README") ? "README.md" : name);

function pointersIn(path: string): Pointer[] {
  const text = read(path).replace(/\s*\n\s*(?:\*\s|\/\/\s?)?/g, " ");
  const found: Pointer[] = [];
  for (const [, file, section] of text.matchAll(QUOTED)) found.push({ from: path, file: fileOf(file!), section });
  for (const [, file, section] of text.matchAll(IN_PARENS)) found.push({ from: path, file: fileOf(file!), section: section!.trim() });
  for (const [, file, sections] of text.matchAll(FOLLOWED)) {
    for (const section of sections!.split(",")) found.push({ from: path, file: fileOf(file!), section: section.trim() });
  }
  if (path.endsWith(".md")) {
    for (const [, file, name] of text.matchAll(LINK)) {
      const target = file === undefined ? path : relative(root, join(root, path, "..", file));
      found.push({ from: path, file: target, anchor: name });
    }
  }
  return found;
}

const sources = [
  "README.md",
  ...filesUnder("docs", ".md"),
  ...filesUnder("scripts", ".ts"),
  ...filesUnder("src", ".ts"),
  ...filesUnder("ingress/src", ".ts")
];

describe("sections the deploy texts point at", () => {
  const pointers = sources.flatMap(pointersIn);

  it("finds the pointers the doctor's fix texts and the README hold", () => {
    // The reader is only as good as what it finds: these must be among them.
    const seen = pointers.map((p) => `${p.from} -> ${p.file} ${p.section ?? `#${p.anchor}`}`);
    expect(seen).toContain("scripts/lib/doctor/wiring.ts -> README.md Configuration");
    expect(seen).toContain("scripts/lib/doctor/rulesets.ts -> docs/security.md Rulesets");
    expect(seen).toContain("scripts/lib/doctor/ci-secrets.ts -> docs/security.md CI secrets");
    expect(seen).toContain("README.md -> README.md #costs");
    expect(pointers.filter((p) => p.from === "scripts/lib/doctor/deploy.ts" && p.file === "README.md")).toHaveLength(1);
  });

  it("names only headings that exist", () => {
    const missing = pointers.filter((pointer) => {
      return pointer.section !== undefined
        ? !sectionNames(pointer.file).has(normalise(pointer.section))
        : !headings(pointer.file).some((heading) => anchor(heading) === pointer.anchor);
    });
    expect(missing).toEqual([]);
  });
});

type Access = "read" | "write";
const rank = (access: string): Access => (access === "write" ? "write" : "read");

/** Each permission at the most any token the webhook app mints asks for. */
function codePermissions(): Record<string, Access> {
  const all: Record<string, Access> = {};
  for (const set of [TOKEN_PERMISSIONS, READ_ONLY_TOKEN_PERMISSIONS, REPORT_TOKEN_PERMISSIONS, CI_READ_TOKEN_PERMISSIONS]) {
    for (const [name, access] of Object.entries(set)) {
      if (all[name] !== "write") all[name] = rank(access);
    }
  }
  return all;
}

const codeEvents = () => [...Object.keys(TRIGGER_EVENTS), ...Object.keys(CI_EVENTS), PULL_REQUEST_EVENT].sort();

/** GitHub's setting name as the API spells it: "Pull requests" is pull_requests, "Check suite" check_suite. */
const apiName = (label: string) => label.trim().toLowerCase().replace(/\s+/g, "_");
const bold = (text: string) => [...text.matchAll(/\*\*([^*]+)\*\*/g)].map((m) => m[1]!);

/** The README's step-2 bullet that starts with `prefix`, up to the next bullet. */
function readmeBullet(prefix: string): string {
  const readme = read("README.md");
  const start = readme.indexOf(`- ${prefix}`);
  expect(start, prefix).toBeGreaterThan(-1);
  const end = readme.indexOf("\n- ", start + 2);
  return readme.slice(start, end);
}

function readmePermissions(): Record<string, Access> {
  // "**Issues**, **Contents** and **Pull requests** read and write; **Metadata** read-only; …"
  const listed: Record<string, Access> = {};
  const bullet = readmeBullet("Repository permissions:");
  const list = bullet.slice(0, bullet.indexOf("."));
  for (const part of list.split(";")) {
    const access: Access = /read and write/.test(part) ? "write" : "read";
    for (const name of bold(part)) listed[apiName(name)] = access;
  }
  return listed;
}

function readmeEvents(): string[] {
  // The names before the bullet's first parenthesis; what follows explains them.
  const bullet = readmeBullet("Subscribe to events:");
  return bold(bullet.slice(0, bullet.indexOf("("))).map(apiName).sort();
}

/** docs/app-setup.md's "Permissions and events": its two tables' bold or plain first cells. */
function appSetupTables(): { permissions: Record<string, Access>; events: string[] } {
  const doc = read("docs/app-setup.md");
  const section = doc.slice(doc.indexOf("## Permissions and events"), doc.indexOf("\n## ", doc.indexOf("## Permissions and events") + 3));
  const [permissionsPart = "", eventsPart = ""] = section.split("and these events");
  const rows = (part: string) =>
    part.split("\n").filter((line) => line.startsWith("| ") && !line.startsWith("|---")).slice(1).map((line) => line.split("|").map((cell) => cell.trim()));
  const permissions: Record<string, Access> = {};
  for (const [, name, access] of rows(permissionsPart)) permissions[apiName(name!)] = /write/.test(access!) ? "write" : "read";
  const events = rows(eventsPart).map(([, name]) => apiName(name!.replaceAll("*", ""))).sort();
  return { permissions, events };
}

describe("the App's permissions and events", () => {
  it("are in the README as the tokens ask for them", () => {
    expect(readmePermissions()).toEqual(codePermissions());
  });

  it("are in the README as the webhook handles them", () => {
    expect(readmeEvents()).toEqual(codeEvents());
  });

  it("are in docs/app-setup.md as the code has them", () => {
    const { permissions, events } = appSetupTables();
    expect(permissions).toEqual(codePermissions());
    expect(events).toEqual(codeEvents());
  });
});
