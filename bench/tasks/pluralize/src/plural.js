function pluralize(word) {
  if (/(s|x|ch|sh)$/.test(word)) return word + "es";
  return word + "s";
}

module.exports = { pluralize };
