// Owns: finding where a JSON object ends in text by balancing braces and brackets outside strings — the cheap
// look both a JSON-call format (is this block body complete?) and the XML decoder (a JSON body) need before parsing.

/** End index (exclusive) of the JSON object or array starting at `start`, by balancing outside strings; -1 if open. */
export function jsonObjectEnd(s: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) depth++;
    else if (c === 0x7d || c === 0x5d) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}
