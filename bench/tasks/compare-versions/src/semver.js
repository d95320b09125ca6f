function compareVersions(a, b) {
  const pa = a.split(".").map(Number);
  const pb = b.split(".").map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) + (pb[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

module.exports = { compareVersions };
