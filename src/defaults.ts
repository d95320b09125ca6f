// Owns: the defaults several stages share (a turn's token budget and call bound, the sampling settings), in one
// object that the grammar, runtime, harness and bench defaults read, so they cannot drift apart.

export const SHARED_DEFAULTS = Object.freeze({
  /** Token budget of one turn (thinking, text and calls, sampled and forced). Default: 512. */
  maxTokens: 512,
  /** Most calls one turn may make (the grammar's bound as well). Default: 8. */
  maxCalls: 8,
  /** Sampling temperature (the runtime's, and the bench's reference row, so both sample alike). Default: 0.7. */
  temperature: 0.7,
  /** Default: 0.8. */
  topP: 0.8,
  /** Default: 20. */
  topK: 20,
});

/**
 * The tool choice when the user names none, the one rule for every command (bench, run, agent, serve):
 * `required` when every model is synthetic, else `auto`. Random weights practically never open a call under
 * `auto` (the README's `qtc run --model synthetic:tiny` wrote 512 tokens of noise and no call), so nothing would
 * be judged; under `required` every turn calls, and the grammar's guarantee is what the output shows. Replays
 * (`source: "replay"`) replay recorded text and do not count.
 */
export function defaultToolChoiceFor(models: readonly { synthetic: boolean; source?: string }[]): "auto" | "required" {
  const ggufs = models.filter((m) => m.source !== "replay");
  return ggufs.length > 0 && ggufs.every((m) => m.synthetic) ? "required" : "auto";
}
