/**
 * TypeBox's `Type`, re-exported so a tool or plugin needs one import (`@tack/agent`) and
 * never a second copy of TypeBox (`Static` comes with the core's schema types).
 *
 * @module
 */

import { Type as TypeBoxType } from "typebox";

/**
 * TypeBox's schema builder (`Type.Object`, `Type.String`, …): the schemas `defineTool`
 * types its parameters from.
 *
 * @example A tool's parameters
 * ```ts
 * import { Type } from "@tack/agent";
 * import { equal } from "node:assert/strict";
 *
 * const parameters = Type.Object({ city: Type.String() });
 * equal(parameters.type, "object");
 * ```
 */
export const Type: typeof TypeBoxType = TypeBoxType;
