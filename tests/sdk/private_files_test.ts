// The files a run leaves are created owner-only; files that exist keep their modes.
import { appendPrivateText, makePrivateDir, writePrivateText } from "@tack/agent/sdk";
import { equal } from "node:assert/strict";

const modeOf = (path: string) => Deno.statSync(path).mode! & 0o777;

Deno.test({
  name: "private files: created 0600 in folders created 0700; existing ones keep their modes",
  ignore: Deno.build.os === "windows",
  fn() {
    const root = Deno.makeTempDirSync();
    try {
      makePrivateDir(`${root}/a/b`);
      equal(modeOf(`${root}/a`), 0o700);
      equal(modeOf(`${root}/a/b`), 0o700);
      appendPrivateText(`${root}/a/b/log`, "one\n");
      appendPrivateText(`${root}/a/b/log`, new TextEncoder().encode("two\n"));
      equal(Deno.readTextFileSync(`${root}/a/b/log`), "one\ntwo\n");
      equal(modeOf(`${root}/a/b/log`), 0o600);
      writePrivateText(`${root}/a/b/request.txt`, "long text");
      writePrivateText(`${root}/a/b/request.txt`, "short");
      equal(Deno.readTextFileSync(`${root}/a/b/request.txt`), "short");
      equal(modeOf(`${root}/a/b/request.txt`), 0o600);
      // The user's own modes stay.
      Deno.mkdirSync(`${root}/shared`, { mode: 0o755 });
      Deno.chmodSync(`${root}/shared`, 0o755);
      makePrivateDir(`${root}/shared/x`);
      equal(modeOf(`${root}/shared`), 0o755);
      Deno.writeTextFileSync(`${root}/shared/log`, "");
      Deno.chmodSync(`${root}/shared/log`, 0o640);
      appendPrivateText(`${root}/shared/log`, "line\n");
      writePrivateText(`${root}/shared/log`, "again\n");
      equal(modeOf(`${root}/shared/log`), 0o640);
    } finally {
      Deno.removeSync(root, { recursive: true });
    }
  },
});
