/** imageTypeOf: the format a body's leading bytes are, whatever it is called. */

import { imageTypeOf } from "../../plugins/http/image_type.ts";
import { equal } from "node:assert/strict";

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const GIF87 = [...new TextEncoder().encode("GIF87a")];
const GIF89 = [...new TextEncoder().encode("GIF89a")];
const WEBP = [
  ...new TextEncoder().encode("RIFF"),
  0x24,
  0,
  0,
  0,
  ...new TextEncoder().encode("WEBP"),
];

const bytes = (...parts: number[][]) => Uint8Array.from(parts.flat());

Deno.test("imageTypeOf: each signature, followed by more bytes", () => {
  equal(imageTypeOf(bytes(PNG, [0, 0, 0, 0x0d])), "image/png");
  equal(imageTypeOf(bytes(JPEG, [0xe0, 0, 0x10])), "image/jpeg");
  equal(imageTypeOf(bytes(GIF87, [1, 0])), "image/gif");
  equal(imageTypeOf(bytes(GIF89, [1, 0])), "image/gif");
  equal(imageTypeOf(bytes(WEBP, [0x56, 0x50])), "image/webp");
});

Deno.test("imageTypeOf: a signature alone is enough", () => {
  equal(imageTypeOf(bytes(PNG)), "image/png");
  equal(imageTypeOf(bytes(JPEG)), "image/jpeg");
  equal(imageTypeOf(bytes(GIF89)), "image/gif");
  equal(imageTypeOf(bytes(WEBP)), "image/webp");
});

Deno.test("imageTypeOf: a header cut one byte short is no image", () => {
  equal(imageTypeOf(bytes(PNG.slice(0, -1))), undefined);
  equal(imageTypeOf(bytes(JPEG.slice(0, -1))), undefined);
  equal(imageTypeOf(bytes(GIF89.slice(0, -1))), undefined);
  equal(imageTypeOf(bytes(WEBP.slice(0, -1))), undefined);
  equal(imageTypeOf(new Uint8Array()), undefined);
});

Deno.test("imageTypeOf: a wrong byte where the signature is fixed is no image", () => {
  equal(imageTypeOf(bytes([0x88], PNG.slice(1))), undefined);
  equal(imageTypeOf(bytes(JPEG.slice(0, 2), [0xfe])), undefined);
  equal(imageTypeOf(new TextEncoder().encode("GIF89b")), undefined);
  equal(imageTypeOf(bytes(WEBP.slice(0, 8), [...new TextEncoder().encode("WAVE")])), undefined);
});

Deno.test("imageTypeOf: a text body is no image", () => {
  equal(imageTypeOf(new TextEncoder().encode("<!doctype html><p>not an image</p>")), undefined);
  equal(imageTypeOf(new TextEncoder().encode('{"image": "GIF89a"}')), undefined);
});
