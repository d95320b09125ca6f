// n counts from 1: nthWord("a b c", 1) is "a".
function nthWord(text, n) {
  return text.trim().split(/\s+/)[n - 1];
}

module.exports = { nthWord };
