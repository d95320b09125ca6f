// wordCount("The cat; the hat.") -> { the: 2, cat: 1, hat: 1 }
function wordCount(text) {
  throw new Error("not implemented");
}

module.exports = { wordCount };
