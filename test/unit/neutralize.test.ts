/**
 * Model text made safe to post: adversarial text (mentions in every
 * disguise, cross-references, links, HTML, entities, broken code) comes out
 * notifying no one and linking only to our pages and the run's repository.
 *
 * The judge is a real GFM parser (live-markup.ts): the output is parsed as
 * GitHub would, and every text node outside code is searched for what GitHub
 * turns into a mention or a reference, every link for where it goes. A
 * seeded fuzzer throws fragments of markdown at it beside the named cases.
 */
import { describe, expect, it } from "vitest";
import { pullRequestLink, reproductionLink, type LinkPolicy } from "../../src/report/link-policy";
import { codeSpan, neutralize } from "../../src/report/neutralize";
import { INERT as inert, liveMarkup as live, parseMarkdown } from "./live-markup";

const policy: LinkPolicy = { publicBaseUrl: "https://bot.test", githubWebUrl: "https://github.com", repo: "acme/app" };
const liveMarkup = (markdown: string) => live(markdown, policy);

describe("neutralize", () => {
  it("renders @-mentions and team mentions as code, in any markdown around them", () => {
    const out = neutralize("Thanks @alice, @org/team! **@bob** _@carol_ \\@dave (@erin) @frank.", policy);
    expect(out).toBe("Thanks `@alice`, `@org/team`! **`@bob`** _`@carol`_ \\\\`@dave` (`@erin`) `@frank`.");
    expect(liveMarkup(out)).toEqual(inert);
  });

  it("renders entities and raw HTML as text, so &#64;name and <a> cannot make a mention or a link", () => {
    const out = neutralize('&#64;alice <a href="https://evil.test">x</a> <img src="https://evil.test/p.png"> <!-- x', policy);
    expect(out).toContain("&amp;#64;alice");
    expect(out).toContain("&lt;a href=");
    expect(liveMarkup(out)).toEqual(inert);
  });

  it("makes cross-references to other repositories inert, and keeps the run's own", () => {
    const out = neutralize("See other/repo#12, GH-7, other/repo@0123abcd and acme/app#3, Acme/App#4, #5.", policy);
    expect(out).toBe("See `other/repo#12`, `GH-7`, `other/repo@0123abcd` and acme/app#3, Acme/App#4, #5.");
    expect(liveMarkup(out)).toEqual(inert);
  });

  it("shows links to other hosts and other repositories as text, and keeps ours and the run's repository's", () => {
    const out = neutralize(
      [
        "[click](https://evil.test/x) [ours](https://bot.test/repro/ab/) [issue](https://github.com/acme/app/issues/1)",
        "[other](https://github.com/other/repo/issues/1) ![pixel](https://evil.test/p.png \"t\") [rel](../../other/repo/issues/2)",
        "bare https://evil.test/a?b=1. https://github.com/other/repo/pull/9 https://github.com/acme/app/pull/2, www.evil.test <https://evil.test/x>",
        "mail me@evil.test, [ref]: https://evil.test",
        "[x][ref] [^1] [//evil.test](//evil.test) https://github.com@evil.test/"
      ].join("\n"),
      policy
    );
    expect(out).toContain("click (`https://evil.test/x`)");
    expect(out).toContain("[ours](<https://bot.test/repro/ab/>)");
    expect(out).toContain("[issue](<https://github.com/acme/app/issues/1>)");
    expect(out).toContain("other (`https://github.com/other/repo/issues/1`)");
    expect(out).toContain("<https://github.com/acme/app/pull/2>,");
    expect(out).toContain("`https://evil.test/a?b=1`.");
    expect(liveMarkup(out)).toEqual(inert);
  });

  it("keeps the model's code as written, escapes stray backticks, and closes a fence left open", () => {
    expect(neutralize("run `npm test -- @x` then ``a ` b``", policy)).toBe("run `npm test -- @x` then ``a ` b``");
    expect(neutralize("a ` b @c", policy)).toBe("a \\` b `@c`");
    const fenced = neutralize("before @a\n```js\nconst x = '@b'; // other/repo#1\n```\nafter @c", policy);
    expect(fenced).toBe("before `@a`\n```js\nconst x = '@b'; // other/repo#1\n```\nafter `@c`");
    const open = neutralize("```\n@inside", policy);
    expect(open).toBe("```\n@inside\n```");
    // In a list item the fence is not at column 0: treated as text, so nothing it holds escapes.
    const listed = neutralize("1. step\n   ```\n@outside\n   ```", policy);
    expect(liveMarkup(listed)).toEqual(inert);
    expect(liveMarkup(`${open}\n\nafter our text @us`).mentions).toEqual(["@us"]);
  });

  it("leaves the redaction's [redacted] as it reads, where it can be no link", () => {
    expect(neutralize("The token is [redacted] and [redacted].", policy)).toBe("The token is [redacted] and [redacted].");
    const tricks = neutralize("[redacted]: https://evil.test\n\nsee [redacted] and [redacted](https://evil.test) and [x][redacted]", policy);
    expect(tricks).toContain("\\[redacted\\]: `https://evil.test`");
    expect(liveMarkup(tricks)).toEqual(inert);
  });

  it("inline text never opens a fence", () => {
    expect(neutralize("```\n@x\n```", policy, { mode: "inline" })).not.toMatch(/^```$/m);
    expect(liveMarkup(`- ${neutralize("```js @x```", policy, { mode: "inline" })}`)).toEqual(inert);
  });

  it("writes any text as one code span", () => {
    expect(codeSpan("@x")).toBe("`@x`");
    expect(codeSpan("a`b")).toBe("``a`b``");
    expect(codeSpan("`x")).toBe("`` `x ``");
    expect(codeSpan("two\nlines")).toBe("`two lines`");
    for (const text of ["`", "``a``", "a ``` b", " @x "]) {
      const tree = parseMarkdown(codeSpan(text));
      expect(tree.children![0]!.children).toEqual([expect.objectContaining({ type: "inlineCode" })]);
    }
  });

  it("holds against fuzzed markdown: nothing live comes out", { timeout: 30_000 }, () => {
    const fragments = [
      "@a", "@org/team", " ", "\n", "\n\n", "`", "``", "```", "~~~", "\\", "[", "]", "](", "(", ")", "<", ">", "&#64;", "&", "*", "_",
      "!", "https://evil.test/x", "https://bot.test/t", "https://github.com/o/r/issues/1", "www.evil.test", "o/r#1", "GH-2", "me@x.io",
      "    ", "- ", "1. ", "> ", "#", "<a href=x>", "<!--", "-->", "|", ":", "\"", "'", "x", "word", "[redacted]"
    ];
    let seed = 12345;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 1500; i++) {
      let text = "";
      const length = 1 + random(24);
      for (let j = 0; j < length; j++) text += fragments[random(fragments.length)];
      for (const mode of ["block", "inline"] as const) {
        const out = neutralize(text, policy, { mode });
        const wrapped = mode === "block" ? `intro\n\n${out}\n\ntail` : `- ${out}`;
        const live = liveMarkup(wrapped);
        if (live.mentions.length + live.references.length + live.links.length + live.html.length > 0) {
          throw new Error(`live markup from ${JSON.stringify(text)} (${mode}): ${JSON.stringify(live)}\n${wrapped}`);
        }
      }
    }
  });
});

describe("link policy", () => {
  it("accepts a pull request only of the run's repository on the configured web host", () => {
    expect(pullRequestLink("https://github.com/acme/app/pull/12", policy)).toBe("https://github.com/acme/app/pull/12");
    expect(pullRequestLink("https://github.com/ACME/App/pull/12/", policy)).toBe("https://github.com/ACME/App/pull/12");
    for (const url of [
      "https://github.com/other/app/pull/12",
      "https://github.com/acme/app/issues/12",
      "https://github.com/acme/app/pull/12/files",
      "https://github.com/acme/app/pull/0",
      "https://github.com/acme/app/pull/12?x=1",
      "https://evil.test/acme/app/pull/12",
      "https://github.com.evil.test/acme/app/pull/12",
      "https://github.com@evil.test/acme/app/pull/12",
      "http://github.com/acme/app/pull/12",
      "javascript:alert(1)"
    ]) {
      expect(pullRequestLink(url, policy), url).toBeNull();
    }
    expect(pullRequestLink("https://ghe.test/acme/app/pull/3", { ...policy, githubWebUrl: "https://ghe.test" })).toBe("https://ghe.test/acme/app/pull/3");
    expect(pullRequestLink("https://github.com/acme/app/pull/3", { ...policy, githubWebUrl: "" })).toBeNull();
  });

  it("accepts a reproduction only under PUBLIC_BASE_URL", () => {
    expect(reproductionLink("https://bot.test/repro/ab12/", policy)).toBe("https://bot.test/repro/ab12/");
    const based = { ...policy, publicBaseUrl: "https://host.test/bot/" };
    expect(reproductionLink("https://host.test/bot/repro/x/", based)).toBe("https://host.test/bot/repro/x/");
    expect(reproductionLink("https://host.test/botnet/repro/x/", based)).toBeNull();
    expect(reproductionLink("https://evil.test/repro/ab12/", policy)).toBeNull();
    expect(reproductionLink("https://bot.test.evil.test/repro/", policy)).toBeNull();
    expect(reproductionLink("https://user@bot.test/repro/", policy)).toBeNull();
    expect(reproductionLink("https://bot.test/repro/", { ...policy, publicBaseUrl: "" })).toBeNull();
  });
});
