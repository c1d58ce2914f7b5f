/**
 * Attachments: which types a vault accepts, how each is recognised from its first bytes, and the
 * headers it must be served with. The declared type, the file extension and the content must agree;
 * anything else is refused, so a script cannot be uploaded as `photo.png`. SVG can carry script, so
 * it is served with a CSP that forbids script (and `nosniff` everywhere).
 */
import { NoteError } from "./errors.ts";

/** Largest attachment accepted: 20 MiB, enough for phone photos and most PDFs. */
export const MAX_ATTACHMENT_BYTES = 20 * 1024 * 1024;

/** The CSP an SVG attachment is served with. */
export const SVG_CSP =
  "default-src 'none'; script-src 'none'; style-src 'unsafe-inline'; img-src data:; sandbox";

export type AttachmentType =
  | "image/png"
  | "image/jpeg"
  | "image/gif"
  | "image/webp"
  | "image/svg+xml"
  | "application/pdf";

const EXTENSIONS: Record<string, AttachmentType> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
  pdf: "application/pdf",
};

export function typeForExtension(path: string): AttachmentType | undefined {
  const m = /\.([a-z0-9]+)$/i.exec(path);
  return m ? EXTENSIONS[m[1]!.toLowerCase()] : undefined;
}

function startsWith(b: Uint8Array, sig: number[], at = 0): boolean {
  return b.length >= at + sig.length && sig.every((x, i) => b[at + i] === x);
}

const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

function isSvg(b: Uint8Array): boolean {
  let text = new TextDecoder("utf-8", { fatal: false }).decode(b.subarray(0, 4096)).replace(/^\ufeff/, "");
  // Skip the XML declaration, comments, processing instructions and a doctype before the root.
  for (;;) {
    text = text.trimStart();
    const m = /^(<\?[\s\S]*?\?>|<!--[\s\S]*?-->|<!DOCTYPE[^>\[]*(\[[\s\S]*?\])?\s*>)/i.exec(text);
    if (!m) break;
    text = text.slice(m[0].length);
  }
  return /^<svg[\s>]/i.test(text);
}

/** The type the content really is, from its magic bytes, or undefined when not one we accept. */
export function sniffType(b: Uint8Array): AttachmentType | undefined {
  if (startsWith(b, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png";
  if (startsWith(b, [0xff, 0xd8, 0xff])) return "image/jpeg";
  if (startsWith(b, ascii("GIF87a")) || startsWith(b, ascii("GIF89a"))) return "image/gif";
  if (startsWith(b, ascii("RIFF")) && startsWith(b, ascii("WEBP"), 8)) return "image/webp";
  if (startsWith(b, ascii("%PDF-"))) return "application/pdf";
  if (isSvg(b)) return "image/svg+xml";
  return undefined;
}

/**
 * The type of an upload after checking that declared type, extension and content agree.
 * `declared` may carry parameters (`image/svg+xml; charset=utf-8`).
 */
export function checkAttachment(path: string, declared: string, bytes: Uint8Array): AttachmentType {
  const byExt = typeForExtension(path);
  if (!byExt) {
    throw new NoteError("unsupported_type", "attachments must be PNG, JPEG, GIF, WebP, SVG or PDF files");
  }
  const want = declared.split(";")[0]!.trim().toLowerCase();
  if (want !== byExt) {
    throw new NoteError(
      "type_mismatch",
      `declared type ${want || "(none)"} does not match the .${path.split(".").pop()} name`,
    );
  }
  if (bytes.length > MAX_ATTACHMENT_BYTES) {
    throw new NoteError("too_large", `attachments are limited to ${MAX_ATTACHMENT_BYTES} bytes`);
  }
  const sniffed = sniffType(bytes);
  if (sniffed !== byExt) {
    throw new NoteError(
      "type_mismatch",
      `the content is not ${byExt}${sniffed ? ` (it looks like ${sniffed})` : ""}`,
    );
  }
  return byExt;
}

/** Headers to serve an attachment with. */
export function attachmentHeaders(type: AttachmentType, size: number): Record<string, string> {
  const h: Record<string, string> = {
    "content-type": type,
    "content-length": String(size),
    "x-content-type-options": "nosniff",
  };
  if (type === "image/svg+xml") h["content-security-policy"] = SVG_CSP;
  if (type === "application/pdf") h["content-security-policy"] = "script-src 'none'; object-src 'none'";
  return h;
}
