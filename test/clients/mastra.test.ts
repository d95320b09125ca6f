// Owns: Mastra (`@mastra/core` Agent with createTool tools, its own OpenAI-compatible model config: provider id,
// model id, URL, key) against qtc serve: a two-step generate sends the tool list, gets a structured call, runs the
// tool's `execute` with the arguments qtc returned and sends its result back in turn 2.

import { Agent } from "@mastra/core/agent";
import { createTool } from "@mastra/core/tools";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { agentTraffic } from "./calls.js";
import { API_KEY, describeExchanges, generations, MODEL_NAME, type Qtc, startQtc, watchEgress } from "./harness.js";

/** A tool message's content as the tool's string: the AI SDK sends a string result JSON-encoded or as is. */
function asText(content: string): string {
  try {
    const v: unknown = JSON.parse(content);
    return typeof v === "string" ? v : content;
  } catch {
    return content;
  }
}

let qtc: Qtc;
beforeAll(async () => {
  qtc = await startQtc({ contextSize: 4096 });
}, 120_000);
afterAll(async () => {
  await qtc?.close();
});

describe("Mastra 0.24.9 on qtc serve", () => {
  it("Agent.generate, two steps: the tools sent, a structured call executed with schema-valid args, its result sent back", { timeout: 180_000 }, async () => {
    const egress = watchEgress();
    const ran: { name: string; input: unknown; output: string }[] = [];
    const noteSchema = z.object({ title: z.string().max(40), body: z.string().max(80) });
    const folderSchema = z.object({ folder: z.enum(["inbox", "archive"]) });
    const writeNote = createTool({
      id: "write_note",
      description: "Write a note to the notebook.",
      inputSchema: noteSchema,
      execute: async ({ context }) => {
        const output = `saved "${context.title}"`;
        ran.push({ name: "write_note", input: context, output });
        return output;
      },
    });
    const countNotes = createTool({
      id: "count_notes",
      description: "Count the notes in the notebook.",
      inputSchema: folderSchema,
      execute: async ({ context }) => {
        const output = `3 notes in ${context.folder}`;
        ran.push({ name: "count_notes", input: context, output });
        return output;
      },
    });
    // Mastra's documented config for an OpenAI-compatible endpoint: provider id, model id, URL and key.
    const agent = new Agent({
      name: "notebook",
      instructions: "You keep a notebook.",
      model: { providerId: "qtc", modelId: MODEL_NAME, url: `${qtc.url}/v1`, apiKey: API_KEY },
      tools: { write_note: writeNote, count_notes: countNotes },
    });
    // A small model needs the call asked for: toolChoice "required" (random weights never open one under auto).
    const result = await agent.generate("Write a note titled groceries.", { maxSteps: 2, toolChoice: "required", modelSettings: { maxOutputTokens: 200 } });
    const log = describeExchanges(qtc.exchanges);
    const t = agentTraffic(generations(qtc, "/v1/chat/completions"), "chat");

    expect(t.requests.length, log).toBe(2);
    for (const e of t.requests) expect(e.status, log).toBe(200);
    expect(t.declared.sort(), log).toEqual(["count_notes", "write_note"]);
    // Turn 1's calls, as qtc returned them: each ran, with those arguments, which its schema accepts.
    const turn1 = agentTraffic([t.requests[0]!], "chat").calls;
    expect(turn1.length, log).toBeGreaterThanOrEqual(1);
    const schemas = { write_note: noteSchema, count_notes: folderSchema } as Record<string, z.ZodType>;
    for (const [i, c] of turn1.entries()) {
      const args = JSON.parse(c.args as string);
      expect(schemas[c.name]!.safeParse(args).success, log).toBe(true);
      expect(ran[i], log).toMatchObject({ name: c.name, input: args });
    }
    // Turn 2 carried each of those calls' results: the output its execute returned.
    const sent = agentTraffic(t.requests, "chat").results;
    expect(sent.map((r) => r.id).sort(), log).toEqual(turn1.map((c) => c.id).sort());
    for (const [i, c] of turn1.entries()) {
      const r = sent.find((x) => x.id === c.id)!;
      expect(asText(r.text), log).toBe(ran[i]!.output);
    }
    expect(result.steps.length, log).toBe(2);
    expect(egress.stop()).toEqual([]);
  });
});
