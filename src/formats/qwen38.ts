// Owns: the qwen36 and qwen38 tool-call formats: Qwen3.5's XML calls and tokens under the Qwen3.6 and Qwen3.8
// templates, which read more template variables.
// Qwen3.6's template is Qwen3.5's with a `preserve_thinking` switch (see templates/README.md). Qwen3.8's
// (templates/qwen3.8-27b.jinja) adds `reasoning_effort` (xhigh, the default; medium; low), keeps earlier reasoning
// unless `preserve_thinking` is false, and prints every non-string argument value with `tojson` (`true`, `null`).
// Servers run Qwen3.8 with `--tool-call-parser qwen3_coder`: the call spelling is qwen35's.

import { QWEN35_SETTINGS } from "./qwen35.js";
import { xmlCallFormat, type XmlCallSettings } from "./xml-call.js";

/** qwen36 as data: qwen35 plus the `preserve_thinking` switch its template reads. */
export const QWEN36_SETTINGS: Readonly<XmlCallSettings> = Object.freeze({
  ...QWEN35_SETTINGS,
  id: "qwen36",
  description: "Qwen3.6: Qwen3.5's XML calls; its template reads preserve_thinking",
  template: "qwen3.6",
  // Detection: Qwen3.5's markers plus the variable; Qwen3.8's template spells one more.
  templateMarkers: [...QWEN35_SETTINGS.templateMarkers, "preserve_thinking"],
  templateVariables: ["preserve_thinking"] as const,
});

/** qwen38 as data: qwen35's spelling, Qwen3.8's template. */
export const QWEN38_SETTINGS: Readonly<XmlCallSettings> = Object.freeze({
  ...QWEN35_SETTINGS,
  id: "qwen38",
  description: "Qwen3.8: Qwen3.5's XML calls; its template reads reasoning_effort and preserve_thinking",
  template: "qwen3.8",
  templateMarkers: [...QWEN36_SETTINGS.templateMarkers, "reasoning_effort"],
  templateVariables: ["preserve_thinking", "reasoning_effort"] as const,
  nonStringValues: "json",
});

export const qwen36 = xmlCallFormat(QWEN36_SETTINGS);
export const qwen38 = xmlCallFormat(QWEN38_SETTINGS);
