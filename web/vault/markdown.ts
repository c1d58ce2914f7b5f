/**
 * Markdown to HTML for the preview: micromark (CommonMark) with GFM and our wiki-link syntax, raw
 * HTML and dangerous URL protocols off (micromark's defaults), so what comes out is safe without a
 * sanitiser: text is escaped, `<script>` and event attributes in a note stay text, and
 * `javascript:` / `data:` link targets become empty. Wiki-links and embeds are escaped the same way.
 *
 * @example
 * renderMarkdown("See [[Ideas|my ideas]] and ![[diagram.png]]");
 */
import { micromark } from "micromark";
import { gfm, gfmHtml } from "micromark-extension-gfm";
import type {
  Code,
  CompileContext,
  Effects,
  Extension,
  HtmlExtension,
  State,
  Token,
} from "micromark-util-types";

// micromark's documented way to add token types and compile data.
declare module "micromark-util-types" {
  interface TokenTypeMap {
    wikiLink: "wikiLink";
    wikiEmbed: "wikiEmbed";
    wikiMarker: "wikiMarker";
    wikiValue: "wikiValue";
  }
  interface CompileData {
    wikiValue?: string;
  }
}

const LEFT_BRACKET = 91;
const RIGHT_BRACKET = 93;
const EXCLAMATION = 33;

/** Attachments an embed shows as an image (served by /api/attachments). */
const IMAGE_EXT = /\.(png|jpe?g|gif|webp|svg)$/i;

/** A parsed `[[target#heading|alias]]`. */
export interface WikiLink {
  target: string;
  heading: string;
  alias: string;
}

export function parseWikiLink(value: string): WikiLink {
  const bar = value.indexOf("|");
  const ref = bar >= 0 ? value.slice(0, bar) : value;
  const alias = bar >= 0 ? value.slice(bar + 1).trim() : "";
  const hash = ref.indexOf("#");
  return {
    target: (hash >= 0 ? ref.slice(0, hash) : ref).trim(),
    heading: hash >= 0 ? ref.slice(hash + 1).trim() : "",
    alias,
  };
}

function wikiTokenizer(embed: boolean) {
  return function tokenize(effects: Effects, ok: State, nok: State): State {
    let size = 0;
    const start: State = (code) => {
      effects.enter(embed ? "wikiEmbed" : "wikiLink");
      effects.enter("wikiMarker");
      if (embed) {
        if (code !== EXCLAMATION) return nok(code);
        effects.consume(code);
        return open1;
      }
      return open1(code);
    };
    const open1: State = (code) => {
      if (code !== LEFT_BRACKET) return nok(code);
      effects.consume(code);
      return open2;
    };
    const open2: State = (code) => {
      if (code !== LEFT_BRACKET) return nok(code);
      effects.consume(code);
      effects.exit("wikiMarker");
      effects.enter("wikiValue");
      return inside;
    };
    // Line endings (-5..-3) and EOF end the attempt; a nested "[" is not a wiki-link.
    const inside: State = (code: Code) => {
      if (code === null || code < -2 || code === LEFT_BRACKET || size > 500) return nok(code);
      if (code === RIGHT_BRACKET) {
        if (size === 0) return nok(code);
        effects.exit("wikiValue");
        effects.enter("wikiMarker");
        effects.consume(code);
        return close;
      }
      size++;
      effects.consume(code);
      return inside;
    };
    const close: State = (code) => {
      if (code !== RIGHT_BRACKET) return nok(code);
      effects.consume(code);
      effects.exit("wikiMarker");
      effects.exit(embed ? "wikiEmbed" : "wikiLink");
      return ok;
    };
    return start;
  };
}

/** The syntax: `[[…]]` before links, `![[…]]` before images. */
export const wikiSyntax: Extension = {
  text: {
    [LEFT_BRACKET]: { name: "wikiLink", tokenize: wikiTokenizer(false) },
    [EXCLAMATION]: { name: "wikiEmbed", tokenize: wikiTokenizer(true) },
  },
};

/** Query strings for the app: a wiki-link opens `?note=`, an attachment loads from the API. */
export const noteHref = (target: string) => `?note=${encodeURIComponent(target)}`;
export const attachmentSrc = (path: string) => `/api/attachments?path=${encodeURIComponent(path)}`;

/** The HTML: every value passes through `encode` (escapes & < > "), and URLs are built, never copied. */
export const wikiHtml: HtmlExtension = {
  exit: {
    wikiValue(this: CompileContext, token: Token) {
      this.setData("wikiValue", this.sliceSerialize(token));
    },
    wikiLink(this: CompileContext) {
      const link = parseWikiLink(this.getData("wikiValue") ?? "");
      const label = link.alias || (link.heading ? `${link.target} › ${link.heading}` : link.target);
      this.tag(
        `<a class="wikilink" href="${this.encode(noteHref(link.target))}" data-note="${
          this.encode(link.target)
        }"` +
          (link.heading ? ` data-heading="${this.encode(link.heading)}"` : "") + ">",
      );
      this.raw(this.encode(label));
      this.tag("</a>");
    },
    wikiEmbed(this: CompileContext) {
      const link = parseWikiLink(this.getData("wikiValue") ?? "");
      if (IMAGE_EXT.test(link.target)) {
        this.tag(
          `<img class="embed-image" src="${this.encode(attachmentSrc(link.target))}" alt="${
            this.encode(link.alias || link.target)
          }">`,
        );
        return;
      }
      this.tag(`<span class="embed" data-embed="${this.encode(link.target)}">`);
      this.raw(this.encode(link.alias || link.target));
      this.tag("</span>");
    },
  },
};

/** Front matter is metadata, not text: the preview leaves it out. */
function stripFrontMatter(source: string): string {
  const m = /^---\r?\n[\s\S]*?\r?\n---\r?\n?/.exec(source);
  return m ? source.slice(m[0].length) : source;
}

export function renderMarkdown(source: string): string {
  return micromark(stripFrontMatter(source), {
    extensions: [gfm(), wikiSyntax],
    htmlExtensions: [gfmHtml(), wikiHtml],
    // The defaults, said out loud: raw HTML is shown as text; only http(s), mailto, irc, xmpp links.
    allowDangerousHtml: false,
    allowDangerousProtocol: false,
  });
}
