// wordCount("The cat; the hat.") -> { the: 2, cat: 1, hat: 1 }
function wordCount(text) {
  const counts = {};
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    counts[word] = (counts[word] ?? 0) + 1;
  }
  return counts;
}

module.exports = { wordCount };
