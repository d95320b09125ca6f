// Picking llama.cpp's binary: prebuilt on request (even when a native build exists), native only when built,
// and a bad QTC_LLAMA_BINARY refused with a stable code.

import { describe, expect, test } from "vitest";
import { createLlama, openModel } from "../../src/model/index.js";
import { LLAMA_BINARY_ENV } from "../../src/model/load.js";
import { tinyModelPath } from "../helpers/models.js";

describe("llama.cpp binary choice", () => {
  test("prebuilt is the generic binary node-llama-cpp ships, and the model's settings say so", async () => {
    const opened = await openModel(await tinyModelPath(), { gpu: "cpu", binary: "prebuilt", threads: 1, contextSize: 512 });
    try {
      expect(opened.settings.binary).toBe("prebuilt");
      expect(opened.llama.buildType).toBe("prebuilt");
    } finally {
      await opened.dispose();
    }
  });

  test("native starts the local build when there is one, else fails with model_load_failed", async () => {
    const started = await createLlama({ gpu: "cpu", binary: "native" }).then(
      async (llama) => {
        expect(llama.buildType).toBe("localBuild");
        await llama.dispose();
        return "native";
      },
      (e: { code?: string }) => e.code,
    );
    expect(["native", "model_load_failed"]).toContain(started);
  });

  test(`an unknown ${LLAMA_BINARY_ENV} is invalid_option`, async () => {
    const before = process.env[LLAMA_BINARY_ENV];
    process.env[LLAMA_BINARY_ENV] = "fastest";
    try {
      await expect(createLlama({ gpu: "cpu" })).rejects.toMatchObject({ code: "invalid_option" });
    } finally {
      if (before === undefined) delete process.env[LLAMA_BINARY_ENV];
      else process.env[LLAMA_BINARY_ENV] = before;
    }
  });
});
