const TABLE = [
  [1000, "M"],
  [500, "D"],
  [100, "C"],
  [50, "L"],
  [10, "X"],
  [5, "V"],
  [1, "I"],
];

export function toRoman(n) {
  let out = "";
  for (const [value, letters] of TABLE) {
    while (n >= value) {
      out += letters;
      n -= value;
    }
  }
  return out;
}
