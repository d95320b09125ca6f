// Sales tax, as a percentage.
export const TAX_RATE_PERCENT = 20;
