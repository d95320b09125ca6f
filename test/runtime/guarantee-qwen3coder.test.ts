// The constrained guarantee for the qwen3coder format: 250 of the 500-request sweep (see guarantee-sweep.ts).
import { guaranteeSweep } from "./guarantee-sweep.js";

guaranteeSweep("qwen3coder", 1);
