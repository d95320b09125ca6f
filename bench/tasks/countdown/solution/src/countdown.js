export function countdown(n) {
  const out = [];
  for (let i = n; i >= 1; i--) out.push(i);
  return out;
}
