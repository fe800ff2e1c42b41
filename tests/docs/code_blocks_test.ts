// Every TypeScript block in README.md and docs/*.md type-checks and lints as written (with
// its own imports), and the blocks marked runnable (```ts run) run. A block that is deliberately a
// fragment says so in its info string (```ts fragment) and is skipped.
import { equal } from "node:assert/strict";
import { join } from "node:path";

const REPO = new URL("../..", import.meta.url).pathname;

interface Block {
  file: string;
  line: number;
  info: string;
  code: string;
}

function blocksOf(file: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|typescript)\b(.*)$/.exec(lines[i]);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    while (++i < lines.length && !/^```\s*$/.test(lines[i])) body.push(lines[i]);
    blocks.push({ file, line: start + 1, info: open[2].trim(), code: body.join("\n") + "\n" });
  }
  return blocks;
}

async function documentedBlocks(): Promise<Block[]> {
  const files = ["README.md"];
  for await (const entry of Deno.readDir(join(REPO, "docs"))) {
    if (entry.isFile && entry.name.endsWith(".md")) files.push(`docs/${entry.name}`);
  }
  const blocks: Block[] = [];
  for (const file of files.sort()) {
    blocks.push(...blocksOf(file, await Deno.readTextFile(join(REPO, file))));
  }
  return blocks.filter((block) => !/\bfragment\b/.test(block.info));
}

/**
 * Writes each block to its own module at the repo's root, where a reader of the docs runs
 * them (so `@tack/agent` and `./examples/…` resolve as written).
 */
async function writeBlocks(blocks: Block[]): Promise<{ paths: string[]; remove(): Promise<void> }> {
  const tag = crypto.randomUUID().slice(0, 8);
  const paths: string[] = [];
  for (const block of blocks) {
    const name = `.tmp_doc_block_${tag}_${block.file.replace(/[/.]/g, "_")}_${block.line}.ts`;
    const path = join(REPO, name);
    // `export {}` makes each block a module of its own, as a user's file would be.
    await Deno.writeTextFile(path, `${block.code}\nexport {};\n`);
    paths.push(path);
  }
  const remove = () => Promise.all(paths.map((p) => Deno.remove(p))).then(() => {});
  return { paths, remove };
}

async function deno(args: string[]): Promise<{ code: number; log: string }> {
  const output = await new Deno.Command(Deno.execPath(), {
    args,
    cwd: REPO,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code: output.code, log: decoder.decode(output.stdout) + decoder.decode(output.stderr) };
}

Deno.test("every TypeScript block in README.md and docs/*.md type-checks as written", async () => {
  const blocks = await documentedBlocks();
  const { paths, remove } = await writeBlocks(blocks);
  try {
    const { code, log } = await deno(["check", "--quiet", ...paths]);
    const where = blocks.map((b, i) => `${b.file}:${b.line} -> ${paths[i]}`).join("\n");
    equal(code, 0, `${log}\n${where}`);
  } finally {
    await remove();
  }
});

Deno.test("every TypeScript block in README.md and docs/*.md passes deno lint (unused names aside)", async () => {
  const blocks = await documentedBlocks();
  const { paths, remove } = await writeBlocks(blocks);
  try {
    // A snippet may name what it shows without using it (`const agent = …`).
    const rules = "--rules-exclude=no-unused-vars,explicit-module-boundary-types";
    const { code, log } = await deno(["lint", "--quiet", rules, ...paths]);
    const where = blocks.map((b, i) => `${b.file}:${b.line} -> ${paths[i]}`).join("\n");
    equal(code, 0, `${log}\n${where}`);
  } finally {
    await remove();
  }
});

Deno.test("the blocks marked runnable run", async () => {
  const blocks = (await documentedBlocks()).filter((block) => /\brun\b/.test(block.info));
  const { paths, remove } = await writeBlocks(blocks);
  try {
    for (const [i, path] of paths.entries()) {
      const { code, log } = await deno(["run", "-A", path]);
      equal(code, 0, `${blocks[i].file}:${blocks[i].line}\n${log}`);
    }
  } finally {
    await remove();
  }
});

/**
 * What a project that depends on Tack can import by name: Tack's own entry points, and the
 * libraries the docs tell it to add. Tack's other dependencies are in Tack's import map only.
 */
const USER_NAMES = /^(@tack\/agent(\/.*)?|zod)$/;
/** The plugin template's deno.json maps `typebox` itself (docs/publish.md shows its code). */
const TEMPLATE_NAMES: Record<string, RegExp> = { "docs/publish.md": /^typebox$/ };

Deno.test("every block imports only what a project depending on Tack can name", async () => {
  const wrong: string[] = [];
  for (const block of await documentedBlocks()) {
    const specifiers = block.code.matchAll(/\bfrom\s+"([^"]+)"|\bimport\s*\(\s*"([^"]+)"/g);
    for (const [, from, dynamic] of specifiers) {
      const specifier = from ?? dynamic;
      if (/^(node:|npm:|jsr:|\.\.?\/|https?:)/.test(specifier)) continue;
      if (USER_NAMES.test(specifier) || TEMPLATE_NAMES[block.file]?.test(specifier)) continue;
      wrong.push(`${block.file}:${block.line} imports "${specifier}"`);
    }
  }
  equal(wrong.join("\n"), "");
});
