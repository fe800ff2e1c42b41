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
