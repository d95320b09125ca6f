// The constrained guarantee for the hermes format: 250 of the 500-request sweep (see guarantee-sweep.ts).
import { guaranteeSweep } from "./guarantee-sweep.js";

guaranteeSweep("hermes", 0);
