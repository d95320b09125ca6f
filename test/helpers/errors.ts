// Awaits a promise that must reject with a QtcException, and returns the exception for code checks.

import { QtcException } from "../../src/errors.js";

/**
 * `exception` is the class the code under test throws: src/'s by default; bench/lib/ runs on the built library, so
 * its tests pass dist/'s (the same class, loaded from another file).
 */
export async function qtcFailure(p: Promise<unknown>, exception: typeof QtcException = QtcException): Promise<QtcException> {
  try {
    await p;
  } catch (e) {
    if (e instanceof exception) return e;
    throw e;
  }
  throw new Error("expected a QtcException");
}
