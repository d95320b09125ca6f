// Awaits a promise that must reject with a QtcException, and returns the exception for code checks.

import { QtcException } from "../../src/errors.js";

export async function qtcFailure(p: Promise<unknown>): Promise<QtcException> {
  try {
    await p;
  } catch (e) {
    if (e instanceof QtcException) return e;
    throw e;
  }
  throw new Error("expected a QtcException");
}
