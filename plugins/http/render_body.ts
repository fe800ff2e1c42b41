/**
 * What `fetch_url` shows of a body: JSON pretty-printed, HTML as text, text as is,
 * images as image content, other binaries as a one-line note.
 *
 * @module
 */

import type { ImageContent } from "../../core/messages.ts";
import { htmlToText } from "./html_to_text.ts";
import { imageTypeOf } from "./image_type.ts";

/** How a body was rendered. */
export type BodyKind = "json" | "html" | "text" | "image" | "binary" | "empty";

/** A rendered body. */
export interface RenderedBody {
  /** How it was rendered. */
  kind: BodyKind;
  /** The text for the model (for images, a short description). */
  text: string;
  /** For images. */
  image?: ImageContent;
}

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

function mediaType(contentType: string): string {
  return contentType.split(";")[0].trim().toLowerCase();
}

function charset(contentType: string): string {
  return /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1] ?? "utf-8";
}

function decode(bytes: Uint8Array, contentType: string): string {
  try {
    return new TextDecoder(charset(contentType)).decode(bytes);
  } catch {
    return new TextDecoder().decode(bytes);
  }
}

function isTextual(type: string): boolean {
  return type.startsWith("text/") ||
    /[/+](xml|javascript|ecmascript|csv|yaml|x-yaml|toml)$/.test(type) ||
    type === "application/x-www-form-urlencoded" || type === "application/x-ndjson";
}

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/**
 * About how long `JSON.stringify(JSON.parse(json), null, 2)` would be, from one scan of the
 * text: each `{`, `[` and `,` outside strings starts a line indented two spaces a level.
 * Deep nesting makes indentation grow with the square of the depth (100 KB of nested
 * arrays printed as 500 million characters), so it is measured before anything is built.
 */
function prettySize(json: string): number {
  let size = json.length;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < json.length; i++) {
    const char = json.charCodeAt(i);
    if (inString) {
      if (char === 0x5c) i++; // a backslash escapes the next character
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x7b || char === 0x5b) size += 2 * ++depth + 1;
    else if (char === 0x7d || char === 0x5d) size += 2 * --depth + 1;
    else if (char === 0x2c) size += 2 * depth + 1;
  }
  return size;
}

/** JSON is shown pretty-printed unless that makes it this many times longer (deep nesting). */
const MAX_PRETTY_GROWTH = 4;

/**
 * Renders a body by its content type. JSON (`application/json`, `+json`) is
 * pretty-printed when it parses and its indentation stays under four times its length (a
 * cut or deeply nested body is shown as it came); HTML becomes text via
 * `htmlToText`; other text types are decoded with their charset; PNG, JPEG, GIF and WebP
 * become image content (unless cut); a body without a content type is shown as text if
 * it has no NUL bytes; anything else is described, not shown. An image's bytes must be one
 * of those formats (by their signature), which is the media type sent, whatever the header
 * said; other bytes are described.
 *
 * @param bytes The body (possibly cut at the cap).
 * @param contentType The `content-type` header, or `""`.
 * @param truncated Whether the body was cut.
 * @returns The rendering.
 *
 * @example Pretty-printing JSON
 * ```ts
 * import { renderBody } from "@tack/agent/plugins/http";
 * import { equal } from "node:assert/strict";
 *
 * const body = new TextEncoder().encode('{"a":[1,2]}');
 * equal(renderBody(body, "application/json", false).text, '{\n  "a": [\n    1,\n    2\n  ]\n}');
 * ```
 */
export function renderBody(
  bytes: Uint8Array,
  contentType: string,
  truncated: boolean,
): RenderedBody {
  if (bytes.length === 0) return { kind: "empty", text: "(empty body)" };
  const type = mediaType(contentType);
  if (type === "application/json" || type.endsWith("+json")) {
    const text = decode(bytes, contentType);
    if (!truncated && prettySize(text) <= MAX_PRETTY_GROWTH * text.length + 4096) {
      try {
        return { kind: "json", text: JSON.stringify(JSON.parse(text), null, 2) };
      } catch { /* not valid JSON after all: show it as text */ }
    }
    return { kind: "json", text };
  }
  if (type === "text/html" || type === "application/xhtml+xml") {
    return { kind: "html", text: htmlToText(decode(bytes, contentType)) };
  }
  if (isTextual(type) || (type === "" && !bytes.subarray(0, 8000).includes(0))) {
    return { kind: "text", text: decode(bytes, contentType) };
  }
  // The format the bytes are, not the one claimed: a provider refuses an image that is not
  // what its media type says, and every later request of the chat that carries it.
  const image = IMAGE_TYPES.has(type) && !truncated ? imageTypeOf(bytes) : undefined;
  if (image) {
    return {
      kind: "image",
      text: `[${image} image, ${bytes.length} bytes]`,
      image: { type: "image", data: toBase64(bytes), mimeType: image },
    };
  }
  return {
    kind: "binary",
    text: `[${type || "binary"} content${
      truncated ? " (cut at the size limit)" : ""
    }, ${bytes.length} bytes, not shown]`,
  };
}
