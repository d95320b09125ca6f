function pluralize(word) {
  if (/(s|x|ch|sh)$/.test(word)) return word + "es";
  if (/[^aeiou]y$/.test(word)) return word.slice(0, -1) + "ies";
  return word + "s";
}

module.exports = { pluralize };
