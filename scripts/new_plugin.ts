/**
 * Scaffolds a Tack plugin package from `examples/plugin-template/`.
 *
 * ```sh
 * deno task new-plugin <name> [target] [--scope=@you] [--tack=<path to a Tack checkout>]
 * ```
 *
 * Copies the template into `target` (default `./<name>`), renames the package to
 * `<scope>/tack-plugin-<name>`, the plugin to `<name>`, its factory to `<camelName>`, its
 * options type to `<PascalName>Options` and its test file to `tests/<snake_name>_test.ts`.
 * The copy imports `jsr:@tack/agent@^0.1/…`, and its `deno.json` links a Tack checkout (the
 * one `--tack` names, else the one it lands in, else the one running this script), so those
 * names resolve to it (offline too, and before Tack is on JSR) while what is published still
 * imports JSR. Refuses to overwrite anything.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { dirname, join, relative, resolve } from "node:path";

/** What {@linkcode scaffoldPlugin} takes. */
export interface ScaffoldOptions {
  /** The plugin's name: lowercase letters, digits and single hyphens, e.g. `my-plugin`. */
  name: string;
  /** Where to create it (default `./<name>`); must not exist. */
  target?: string;
  /** The JSR scope (default `@you`). */
  scope?: string;
  /** A Tack checkout to link in place of JSR's `@tack/agent` (auto-detected above `target`). */
  tack?: string;
  /** The checkout to link when `tack` is not given and none is above `target`. */
  fallbackTack?: string;
}

/** The Tack checkout this script is part of (`undefined` when it runs from elsewhere). */
export const OWN_CHECKOUT: string | undefined = import.meta.url.startsWith("file:")
  ? new URL("..", import.meta.url).pathname.replace(/\/$/, "")
  : undefined;

/** The JSR imports a published plugin uses. */
export const JSR_IMPORTS: Readonly<Record<string, string>> = {
  "@tack/agent/plugin": "jsr:@tack/agent@^0.1/plugin",
  "@tack/agent/sdk": "jsr:@tack/agent@^0.1/sdk",
  "@tack/agent/sdk/testing": "jsr:@tack/agent@^0.1/sdk/testing",
};

const NAME_PATTERN = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const SCOPE_PATTERN = /^@[a-z0-9][a-z0-9-]*$/;
const TEMPLATE = new URL("../examples/plugin-template/", import.meta.url).pathname;
const SKIP = new Set(["deno.lock", "node_modules"]);

function camel(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function pascal(name: string): string {
  const c = camel(name);
  return c[0].toUpperCase() + c.slice(1);
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

async function findTackCheckout(start: string): Promise<string | undefined> {
  let dir = start;
  while (true) {
    try {
      const config = JSON.parse(
        await Deno.readTextFile(join(dir, "deno.json")),
      );
      if (config.name === "@tack/agent") return dir;
    } catch { /* no config here */ }
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

function rename(text: string, name: string, scope: string): string {
  return text
    .replaceAll("@you/tack-plugin-hello", `${scope}/tack-plugin-${name}`)
    .replaceAll('name: "hello"', `name: "${name}"`)
    .replaceAll('plugin.name, "hello"', `plugin.name, "${name}"`)
    .replaceAll("Cannot create plugin hello:", `Cannot create plugin ${name}:`)
    .replaceAll("HelloOptions", `${pascal(name)}Options`)
    .replace(/\bhello\b/g, camel(name));
}

async function* files(dir: string, base = ""): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(join(dir, base))) {
    if (SKIP.has(entry.name)) continue;
    const path = join(base, entry.name);
    if (entry.isDirectory) yield* files(dir, path);
    else if (entry.isFile) yield path;
  }
}

/**
 * Creates the plugin package.
 *
 * @param options Name, target, scope, Tack checkout.
 * @returns The absolute target directory, the files written (relative to it) and the Tack
 * checkout linked, if any.
 * @throws {Error} When the name or scope is invalid or the target already exists.
 *
 * @example Scaffolding into a temporary directory
 * ```ts
 * import { scaffoldPlugin } from "./new_plugin.ts";
 * import { equal } from "node:assert/strict";
 *
 * const dir = await Deno.makeTempDir();
 * const { files } = await scaffoldPlugin({ name: "weather", target: `${dir}/weather` });
 * equal(files.includes("tests/weather_test.ts"), true);
 * await Deno.remove(dir, { recursive: true });
 * ```
 */
export async function scaffoldPlugin(
  options: ScaffoldOptions,
): Promise<{ target: string; files: string[]; tack?: string }> {
  const { name } = options;
  if (!NAME_PATTERN.test(name)) {
    throw new Error(
      `Cannot create plugin: "${name}" is not a valid name (use lowercase letters, digits ` +
        `and single hyphens, starting with a letter, e.g. "my-plugin")`,
    );
  }
  const scope = options.scope ?? "@you";
  if (!SCOPE_PATTERN.test(scope)) {
    throw new Error(
      `Cannot create plugin: "${scope}" is not a valid JSR scope (e.g. "@you")`,
    );
  }
  const target = resolve(options.target ?? name);
  if (await exists(target)) {
    throw new Error(
      `Cannot create plugin: ${target} already exists (nothing was written)`,
    );
  }
  const tack = options.tack
    ? resolve(options.tack)
    : await findTackCheckout(dirname(target)) ?? options.fallbackTack;
  const written: string[] = [];
  for await (const file of files(TEMPLATE)) {
    let text = rename(
      await Deno.readTextFile(join(TEMPLATE, file)),
      name,
      scope,
    );
    if (file === "deno.json") {
      const config = JSON.parse(text);
      config.imports = { ...config.imports, ...JSR_IMPORTS };
      // JSR's names, as published; a checkout linked in resolves them until Tack is on JSR
      // (and offline). What is published imports JSR either way.
      if (tack) config.links = [relative(target, tack) || "."];
      else delete config.links; // the template's, to the checkout it lives in
      text = JSON.stringify(config, null, 2) + "\n";
    }
    const out = file === join("tests", "hello_test.ts")
      ? join("tests", `${name.replaceAll("-", "_")}_test.ts`)
      : file;
    await Deno.mkdir(dirname(join(target, out)), { recursive: true });
    await Deno.writeTextFile(join(target, out), text, { createNew: true });
    written.push(out);
  }
  return { target, files: written.sort(), tack };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: { scope: { type: "string" }, tack: { type: "string" } },
  });
  const [name, target] = positionals;
  if (!name || positionals.length > 2) {
    console.error(
      "usage: deno task new-plugin <name> [target] [--scope=@you] [--tack=<Tack checkout>]",
    );
    Deno.exit(2);
  }
  try {
    // `deno task` runs in the config's directory; INIT_CWD is where the user typed it.
    const base = Deno.env.get("INIT_CWD") || Deno.cwd();
    const result = await scaffoldPlugin({
      name,
      target: resolve(base, target ?? name),
      scope: values.scope,
      tack: values.tack && resolve(base, values.tack),
      // Tack is not on JSR yet: without a checkout linked, the copy's imports cannot resolve.
      fallbackTack: OWN_CHECKOUT,
    });
    console.log(`Created ${result.target}:\n  ${result.files.join("\n  ")}`);
    if (result.tack) {
      console.log(
        `Its deno.json links the Tack checkout ${result.tack} in place of JSR's @tack/agent (drop "links" once it is on JSR).`,
      );
    }
    console.log(`Next: cd ${result.target} && deno task test`);
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error));
    Deno.exit(1);
  }
}
