// Owns: the file tools of the sandbox (read_file, list_files, grep, write_file): each takes the model's
// arguments and returns a ToolOutcome; every cap hit and every refusal is said in the text.

import { RE2JS } from "re2js";
import { openInside, resolveInside, walkInside } from "./sandbox.js";
import type { ToolOutcome } from "./types.js";
import type { Workspace } from "./workspace.js";

/** Longest grep pattern accepted (characters). */
const MAX_PATTERN_CHARS = 500;

const out = (code: ToolOutcome["code"], text: string): ToolOutcome => ({ code, text });

/** Cut a UTF-8 buffer at `max` bytes without splitting a character. */
function cutUtf8(buf: Buffer, max: number): Buffer {
  if (buf.length <= max) return buf;
  let end = max;
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end);
}

export async function readFileTool(ws: Workspace, given: string): Promise<ToolOutcome> {
  const r = await resolveInside(ws.root, given);
  if (!r.ok) return r.outcome;
  if (r.kind === "missing") return out("not_found", `Error: "${r.rel}" does not exist. Use list_files to see the files.`);
  if (r.kind !== "file") return out("not_a_file", `Error: "${r.rel}" is a folder, not a file. Use list_files on it.`);
  const max = ws.limits.maxReadBytes;
  const opened = await openInside(ws.root, r.real, "read");
  if (!opened.ok) return opened.outcome;
  const handle = opened.handle;
  try {
    const size = (await handle.stat()).size;
    const buf = Buffer.alloc(Math.min(size, max + 4));
    const { bytesRead } = await handle.read(buf, 0, buf.length, 0);
    const data = buf.subarray(0, bytesRead);
    if (data.includes(0)) return out("not_a_file", `Error: "${r.rel}" is a binary file (${size} bytes); it cannot be shown.`);
    if (size === 0) return out("ok", `(${r.rel} is empty)`);
    if (size <= max) return out("ok", data.toString("utf8"));
    const shown = cutUtf8(data, max);
    return out(
      "capped",
      `${shown.toString("utf8")}\n[truncated: showing the first ${shown.length} of ${size} bytes of ${r.rel}; the read limit is ${max} bytes]`,
    );
  } finally {
    await handle.close();
  }
}

export async function writeFileTool(ws: Workspace, given: string, content: string): Promise<ToolOutcome> {
  const bytes = Buffer.byteLength(content, "utf8");
  const { maxWriteBytes, maxTotalWriteBytes } = ws.limits;
  if (bytes > maxWriteBytes) {
    return out("too_large", `Error: the content is ${bytes} bytes; one write may be at most ${maxWriteBytes} bytes. Nothing was written.`);
  }
  if (ws.written + bytes > maxTotalWriteBytes) {
    return out(
      "too_large",
      `Error: this run may write ${maxTotalWriteBytes} bytes in all and has written ${ws.written}; this write (${bytes} bytes) was refused. Nothing was written.`,
    );
  }
  const r = await resolveInside(ws.root, given);
  if (!r.ok) return r.outcome;
  if (r.rel === "." || r.kind === "dir") return out("not_a_file", `Error: "${r.rel}" is a folder; give a file path.`);
  if (r.kind === "other") return out("not_a_file", `Error: "${r.rel}" is not a regular file.`);
  // Opened from a directory handle, component by component: race-free against a folder swapped for a symlink.
  const opened = await openInside(ws.root, r.real, "write");
  if (!opened.ok) return opened.outcome;
  try {
    await opened.handle.writeFile(content, "utf8");
  } finally {
    await opened.handle.close();
  }
  ws.written += bytes;
  return out("ok", `Wrote ${bytes} bytes to ${r.rel}${r.kind === "missing" ? " (new file)" : ""}.`);
}

