/**
 * What the approval page's tests send it as a person's browser would: a decision form posted
 * to `/decide` (its redirect not followed).
 *
 * @module
 */

/**
 * Posts a decision form to the page and returns the status it answered with.
 *
 * @param pageUrl The page's base URL (ending in `/`).
 * @param form The form's fields.
 * @returns The HTTP status (303 when it took the decision, 403 for a foreign origin, …).
 */
export async function postDecision(pageUrl: string, form: URLSearchParams): Promise<number> {
  const response = await fetch(`${pageUrl}decide`, {
    method: "POST",
    body: form,
    redirect: "manual",
  });
  await response.body?.cancel();
  return response.status;
}

/**
 * The page's decision forms, in order, as a person's browser would post them with "approve":
 * each form's hidden fields (call id, arguments' hash, the round it shows).
 *
 * @param pageUrl The run's page.
 * @returns One form per call waiting on the page.
 */
export async function pageForms(pageUrl: string): Promise<URLSearchParams[]> {
  const html = await (await fetch(pageUrl)).text();
  return html.split("<form").slice(1).map((form) =>
    new URLSearchParams([
      ...[...form.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)">/g)].map((
        [, name, value],
      ) => [name, value]),
      ["action", "approve"],
    ])
  );
}

/**
 * Waits until a run is pending or done (no worker has it), polling `read` every 25 ms.
 *
 * @param read Reads the run's status (from the store, or from the page).
 * @param tries How many reads before giving up.
 * @returns What `read` returned last.
 * @throws {Error} When it never settles.
 */
export async function untilSettled<T extends { status?: string } | undefined>(
  read: () => Promise<T>,
  tries = 400,
): Promise<NonNullable<T>> {
  for (let i = 0; i < tries; i++) {
    const run = await read();
    if (run?.status === "pending" || run?.status === "done") return run as NonNullable<T>;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("the run did not settle");
}
