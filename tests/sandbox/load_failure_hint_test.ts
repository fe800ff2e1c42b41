// The deno cache hint names the plugin so that a shell reads it back as it is.
import { equal } from "node:assert/strict";
import { pathToFileURL } from "node:url";
import { moduleForCommand } from "../../sdk/sandbox/load_failure_hint.ts";

Deno.test("moduleForCommand: a path with spaces and quotes reads back the same through sh", async () => {
  for (const path of ["/work/p.ts", "/Users/me/My Plugins/p.ts", "/tmp/it's here/$HOME;p.ts"]) {
    const named = moduleForCommand(pathToFileURL(path).href);
    const { stdout } = await new Deno.Command("sh", { args: ["-c", `printf %s ${named}`] })
      .output();
    equal(new TextDecoder().decode(stdout), path);
  }
  equal(moduleForCommand("jsr:@me/plugin@1.2.0"), "jsr:@me/plugin@1.2.0");
});