/** A file's bytes, opened race-free inside the root; its size when over `max`; null when it cannot be read. */
async function readCapped(root: string, real: string, max: number): Promise<Buffer | number | null> {
  const opened = await openInside(root, real, "read");
  if (!opened.ok) return null;
  try {
    const size = (await opened.handle.stat()).size;
    return size > max ? size : await opened.handle.readFile();
  } catch {
    return null;
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}

export async function listFilesTool(ws: Workspace, given: string): Promise<ToolOutcome> {
  const r = await resolveInside(ws.root, given);
  if (!r.ok) return r.outcome;
  if (r.kind === "missing") return out("not_found", `Error: "${r.rel}" does not exist.`);
  if (r.kind !== "dir") return out("not_a_directory", `Error: "${r.rel}" is a file, not a folder. Use read_file on it.`);
  const max = ws.limits.maxListEntries;
  const lines: string[] = [];
  let capped = false;
  for await (const e of walkInside(ws.root, r.real, r.rel)) {
    if (lines.length >= max) {
      capped = true;
      break;
    }
    lines.push(
      e.kind === "dir"
        ? `${e.rel}/`
        : e.kind === "skipped-dir"
          ? `${e.rel}/ (not listed)`
          : e.kind === "link-outside"
            ? `${e.rel} (symlink to outside the project or nowhere; not followed)`
            : e.kind === "link-inside"
              ? `${e.rel} (symlink to a folder; list its target instead)`
              : e.rel,
    );
  }
  if (lines.length === 0) return out("ok", `(${r.rel} is empty)`);
  if (capped) {
    lines.push(`[list truncated at ${max} entries; list a subfolder to see more]`);
    return out("capped", lines.join("\n"));
  }
  return out("ok", lines.join("\n"));
}

export async function grepTool(ws: Workspace, pattern: string, given: string): Promise<ToolOutcome> {
  if (pattern.length > MAX_PATTERN_CHARS) {
    return out("invalid_regex", `Error: the pattern is ${pattern.length} characters; at most ${MAX_PATTERN_CHARS} are allowed.`);
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return out(
      "invalid_regex",
      `Error: invalid regular expression ${JSON.stringify(pattern)}: ${why}. Patterns use RE2 syntax (no lookaround, no backreferences).`,
    );
  }
  const { maxGrepMatches, maxGrepLineChars, maxGrepFileBytes, maxGrepFiles, maxGrepProgram, maxGrepLineWork, grepTimeBudgetMs } =
    ws.limits;
  const program = re.programSize();
  if (program > maxGrepProgram) {
    return out(
      "invalid_regex",
      `Error: the pattern is too complex (${program} RE2 instructions; at most ${maxGrepProgram}). Use a simpler pattern, e.g. fewer or smaller {n} repeats.`,
    );
  }
  const r = await resolveInside(ws.root, given);
  if (!r.ok) return r.outcome;
  if (r.kind === "missing") return out("not_found", `Error: "${r.rel}" does not exist.`);
  const files: { rel: string; real: string }[] = [];
  if (r.kind === "file") files.push({ rel: r.rel, real: r.real });
  else if (r.kind === "dir") {
    for await (const e of walkInside(ws.root, r.real, r.rel)) {
      if (e.kind === "file") files.push({ rel: e.rel, real: e.real });
      if (files.length > maxGrepFiles) break;
    }
  } else return out("not_a_file", `Error: "${r.rel}" is neither a file nor a folder.`);

  const hits: string[] = [];
  const notes: string[] = [];
  let capped = false;
  if (files.length > maxGrepFiles) {
    files.length = maxGrepFiles;
    capped = true;
    notes.push(`[searched only the first ${maxGrepFiles} files]`);
  }
  const scanChars = Math.max(1000, Math.floor(maxGrepLineWork / Math.max(1, program)));
  const deadline = performance.now() + grepTimeBudgetMs;
  let longLines = 0;
  search: for (const f of files) {
    const buf = await readCapped(ws.root, f.real, maxGrepFileBytes);
    if (typeof buf === "number") {
      notes.push(`[skipped ${f.rel}: ${buf} bytes is over the ${maxGrepFileBytes}-byte limit]`);
      capped = true;
      continue;
    }
    if (!buf || buf.includes(0)) continue;
    const lines = buf.toString("utf8").split("\n");
    for (let i = 0; i < lines.length; i++) {
      if (performance.now() > deadline) {
        capped = true;
        notes.push(`[search stopped after ${grepTimeBudgetMs} ms, in ${f.rel} at line ${i + 1}; narrow the pattern or the path]`);
        break search;
      }
      if (lines[i]!.length > scanChars) {
        // Cutting the line would make `$` match at the cut, so a line too long for this pattern is skipped.
        longLines++;
        capped = true;
        continue;
      }
      if (!re.matcher(lines[i]!).find()) continue;
      if (hits.length >= maxGrepMatches) {
        capped = true;
        notes.push(`[stopped after ${maxGrepMatches} matches; narrow the pattern or the path]`);
        break search;
      }
      const line = lines[i]!.replace(/\r$/, "");
      const shown = line.length > maxGrepLineChars ? `${line.slice(0, maxGrepLineChars)}… [line cut at ${maxGrepLineChars} characters]` : line;
      if (line.length > maxGrepLineChars) capped = true;
      hits.push(`${f.rel}:${i + 1}: ${shown}`);
    }
  }
  if (longLines > 0) {
    notes.push(`[${longLines} line(s) longer than ${scanChars} characters not searched: too long for a pattern this large]`);
  }
  if (hits.length === 0) {
    return out(capped ? "capped" : "ok", [`No matches for ${JSON.stringify(pattern)} in ${r.rel}.`, ...notes].join("\n"));
  }
  return out(capped ? "capped" : "ok", [...hits, ...notes].join("\n"));
}
