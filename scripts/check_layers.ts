/**
 * Keeps the layers pointing one way: core/ imports only core/, the schema library and the
 * linear-time regex engine (re2js);
 * sdk/ imports core/ and sdk/; plugins/ import sdk/, core/, their own folder and other
 * plugins only through their mod.ts; cli/ builds on all of these.
 *
 * Run: deno run -A scripts/check_layers.ts
 */

const rules: Record<string, (target: string, from: string) => boolean> = {
  core: (t) =>
    t.startsWith("core/") || t.startsWith("npm:typebox") || t === "typebox" ||
    t.startsWith("typebox/") || t === "re2js",
  sdk: (t) => !t.startsWith("plugins/") && !t.startsWith("examples/") && !t.startsWith("tests/"),
  plugins: (t, from) => {
    const own = from.split("/").slice(0, 2).join("/") + "/";
    if (t.startsWith(own) || t.startsWith("core/") || t.startsWith("sdk/")) return true;
    // Another plugin only through its public mod.ts.
    if (t.startsWith("plugins/")) return /^plugins\/[^/]+\/mod\.ts$/.test(t);
    return !/^(examples|tests|bench|cli|scripts)\//.test(t);
  },
  cli: (t) => !/^(examples|tests|bench|scripts)\//.test(t),
};

const root = new URL("..", import.meta.url).pathname;
const problems: string[] = [];
const importPattern =
  /(?:import|export)\s[^"']*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

async function* walk(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(root + dir)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* walk(path);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith("_test.ts")) yield path;
  }
}

function resolve(from: string, specifier: string): string {
  if (!specifier.startsWith(".")) return specifier;
  return new URL(specifier, `file:///${from}`).pathname.slice(1);
}

for (const layer of Object.keys(rules)) {
  try {
    await Deno.stat(root + layer);
  } catch {
    continue;
  }
  for await (const file of walk(layer)) {
    const source = await Deno.readTextFile(root + file);
    const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
    for (const match of code.matchAll(importPattern)) {
      const target = resolve(file, match[1] ?? match[2]);
      if (target.startsWith("node:")) continue;
      if (!rules[layer](target, file)) {
        problems.push(`${file} imports ${target}, which ${layer}/ must not depend on`);
      }
    }
  }
}

if (problems.length > 0) {
  console.error(`Cannot accept the layering:\n  ${problems.join("\n  ")}`);
  Deno.exit(1);
}
console.log("layers ok: core <- sdk <- plugins");
