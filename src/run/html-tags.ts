/**
 * The raw HTML in what people write on GitHub, read the way the page's HTML
 * parser reads it, for hidden-markdown.ts: start and end tags with their
 * attributes, comments and declarations skipped. It decides which
 * attributes hold text no sighted reader sees (`hiddenAttribute`) and names
 * the elements whose contents never show (`HIDDEN_ELEMENTS`); the sources
 * for both are in docs/security.md.
 *
 * It does not know markdown: the caller says which ranges are raw HTML. Pure.
 */

/** GitHub drops `video` with everything in it; browsers never display `rp` (display: none), which GitHub keeps. */
export const HIDDEN_ELEMENTS: ReadonlySet<string> = new Set(["video", "rp"]);

// The GFM tagfilter escapes these tags' `<`, so a reader sees the whole tag as text.
const TAGFILTERED = new Set(["title", "textarea", "style", "xmp", "iframe", "noembed", "noframes", "script", "plaintext"]);
// Shown to a reader (a tooltip, an image's stand-in) or the page's own links and images.
const SHOWN_OR_LINKED = new Set(["title", "alt", "href", "src", "srcset", "longdesc", "cite"]);
// Layout and anchor attributes: one short token in them carries no sentence.
const LAYOUT = new Set([
  "width", "height", "align", "valign", "border", "cellpadding", "cellspacing", "colspan", "rowspan", "span", "start", "dir", "lang",
  "open", "nowrap", "noshade", "compact", "clear", "color", "size", "hspace", "vspace", "scope", "type", "datetime", "id", "name", "class"
]);
const LAYOUT_TOKEN = /^[\w.:#%-]{1,32}$/;

export type HtmlAttribute = { name: string; value: string; start: number; end: number };
export type HtmlTag = { name: string; closing: boolean; start: number; end: number; attributes: HtmlAttribute[] };

/** Whether an attribute's value is text that no sighted reader of the rendered page sees. */
export function hiddenAttribute(tag: string, attribute: HtmlAttribute): boolean {
  if (TAGFILTERED.has(tag) || SHOWN_OR_LINKED.has(attribute.name)) return false;
  const value = attribute.value.trim();
  if (!/\p{L}/u.test(value)) return false;
  return !(LAYOUT.has(attribute.name) && LAYOUT_TOKEN.test(value));
}

const ALPHA = /[A-Za-z]/;

/** HTML's whitespace: tab, line feed, form feed, carriage return, space. */
function isSpace(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return code === 32 || code === 9 || code === 10 || code === 12 || code === 13;
}

/** Markup the page's HTML parser reads as a comment and no one sees: `<?…>`, `<!…>` (a CDATA section, a declaration) and `</…>` that names no tag. */
export type HtmlDeclaration = { start: number; end: number };

/**
 * The tags and declarations in `text[from, to)`, in order, read as an HTML
 * tokenizer reads them. A comment is skipped whole (reveal.ts shows it); a
 * tag or declaration that does not end before `to` ends the scan, as the
 * end of input ends the tokenizer's tag. Linear in `to - from`.
 */
export function scanTags(text: string, from = 0, to = text.length): { tags: HtmlTag[]; declarations: HtmlDeclaration[] } {
  const tags: HtmlTag[] = [];
  const declarations: HtmlDeclaration[] = [];
  let at = text.indexOf("<", from);
  while (at >= 0 && at < to) {
    const next = text.charAt(at + 1);
    let end: number;
    if (text.startsWith("<!--", at)) {
      // From the `--`: `<!-->` and `<!--->` are whole (empty) comments.
      end = endOf(text, "-->", at + 2, to);
      if (end < 0) break;
    } else if (next === "!" || next === "?" || (next === "/" && text.charAt(at + 2) !== ">" && !ALPHA.test(text.charAt(at + 2)))) {
      end = endOf(text, ">", at + 2, to);
      if (end < 0) break;
      declarations.push({ start: at, end });
    } else if (next === "/" && ALPHA.test(text.charAt(at + 2))) {
      end = endOf(text, ">", at + 2, to);
      if (end < 0) break;
      tags.push({ name: text.slice(at + 2, nameEnd(text, at + 2, to)).toLowerCase(), closing: true, start: at, end, attributes: [] });
    } else if (ALPHA.test(next)) {
      const tag = startTag(text, at, to);
      if (!tag) break;
      tags.push(tag);
      end = tag.end;
    } else end = at + 1;
    at = text.indexOf("<", end);
  }
  return { tags, declarations };
}

/** The longest tag or declaration `scanLoose` reads; a longer one is `unclosed`. */
export const MAX_LOOSE_TAG_CHARS = 512;

/**
 * Every tag that could hide something (a hidden element's start or end
 * tag, a tag with a hidden attribute) and every declaration that starts at
 * some `<` of `text`, each read on its own (not knowing which `<` markdown
 * makes raw HTML) and only within MAX_LOOSE_TAG_CHARS, so they may overlap.
 * `unclosed`: some `<` begins a tag or declaration that does not end
 * within that bound.
 */
export function scanLoose(text: string): { tags: HtmlTag[]; declarations: HtmlDeclaration[]; unclosed: boolean } {
  const tags: HtmlTag[] = [];
  const declarations: HtmlDeclaration[] = [];
  let unclosed = false;
  for (let at = text.indexOf("<"); at >= 0; at = text.indexOf("<", at + 1)) {
    if (text.startsWith("<!--", at)) continue;
    // Each read sees only its window, so no search runs on past the bound.
    const window = text.slice(at, at + MAX_LOOSE_TAG_CHARS);
    const next = window.charAt(1);
    if (next === "!" || next === "?" || (next === "/" && window.charAt(2) !== ">" && !ALPHA.test(window.charAt(2)))) {
      const end = endOf(window, ">", 2, window.length);
      if (end < 0) unclosed = true;
      else declarations.push({ start: at, end: at + end });
    } else if (next === "/" && ALPHA.test(window.charAt(2))) {
      const end = endOf(window, ">", 2, window.length);
      const name = window.slice(2, nameEnd(window, 2, window.length)).toLowerCase();
      if (end < 0) unclosed = true;
      else if (HIDDEN_ELEMENTS.has(name)) tags.push({ name, closing: true, start: at, end: at + end, attributes: [] });
    } else if (ALPHA.test(next)) {
      const tag = startTag(window, 0, window.length, true);
      if (!tag) unclosed = true;
      else if (HIDDEN_ELEMENTS.has(tag.name) || tag.attributes.some((attribute) => hiddenAttribute(tag.name, attribute))) {
        const attributes = tag.attributes.map((attribute) => ({ ...attribute, start: at + attribute.start, end: at + attribute.end }));
        tags.push({ ...tag, start: at, end: at + tag.end, attributes });
      }
    }
  }
  return { tags, declarations, unclosed };
}

/** Just past the first `marker` from `from` that ends by `to`; -1 when there is none. */
function endOf(text: string, marker: string, from: number, to: number): number {
  const found = text.indexOf(marker, from);
  return found < 0 || found + marker.length > to ? -1 : found + marker.length;
}

/** Where a tag's or attribute's name ends; `stops` adds characters that end it (`loose`: `<`, which no tag markdown makes has there). */
function nameEnd(text: string, from: number, to: number, stops = "/>"): number {
  let end = from;
  while (end < to && !isSpace(text, end) && !stops.includes(text.charAt(end))) end++;
  return end;
}

/**
 * The start tag at `at` (its `<`), as an HTML tokenizer reads its name and
 * attributes; null when it does not end before `to`. `loose`: a `<` outside
 * a quoted value ends it there, so each read stops at the next `<`.
 */
function startTag(text: string, at: number, to: number, loose = false): HtmlTag | null {
  const stops = loose ? "/><" : "/>";
  let i = nameEnd(text, at + 1, to, stops);
  const name = text.slice(at + 1, i).toLowerCase();
  const attributes: HtmlAttribute[] = [];
  for (;;) {
    while (i < to && (isSpace(text, i) || text.charAt(i) === "/")) i++;
    if (i >= to) return null;
    if (text.charAt(i) === ">") return { name, closing: false, start: at, end: i + 1, attributes };
    if (loose && text.charAt(i) === "<") return { name, closing: false, start: at, end: i, attributes };
    const start = i;
    i = nameEnd(text, i + 1, to, `${stops}=`);
    const attribute = text.slice(start, i).toLowerCase();
    let j = i;
    while (j < to && isSpace(text, j)) j++;
    if (j >= to || text.charAt(j) !== "=") {
      attributes.push({ name: attribute, value: "", start, end: i });
      continue;
    }
    j++;
    while (j < to && isSpace(text, j)) j++;
    if (j >= to) return null;
    const quote = text.charAt(j);
    let value: string;
    if (quote === '"' || quote === "'") {
      const close = text.indexOf(quote, j + 1);
      if (close < 0 || close >= to) return null;
      value = text.slice(j + 1, close);
      i = close + 1;
    } else {
      i = nameEnd(text, j, to, loose ? "><" : ">");
      value = text.slice(j, i);
    }
    attributes.push({ name: attribute, value, start, end: i });
  }
}
