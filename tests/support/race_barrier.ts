/**
 * Where two racing processes (`a` and `b`) meet before each round: each writes its ready
 * file, then waits for the other's, so their next step starts at nearly the same moment.
 *
 * @param dir The folder the ready files are written in.
 * @param round The round.
 * @param name `a` or `b`.
 * @returns When both are ready.
 */
export async function meetAt(dir: string, round: number, name: string): Promise<void> {
  Deno.writeTextFileSync(`${dir}/ready-${round}-${name}`, "");
  const other = `${dir}/ready-${round}-${name === "a" ? "b" : "a"}`;
  while (!(await Deno.stat(other).then(() => true, () => false))) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
