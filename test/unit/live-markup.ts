/**
 * What GitHub would make live in a comment, for the tests of what the bot
 * posts: @-mentions, references to other repositories, links that leave our
 * pages and the run's repository, raw HTML and reference-style links.
 *
 * The markdown is parsed by a real GFM parser (micromark, which remark uses;
 * it comes with @cloudflare/think's dependency tree), as GitHub parses it;
 * text in code, and an autolink's own address, are skipped, as GitHub skips
 * them when it looks for mentions and references.
 */
import { fromMarkdown } from "mdast-util-from-markdown";
import { gfmFromMarkdown } from "mdast-util-gfm";
import { gfm } from "micromark-extension-gfm";
import { allowedLink, type LinkPolicy } from "../../src/report/link-policy";

type Node = { type: string; value?: string; url?: string; children?: Node[] };

export type LiveMarkup = { mentions: string[]; references: string[]; links: string[]; html: string[] };

export const INERT: LiveMarkup = { mentions: [], references: [], links: [], html: [] };

export function parseMarkdown(markdown: string): Node {
  return fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }) as Node;
}

export function liveMarkup(markdown: string, policy: LinkPolicy): LiveMarkup {
  const found: LiveMarkup = { mentions: [], references: [], links: [], html: [] };
  const visit = (node: Node, linkUrl?: string) => {
    if (node.type === "inlineCode" || node.type === "code") return;
    if (node.type === "text" && linkUrl !== undefined && linkUrl.endsWith(node.value ?? "")) return;
    if (node.type === "html") found.html.push(node.value ?? "");
    if (node.url !== undefined && allowedLink(node.url, policy) === null) found.links.push(node.url);
    if (["definition", "linkReference", "imageReference", "footnoteReference", "footnoteDefinition"].includes(node.type)) found.links.push(node.type);
    if (node.type === "text") {
      const text = node.value ?? "";
      found.mentions.push(...[...text.matchAll(/(?<![A-Za-z0-9])@[A-Za-z0-9][\w-]*(?:\/[\w.-]+)?/g)].map((m) => m[0]));
      for (const m of text.matchAll(/([A-Za-z0-9][A-Za-z0-9-]*\/[\w.-]+)(?:#\d+|@[0-9a-f]{7,40})|GH-\d+/gi)) {
        if (!m[1] || m[1].toLowerCase() !== policy.repo.toLowerCase()) found.references.push(m[0]);
      }
    }
    for (const child of node.children ?? []) visit(child, node.type === "link" ? node.url : linkUrl);
  };
  visit(parseMarkdown(markdown));
  return found;
}
