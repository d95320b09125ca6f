// Owns: rendering untrusted text (model output, workspace files, tool results) for a terminal: control
// characters shown as visible escapes, never sent raw.

/**
 * C0 controls (tab aside), DEL, C1 controls (U+0080–U+009F: 0x9B is a one-byte CSI on some terminals) and the
 * bidirectional formatting characters (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069: text that displays in
 * another order than it reads).
 */
const UNSAFE = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const escapeOne = (ch: string): string => {
  const code = ch.charCodeAt(0);
  if (ch === "\n") return "\\n";
  if (ch === "\r") return "\\r";
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
};

/**
 * `text` with every control character written as a visible escape (`\x1b`, `\r`, `\u202e`), so what a model or a
 * file says cannot move the cursor, recolour, retitle or rewrite the user's terminal. Tabs and printable text
 * are kept; a line stays one line.
 */
export function terminalText(text: string): string {
  return text.replace(UNSAFE, escapeOne);
}
