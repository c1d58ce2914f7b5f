import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { attachmentHeaders, checkAttachment, MAX_ATTACHMENT_BYTES, sniffType } from "./attachment_type.ts";
import { NoteError } from "./errors.ts";

const bytes = (...parts: (number[] | string)[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...p].map((c) => c.charCodeAt(0)) : p)));

describe("sniffType", () => {
  const cases: [string, Uint8Array, string | undefined][] = [
    ["png", bytes([0x89], "PNG\r\n\x1a\n", [0, 0]), "image/png"],
    ["jpeg", bytes([0xff, 0xd8, 0xff, 0xe0]), "image/jpeg"],
    ["gif87", bytes("GIF87a.."), "image/gif"],
    ["gif89", bytes("GIF89a.."), "image/gif"],
    ["webp", bytes("RIFF", [1, 2, 3, 4], "WEBPVP8 "), "image/webp"],
    ["riff but not webp", bytes("RIFF", [1, 2, 3, 4], "WAVEfmt "), undefined],
    ["pdf", bytes("%PDF-1.4\n"), "application/pdf"],
    ["svg", bytes("<svg xmlns='http://www.w3.org/2000/svg'/>"), "image/svg+xml"],
    [
      "svg with BOM, prolog, comment and doctype",
      bytes(
        [0xef, 0xbb, 0xbf],
        '<?xml version="1.0"?>\n<!-- x -->\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x">\n<svg>',
      ),
      "image/svg+xml",
    ],
    ["html", bytes("<!doctype html><html><svg>"), undefined],
    ["svg mentioned later", bytes("<html><body><svg></svg>"), undefined],
    ["empty", new Uint8Array(), undefined],
  ];
  for (const [why, b, want] of cases) it(why, () => assert.equal(sniffType(b), want));
});

describe("checkAttachment", () => {
  const png = bytes([0x89], "PNG\r\n\x1a\n");
  it("accepts agreeing name, type and content, case-insensitively and with parameters", () => {
    assert.equal(checkAttachment("a/B.PNG", "Image/PNG; foo=bar", png), "image/png");
  });
  it("refuses disagreement, unknown types and oversize files", () => {
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (err) {
        assert.ok(err instanceof NoteError);
        return err.code;
      }
      return "accepted";
    };
    assert.equal(code(() => checkAttachment("a.png", "image/jpeg", png)), "type_mismatch");
    assert.equal(code(() => checkAttachment("a.jpg", "image/jpeg", png)), "type_mismatch");
    assert.equal(code(() => checkAttachment("a.exe", "application/octet-stream", png)), "unsupported_type");
    const huge = new Uint8Array(MAX_ATTACHMENT_BYTES + 1);
    huge.set(png);
    assert.equal(code(() => checkAttachment("a.png", "image/png", huge)), "too_large");
    assert.equal(
      code(() => checkAttachment("a.png", "image/png", huge.subarray(0, MAX_ATTACHMENT_BYTES))),
      "accepted",
    );
  });
  it("serves SVG and PDF with script forbidden, everything with nosniff", () => {
    assert.match(attachmentHeaders("image/svg+xml", 3)["content-security-policy"]!, /script-src 'none'/);
    assert.match(attachmentHeaders("application/pdf", 3)["content-security-policy"]!, /script-src 'none'/);
    assert.equal(attachmentHeaders("image/png", 3)["x-content-type-options"], "nosniff");
    assert.equal(attachmentHeaders("image/png", 3)["content-security-policy"], undefined);
  });
});
